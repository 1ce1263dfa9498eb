package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/view"
)

func showCmd(e *env) *cobra.Command {
	var baseURL string
	var asJSON bool
	var params func(string) (search.Parsed, error)
	cmd := &cobra.Command{
		Annotations: readsDir(),
		Use:         "show ID",
		Short:       "Print one case as a page, or as the JSON the API serves",
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := params("")
			if err != nil {
				return err
			}
			lang := p.Lang()
			c, err := e.loadCorpus()
			if err != nil {
				return err
			}
			k := c.Case(strings.ToUpper(strings.TrimSpace(args[0])))
			if k == nil {
				return incidentlib.Errorf(incidentlib.ErrNotFound, "no case %q; case ids look like IL-0049 (incidentlib search lists them)", args[0])
			}
			if asJSON {
				return writeJSON(e.stdout, view.WithURL(k, baseURL), true)
			}
			renderCase(e.stdout, c, k, lang)
			return nil
		},
	}
	params = tableFlags(cmd, search.RouteCase)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the case as JSON, exactly as the API serves it")
	cmd.Flags().StringVar(&baseURL, "base-url", incidentlib.DefaultBaseURL, "base URL that case URLs are derived from")
	return cmd
}

func writeJSON(w io.Writer, v any, indent bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}

// renderCase prints the case page: the seed page's sections in their order.
func renderCase(w io.Writer, c *corpus.Corpus, k *incidentlib.Case, lang string) {
	t := func(key string) string { return locale.T(lang, key) }
	label := func(vocab, id string) string { return c.Vocab.Label(vocab, id, lang) }
	labels := func(vocab string, ids []string) string {
		var ls []string
		for _, id := range ids {
			ls = append(ls, label(vocab, id))
		}
		if len(ls) == 0 {
			return t("unknown")
		}
		return strings.Join(ls, ", ")
	}
	orUnknown := func(x incidentlib.Text) string {
		if s := x.In(lang); !incidentlib.IsUnknown(s) {
			return s
		}
		return t("unknown")
	}
	dur := func(p *string) string {
		if p == nil {
			return t("unknown")
		}
		return *p
	}
	fmt.Fprintf(w, "%s · %s · %s (%s) · %s\n", k.ID, k.Org, k.Date, t("date_kind."+k.DateKind), labels(incidentlib.VocabDomain, k.Domain))
	fmt.Fprintf(w, "\n%s\n", k.Title.In(lang))
	if !k.Reviewed() {
		fmt.Fprintf(w, "[%s]\n", t("not_reviewed"))
	}
	fmt.Fprintf(w, "\n%s\n\n", k.Summary.In(lang))
	severity := t("unknown")
	if k.Severity != "unknown" {
		severity = label(incidentlib.VocabSeverity, k.Severity)
	}
	facts := [][2]string{
		{t("severity"), severity},
		{t("impact.scope"), orUnknown(k.Impact.Scope)},
		{t("impact.users"), orUnknown(k.Impact.Users)},
		{t("impact.region"), orUnknown(k.Impact.Region)},
		{t("detected_after"), dur(k.Timeline.DetectedAfter)},
		{t("resolved_after"), dur(k.Timeline.ResolvedAfter)},
	}
	for _, f := range facts {
		fmt.Fprintf(w, "  %s: %s\n", f[0], f[1])
	}
	section := func(title, body string) { fmt.Fprintf(w, "\n## %s\n%s\n", title, body) }
	list := func(items []string) string {
		if len(items) == 0 {
			return t("unknown")
		}
		var b strings.Builder
		for i, it := range items {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString("- " + indentRest(it, "  "))
		}
		return b.String()
	}
	sources := func(k *incidentlib.Case) string {
		var src strings.Builder
		for i, s := range k.Sources {
			if i > 0 {
				src.WriteByte('\n')
			}
			if s.Title != "" {
				fmt.Fprintf(&src, "- %s", s.Title)
				if s.Publisher != "" {
					fmt.Fprintf(&src, " · %s", s.Publisher)
				}
				fmt.Fprintf(&src, " (%s)\n  %s", label(incidentlib.VocabSourceKind, s.Kind), s.URL)
			} else {
				fmt.Fprintf(&src, "- %s (%s)", s.URL, label(incidentlib.VocabSourceKind, s.Kind))
			}
			if s.Archived != nil {
				fmt.Fprintf(&src, "\n  %s: %s", t("archived"), *s.Archived)
			}
		}
		return src.String()
	}
	// The sections with a place of their own, in the table's order.
	for i := range incidentlib.Sections {
		sec := &incidentlib.Sections[i]
		switch sec.Layout {
		case incidentlib.LayoutTimeline:
			if len(k.Timeline.Events) > 0 {
				var tl strings.Builder
				for i, ev := range k.Timeline.Events {
					if i > 0 {
						tl.WriteByte('\n')
					}
					fmt.Fprintf(&tl, "- %s  %s", ev.At, indentRest(ev.Text.In(lang), "  "))
				}
				section(t(sec.Words), tl.String())
			}
		case incidentlib.LayoutProse:
			section(t(sec.Words), sec.Text(k).In(lang))
		case incidentlib.LayoutItems:
			section(t(sec.Words), list(sec.In(k, c.Vocab, lang)))
		case incidentlib.LayoutCause:
			// The cause: its terms, then this section's prose.
			var b strings.Builder
			for _, ct := range incidentlib.Sections {
				if ct.Layout == incidentlib.LayoutCauseTerm {
					fmt.Fprintf(&b, "%s: %s\n", t(ct.Words), labels(ct.Vocab, ct.Terms(k)))
				}
			}
			fmt.Fprintf(&b, "\n%s:\n%s", t(sec.Words), sec.Text(k).In(lang))
			section(t("cause"), b.String())
		case incidentlib.LayoutSources:
			section(t(sec.Words), sources(k))
		}
	}
	if len(k.Related) > 0 {
		var rel strings.Builder
		for i, id := range k.Related {
			if i > 0 {
				rel.WriteByte('\n')
			}
			if r := c.Case(id); r != nil {
				fmt.Fprintf(&rel, "- %s %s (%s · %d)", r.ID, r.Title.In(lang), r.Org, r.Year())
			} else {
				fmt.Fprintf(&rel, "- %s", id)
			}
		}
		section(t("related"), rel.String())
	}
}

func indentRest(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
