// Package report renders kubegap's results: the scan report as a table,
// JSON, SARIF 2.1.0 or compact Markdown, the check catalogue, a check's
// explanation, and the ClusterRole the checks need.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// Finding is one finding as the JSON report carries it.
type Finding struct {
	Check    string        `json:"check"`
	Severity string        `json:"severity"`
	Object   inventory.Ref `json:"object"`
	Message  string        `json:"message"`
	Cases    []string      `json:"cases"`
}

// Report is the JSON report.
type Report struct {
	Findings     []Finding              `json:"findings"`
	NotEvaluated []kubegap.NotEvaluated `json:"not_evaluated"`
	APIRequests  int                    `json:"api_requests"`
}

// Build turns a result into the JSON report in lang.
func Build(res *kubegap.Result, lang string) Report {
	r := Report{Findings: []Finding{}, NotEvaluated: res.NotEvaluated, APIRequests: res.APIRequests}
	if r.NotEvaluated == nil {
		r.NotEvaluated = []kubegap.NotEvaluated{}
	}
	for _, f := range res.Findings {
		r.Findings = append(r.Findings, Finding{
			Check: f.Check, Severity: f.Severity.String(), Object: f.Object,
			Message: f.Message.In(lang), Cases: f.Cases,
		})
	}
	return r
}

// Formats are the scan report formats.
var Formats = []string{"table", "json", "sarif", "markdown"}

// Write renders res in format.
func Write(w io.Writer, res *kubegap.Result, format, lang, version string) error {
	switch format {
	case "table", "":
		return writeTable(w, res, lang)
	case "json":
		return writeJSON(w, Build(res, lang))
	case "sarif":
		return writeSARIF(w, res, lang, version)
	case "markdown", "md":
		return writeMarkdown(w, res, lang)
	}
	return fmt.Errorf("unknown output format %q (want %s)", format, strings.Join(Formats, ", "))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func sevLabel(s checks.Severity, lang string) string { return s.Label(lang) }

func objectText(r inventory.Ref) string { return r.String() }

func summary(res *kubegap.Result, lang string) string {
	counts := map[checks.Severity]int{}
	for _, f := range res.Findings {
		counts[f.Severity]++
	}
	var parts []string
	for _, s := range []checks.Severity{checks.High, checks.Medium, checks.Low} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], sevLabel(s, lang)))
		}
	}
	by := ""
	if len(parts) > 0 {
		by = " (" + strings.Join(parts, ", ") + ")"
	}
	s := locale.N(lang, "report.findings", len(res.Findings)) + by + " · " +
		locale.N(lang, "report.unevaluated", len(res.NotEvaluated)) + " · " + locale.N(lang, "report.api_requests", res.APIRequests)
	if res.Suppressed > 0 {
		s += " · " + locale.N(lang, "report.suppressed", res.Suppressed)
	}
	return s
}

func writeTable(w io.Writer, res *kubegap.Result, lang string) error {
	if len(res.Findings) > 0 {
		head := []string{locale.T(lang, "report.col.severity"), locale.T(lang, "report.col.check"), locale.T(lang, "report.col.object"), locale.T(lang, "report.col.cases")}
		rows := [][]string{head}
		for _, f := range res.Findings {
			rows = append(rows, []string{sevLabel(f.Severity, lang), f.Check, objectText(f.Object), strings.Join(f.Cases, ",")})
		}
		widths := make([]int, 3)
		for _, r := range rows {
			for i := range widths {
				widths[i] = max(widths[i], displayWidth(r[i]))
			}
		}
		for i, r := range rows {
			var b strings.Builder
			for c := range widths {
				b.WriteString(r[c])
				b.WriteString(strings.Repeat(" ", widths[c]-displayWidth(r[c])+2))
			}
			b.WriteString(r[3])
			fmt.Fprintln(w, b.String())
			if i > 0 {
				fmt.Fprintf(w, "    %s\n", res.Findings[i-1].Message.In(lang))
			}
		}
	}
	for _, n := range res.NotEvaluated {
		fmt.Fprintf(w, "%s %s: %s\n", locale.T(lang, "report.not_evaluated"), n.Check, n.Reason)
	}
	_, err := fmt.Fprintln(w, summary(res, lang))
	return err
}

// displayWidth counts Hangul and other wide characters as two columns.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x1100 && (r <= 0x115f || (r >= 0x2e80 && r <= 0xa4cf) || (r >= 0xac00 && r <= 0xd7a3) || (r >= 0xf900 && r <= 0xfaff) || (r >= 0xff00 && r <= 0xff60)) {
			n += 2
		} else {
			n++
		}
	}
	return n
}

func writeMarkdown(w io.Writer, res *kubegap.Result, lang string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# kubegap\n\n%s\n", summary(res, lang))
	if len(res.Findings) > 0 {
		b.WriteString("\n")
		seen := map[string]bool{}
		var order []string
		for _, f := range res.Findings {
			fmt.Fprintf(&b, "- **%s** `%s` %s: %s (%s)\n", sevLabel(f.Severity, lang), f.Check, objectText(f.Object), f.Message.In(lang), strings.Join(f.Cases, ", "))
			if !seen[f.Check] {
				seen[f.Check] = true
				order = append(order, f.Check)
			}
		}
		fmt.Fprintf(&b, "\n## %s\n\n", locale.T(lang, "report.fixes"))
		for _, id := range order {
			if c := checks.Get(id); c != nil {
				fmt.Fprintf(&b, "- `%s`: %s\n", id, c.Remediation.In(lang))
			}
		}
	}
	if len(res.NotEvaluated) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", locale.T(lang, "report.not_evaluated_heading"))
		for _, n := range res.NotEvaluated {
			fmt.Fprintf(&b, "- `%s`: %s\n", n.Check, n.Reason)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CatalogueEntry is one check in `kubegap checks -o json`.
type CatalogueEntry struct {
	ID       string           `json:"id"`
	Severity string           `json:"severity"`
	Title    incidentlib.Text `json:"title"`
	Kinds    []string         `json:"kinds"`
	Cases    []string         `json:"cases"`
}

// Catalogue lists cs.
func Catalogue(cs []*checks.Check) []CatalogueEntry {
	out := []CatalogueEntry{}
	for _, c := range cs {
		kinds := make([]string, len(c.Kinds))
		for i, k := range c.Kinds {
			kinds[i] = string(k)
		}
		out = append(out, CatalogueEntry{ID: c.ID, Severity: c.Severity.String(), Title: c.Title, Kinds: kinds, Cases: c.Cases})
	}
	return out
}

// WriteCatalogue renders the catalogue as table, json or markdown (the
// last is docs/checks.md).
func WriteCatalogue(w io.Writer, cs []*checks.Check, format, lang string, titleOf func(id string) string) error {
	switch format {
	case "json":
		return writeJSON(w, Catalogue(cs))
	case "table", "":
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, locale.T(lang, "report.list_head"))
		for _, c := range cs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, sevLabel(c.Severity, lang), strings.Join(c.Cases, ","), c.Title.In(lang))
		}
		return tw.Flush()
	case "markdown", "md":
		return writeCatalogueMarkdown(w, cs, titleOf)
	}
	return fmt.Errorf("unknown output format %q (want table, json or markdown)", format)
}

func writeCatalogueMarkdown(w io.Writer, cs []*checks.Check, titleOf func(id string) string) error {
	var b strings.Builder
	b.WriteString("# kubegap checks\n\n")
	b.WriteString("<!-- Generated by `go run ./cmd/kubegap checks -o markdown > docs/checks.md`; do not edit. -->\n\n")
	fmt.Fprintf(&b, "%d checks. Each cites the incidents in the corpus that ground it; `kubegap explain ID` prints the cases' summaries.\n\n", len(cs))
	b.WriteString("| id | severity | title | reads | cases |\n|---|---|---|---|---|\n")
	for _, c := range cs {
		kinds := make([]string, len(c.Kinds))
		for i, k := range c.Kinds {
			kinds[i] = string(k)
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s |\n", c.ID, c.ID, c.Severity, c.Title.EN, strings.Join(kinds, ", "), strings.Join(c.Cases, ", "))
	}
	for _, c := range cs {
		fmt.Fprintf(&b, "\n## %s\n\n", c.ID)
		fmt.Fprintf(&b, "**%s** · %s\n\n", c.Title.EN, c.Title.KO)
		fmt.Fprintf(&b, "Severity: %s. Reads: %s.\n\n", c.Severity, strings.Join(kindStrings(c.Kinds), ", "))
		fmt.Fprintf(&b, "**What it looks at.** %s\n\n", c.LooksAt.EN)
		fmt.Fprintf(&b, "**%s.** %s\n\n", locale.T(locale.EN, "report.how_to_fix"), c.Remediation.EN)
		fmt.Fprintf(&b, "**What it cannot see.** %s\n\n", c.CannotSee.EN)
		b.WriteString("**Cases.**\n\n")
		for _, id := range c.Cases {
			fmt.Fprintf(&b, "- %s: %s\n", id, titleOf(id))
		}
		fmt.Fprintf(&b, "\n**%s.** %s\n", locale.T(locale.KO, "report.how_to_fix"), c.Remediation.KO)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func kindStrings(ks []inventory.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}
