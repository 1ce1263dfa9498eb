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

	"github.com/incidentlib/incidentlib/internal/checkindex"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// Finding is one finding as the JSON report carries it.
type Finding struct {
	Check    string        `json:"check"`
	Severity string        `json:"severity"`
	Object   inventory.Ref `json:"object"`
	Message  string        `json:"message"`
	Cases    []string      `json:"cases"`
	// Evidence is, for each of Cases in order, the sentence of the case
	// that states the mechanism (quote, in English, and quote_ko).
	Evidence []checks.Citation `json:"evidence"`
	// File and Line are where the object is (offline scans; File is
	// "<stdin>" for standard input).
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Field is the path of the field at fault, when the check names one,
	// and FieldLine its line in File (or the line of the nearest enclosing
	// field the file writes); 0 when the file does not show it (charts'
	// rendered objects, standard input, live objects).
	Field     string `json:"field,omitempty"`
	FieldLine int    `json:"field_line,omitempty"`
	// FieldFile is the file of FieldLine when it is not File: a chart's
	// template whose define an include wrote the field from.
	FieldFile string `json:"field_file,omitempty"`
	// SourceTemplate is the chart template that produced the object.
	SourceTemplate string `json:"source_template,omitempty"`
	// NamespaceAssumed is set when the object named no namespace and was
	// given the default one (-n, else "default").
	NamespaceAssumed bool `json:"namespace_assumed,omitempty"`
}

// CheckCounts says how many checks ran: Evaluated and NotEvaluated add up
// to Selected, and Partial of the evaluated ones ran without some kinds.
type CheckCounts struct {
	Selected     int `json:"selected"`
	Evaluated    int `json:"evaluated"`
	Partial      int `json:"partial"`
	NotEvaluated int `json:"not_evaluated"`
}

// Partial is a check evaluated without some kinds it could not list, as
// the JSON report carries it.
type Partial struct {
	Check string `json:"check"`
	// Missing are the kinds it could not see.
	Missing []string `json:"missing"`
	Reason  string   `json:"reason"`
}

// Report is the JSON report.
type Report struct {
	Findings []Finding `json:"findings"`
	// Problems are the parts of the input that could not be read (or
	// should be fixed); the scan went on without them.
	Problems []manifest.Problem `json:"problems"`
	// Input says what was read.
	Input        kubegap.Input          `json:"input"`
	Checks       CheckCounts            `json:"checks"`
	NotEvaluated []kubegap.NotEvaluated `json:"not_evaluated"`
	// Partial are evaluated checks that could not see some kinds.
	Partial     []Partial `json:"partial"`
	APIRequests int       `json:"api_requests"`
}

// inputOf is what the result read; a live scan has no files, and every
// object it read was for the checks.
func inputOf(res *kubegap.Result) kubegap.Input {
	if res.Input != nil {
		return *res.Input
	}
	return kubegap.Input{Objects: res.Objects, Checked: res.Objects, SkippedFiles: []manifest.Skip{}, SkippedObjects: []kubegap.SkippedObjects{}}
}

// Build turns a result into the JSON report in lang.
func Build(res *kubegap.Result, lang string) Report {
	r := Report{Findings: []Finding{}, Problems: res.Problems, NotEvaluated: res.NotEvaluated, APIRequests: res.APIRequests, Input: inputOf(res),
		Checks:  CheckCounts{Selected: res.Checks, Evaluated: res.Evaluated(), Partial: len(res.Partial), NotEvaluated: len(res.NotEvaluated)},
		Partial: []Partial{}}
	if r.NotEvaluated == nil {
		r.NotEvaluated = []kubegap.NotEvaluated{}
	}
	for _, p := range res.Partial {
		r.Partial = append(r.Partial, Partial{Check: p.Check, Missing: p.Missing, Reason: p.Reason(lang)})
	}
	if r.Problems == nil {
		r.Problems = []manifest.Problem{}
	}
	for _, f := range res.Findings {
		src := res.Sources[f.Object]
		cases, evidence := f.Cases, f.Citations
		if cases == nil {
			cases = []string{}
		}
		if evidence == nil {
			evidence = []checks.Citation{}
		}
		r.Findings = append(r.Findings, Finding{
			Check: f.Check, Severity: f.Severity.String(), Object: f.Object,
			Message: f.Message.In(lang) + assumedNote(src, f.Object, lang), Cases: cases, Evidence: evidence,
			File: src.File, Line: src.Line, Field: f.Field, FieldLine: f.FieldLine, FieldFile: f.FieldFile,
			SourceTemplate: src.Template, NamespaceAssumed: src.NamespaceAssumed,
		})
	}
	return r
}

// assumedNote says that a finding's namespace was not in the manifest.
func assumedNote(src inventory.Source, ref inventory.Ref, lang string) string {
	if !src.NamespaceAssumed {
		return ""
	}
	return locale.Tf(lang, "report.ns_assumed", ref.Namespace)
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

// placeText is " (FILE:LINE)" for a finding on an object read from a
// file: the line of the field at fault when it is known, else the
// object's.
func placeText(res *kubegap.Result, f checks.Finding) string {
	src, ok := res.Sources[f.Object]
	if !ok || src.File == "" {
		return ""
	}
	file, line := src.File, src.Line
	if f.FieldLine > 0 {
		line = f.FieldLine
		if f.FieldFile != "" {
			file = f.FieldFile
		}
	}
	s := " (" + manifest.Place{File: file, Line: line}.String()
	if src.Template != "" {
		s += ", " + src.Template
	}
	return s + ")"
}

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
		locale.Nf(lang, "report.evaluated", res.Checks, res.Evaluated(), res.Checks, len(res.NotEvaluated)) + " · "
	if len(res.Partial) > 0 {
		s += locale.N(lang, "report.partial_count", len(res.Partial)) + " · "
	}
	s += locale.N(lang, "report.input_problems", len(res.Problems)) + " · " + locale.N(lang, "report.api_requests", res.APIRequests)
	if res.Suppressed > 0 {
		s += " · " + locale.N(lang, "report.suppressed", res.Suppressed)
	}
	return inputLine(res, lang) + "\n" + s
}

// inputLine says what was read and what was skipped.
func inputLine(res *kubegap.Result, lang string) string {
	in := inputOf(res)
	skippedObjs := 0
	var why []string
	for _, so := range in.SkippedObjects {
		skippedObjs += so.Count
		why = append(why, fmt.Sprintf("%d %s", so.Count, so.Reason))
	}
	if res.Input == nil {
		return locale.N(lang, "report.read_cluster", in.Objects)
	}
	s := locale.Tf(lang, "report.read", locale.N(lang, "report.files", in.Files), locale.N(lang, "report.objects", in.Objects), in.Checked)
	if len(in.SkippedFiles) > 0 {
		s += locale.Tf(lang, "report.skipped", locale.N(lang, "report.files", len(in.SkippedFiles)), kubegap.SkipReasons(in.SkippedFiles))
	}
	if skippedObjs > 0 {
		s += locale.Tf(lang, "report.skipped", locale.N(lang, "report.objects", skippedObjs), strings.Join(why, "; "))
	}
	return s
}

func problemLine(p manifest.Problem, lang string) string {
	label := locale.T(lang, "report.problem")
	if p.Level == manifest.LevelWarning {
		label = locale.T(lang, "report.warning")
	}
	s := label + ": " + p.String()
	return s
}

func writeTable(w io.Writer, res *kubegap.Result, lang string) error {
	if len(res.Findings) > 0 {
		head := []string{locale.T(lang, "report.col.severity"), locale.T(lang, "report.col.check"), locale.T(lang, "report.col.object"), locale.T(lang, "report.col.cases")}
		rows := [][]string{head}
		for _, f := range res.Findings {
			rows = append(rows, []string{sevLabel(f.Severity, lang), f.Check, objectText(f.Object) + placeText(res, f), strings.Join(f.Cases, ",")})
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
				f := res.Findings[i-1]
				fmt.Fprintf(w, "    %s%s\n", f.Message.In(lang), assumedNote(res.Sources[f.Object], f.Object, lang))
			}
		}
	}
	for _, n := range res.NotEvaluated {
		fmt.Fprintf(w, "%s %s: %s\n", locale.T(lang, "report.not_evaluated"), n.Check, n.Reason)
	}
	for _, p := range res.Partial {
		fmt.Fprintf(w, "%s %s: %s\n", locale.T(lang, "report.partial"), p.Check, p.Reason(lang))
	}
	for _, p := range res.Problems {
		fmt.Fprintln(w, problemLine(p, lang))
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
			fmt.Fprintf(&b, "- **%s** `%s` %s%s: %s%s (%s)\n", sevLabel(f.Severity, lang), f.Check, objectText(f.Object), placeText(res, f), f.Message.In(lang), assumedNote(res.Sources[f.Object], f.Object, lang), strings.Join(f.Cases, ", "))
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
	if len(res.Partial) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", locale.T(lang, "report.partial_heading"))
		for _, p := range res.Partial {
			fmt.Fprintf(&b, "- `%s`: %s\n", p.Check, p.Reason(lang))
		}
	}
	if len(res.Problems) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", locale.T(lang, "report.problems_heading"))
		for _, p := range res.Problems {
			fmt.Fprintf(&b, "- %s\n", problemLine(p, lang))
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
	// Kinds are every kind the check reads; AnyOf and Optional say which
	// of them it can do without (see checks.Check).
	Kinds    []string   `json:"kinds"`
	AnyOf    [][]string `json:"any_of,omitempty"`
	Optional []string   `json:"optional,omitempty"`
	Cases    []string   `json:"cases"`
	// Evidence is the quote of each case that states the mechanism.
	Evidence []checks.Citation `json:"evidence"`
}

// Catalogue lists cs.
func Catalogue(cs []*checks.Check) []CatalogueEntry {
	out := []CatalogueEntry{}
	for _, c := range cs {
		e := CatalogueEntry{ID: c.ID, Severity: c.Severity.String(), Title: c.Title, Kinds: kindStrings(c.Reads()), Cases: []string{}, Evidence: []checks.Citation{}}
		e.Cases = append(e.Cases, c.Cases...)
		e.Evidence = append(e.Evidence, c.Citations...)
		for _, g := range c.AnyOf {
			e.AnyOf = append(e.AnyOf, kindStrings(g))
		}
		if len(c.Optional) > 0 {
			e.Optional = kindStrings(c.Optional)
		}
		out = append(out, e)
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
	fmt.Fprintf(&b, "%d checks. Each cites the incidents in the corpus that ground it, with the sentence of each case that states the mechanism (English, then the case's Korean); `kubegap explain ID` prints the cases' summaries.\n\n", len(cs))
	b.WriteString("| id | severity | title | reads | cases |\n|---|---|---|---|---|\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s |\n", c.ID, c.ID, c.Severity, c.Title.EN, strings.Join(kindStrings(c.Reads()), ", "), casesCell(c))
	}
	for _, c := range cs {
		fmt.Fprintf(&b, "\n## %s\n\n", c.ID)
		fmt.Fprintf(&b, "**%s** · %s\n\n", c.Title.EN, c.Title.KO)
		fmt.Fprintf(&b, "Severity: %s. Reads: %s.\n\n", c.Severity, readsText(c))
		fmt.Fprintf(&b, "**What it looks at.** %s\n\n", c.LooksAt.EN)
		fmt.Fprintf(&b, "**%s.** %s\n\n", locale.T(locale.EN, "report.how_to_fix"), c.Remediation.EN)
		fmt.Fprintf(&b, "**What it cannot see.** %s\n\n", c.CannotSee.EN)
		b.WriteString("**Cases.**\n\n")
		if len(c.Citations) == 0 {
			b.WriteString("- " + noCaseEN + "\n")
		}
		for _, ct := range c.Citations {
			fmt.Fprintf(&b, "- %s: %s\n  > %s\n", ct.Case, titleOf(ct.Case), mdQuote(ct.Quote))
			if ct.QuoteKO != "" {
				fmt.Fprintf(&b, "  >\n  > %s\n", mdQuote(ct.QuoteKO))
			}
		}
		fmt.Fprintf(&b, "\n**%s.** %s\n", locale.T(locale.KO, "report.how_to_fix"), c.Remediation.KO)
	}
	index, err := checkindex.Format(IndexOf(cs))
	if err != nil {
		return err
	}
	fmt.Fprintf(&b, "\n%s\n%s\n%s\n", checkindex.Open, index, checkindex.Close)
	_, err = io.WriteString(w, b.String())
	return err
}

// IndexOf is the index of cs that the catalogue's closing comment holds
// for incidentlib serve: each check's id, severity, title and cases.
func IndexOf(cs []*checks.Check) []checkindex.Check {
	out := make([]checkindex.Check, 0, len(cs))
	for _, c := range cs {
		out = append(out, checkindex.Check{ID: c.ID, Severity: c.Severity.String(), Title: c.Title, Cases: c.Cases})
	}
	return out
}

// noCaseEN is what the catalogue says of a check that no case grounds.
const noCaseEN = "None: no case in the corpus states this mechanism yet."

// casesCell is the cases column of docs/checks.md.
func casesCell(c *checks.Check) string {
	if len(c.Cases) == 0 {
		return "none"
	}
	return strings.Join(c.Cases, ", ")
}

// mdQuote puts a quote on one Markdown line, with its pipes and angle
// brackets escaped so that it reads as the case wrote it.
func mdQuote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}

// readsText says which kinds c needs and which it can do without, for
// docs/checks.md: "Service (needed); at least one of Deployment,
// StatefulSet; Ingress (can do without)".
func readsText(c *checks.Check) string {
	var parts []string
	if len(c.Kinds) > 0 {
		parts = append(parts, strings.Join(kindStrings(c.Kinds), ", ")+" (needed)")
	}
	for _, g := range c.AnyOf {
		parts = append(parts, "at least one of "+strings.Join(kindStrings(g), ", "))
	}
	if len(c.Optional) > 0 {
		parts = append(parts, strings.Join(kindStrings(c.Optional), ", ")+" (can do without)")
	}
	return strings.Join(parts, "; ")
}

func kindStrings(ks []inventory.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}
