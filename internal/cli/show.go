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
	label := func(vocab, id string) string { return c.Vocab.Label(vocab, id, lang) }
	labels := func(vocab string, ids []string) string {
		var ls []string
		for _, id := range ids {
			ls = append(ls, label(vocab, id))
		}
		if len(ls) == 0 {
			return locale.T(lang, "unknown")
		}
		return strings.Join(ls, ", ")
	}
	orUnknown := func(x incidentlib.Text) string {
		if s := x.In(lang); !incidentlib.IsUnknown(s) {
			return s
		}
		return locale.T(lang, "unknown")
	}
	dur := func(p *string) string {
		if p == nil {
			return locale.T(lang, "unknown")
		}
		return *p
	}
	fmt.Fprintf(w, "%s · %s · %s (%s) · %s\n", k.ID, k.Org, k.Date, locale.T(lang, "date_kind."+k.DateKind), labels(incidentlib.VocabDomain, k.Domain))
	fmt.Fprintf(w, "\n%s\n", k.Title.In(lang))
	if !k.Reviewed() {
		fmt.Fprintf(w, "[%s]\n", locale.T(lang, "not_reviewed"))
	}
	fmt.Fprintf(w, "\n%s\n\n", k.Summary.In(lang))
	severity := locale.T(lang, "unknown")
	if k.Severity != "unknown" {
		severity = label(incidentlib.VocabSeverity, k.Severity)
	}
	facts := [][2]string{
		{locale.T(lang, "severity"), severity},
		{locale.T(lang, "impact.scope"), orUnknown(k.Impact.Scope)},
		{locale.T(lang, "impact.users"), orUnknown(k.Impact.Users)},
		{locale.T(lang, "impact.region"), orUnknown(k.Impact.Region)},
		{locale.T(lang, "detected_after"), dur(k.Timeline.DetectedAfter)},
		{locale.T(lang, "resolved_after"), dur(k.Timeline.ResolvedAfter)},
	}
	for _, f := range facts {
		fmt.Fprintf(w, "  %s: %s\n", f[0], f[1])
	}
	section := func(title, body string) { fmt.Fprintf(w, "\n## %s\n%s\n", title, body) }
	list := func(items []string) string {
		if len(items) == 0 {
			return locale.T(lang, "unknown")
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
				fmt.Fprintf(&src, "\n  %s: %s", locale.T(lang, "archived"), *s.Archived)
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
				section(locale.T(lang, sec.Words), tl.String())
			}
		case incidentlib.LayoutProse:
			section(locale.T(lang, sec.Words), sec.Text(k).In(lang))
		case incidentlib.LayoutItems:
			section(locale.T(lang, sec.Words), list(sec.In(k, c.Vocab, lang)))
		case incidentlib.LayoutCause:
			// The cause: its terms, then this section's prose.
			var b strings.Builder
			for _, ct := range incidentlib.Sections {
				if ct.Layout == incidentlib.LayoutCauseTerm {
					fmt.Fprintf(&b, "%s: %s\n", locale.T(lang, ct.Words), labels(ct.Vocab, ct.Terms(k)))
				}
			}
			fmt.Fprintf(&b, "\n%s:\n%s", locale.T(lang, sec.Words), sec.Text(k).In(lang))
			section(locale.T(lang, "cause"), b.String())
		case incidentlib.LayoutSources:
			section(locale.T(lang, sec.Words), sources(k))
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
		section(locale.T(lang, "related"), rel.String())
	}
}

func indentRest(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
