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

// renderCase prints the case page as text: the case's layout (view.CaseLayout)
// with the related cases it lists itself.
func renderCase(w io.Writer, c *corpus.Corpus, k *incidentlib.Case, lang string) {
	p := view.CaseLayout(k, c.Vocab, lang, c.Case, view.CuratedRelated(k, lang, c.Case))
	printHead(w, &p)
	for i := range p.Blocks {
		b := &p.Blocks[i]
		fmt.Fprintf(w, "\n## %s\n%s\n", b.Words, blockText(b, lang))
	}
}

// printHead prints the head, the summary and the facts.
func printHead(w io.Writer, p *view.CasePage) {
	h := &p.Head
	fmt.Fprintf(w, "%s · %s · %s (%s) · %s\n", h.ID, h.Org, h.Date, h.DateKind, h.Domain.Joined)
	fmt.Fprintf(w, "\n%s\n", h.Title)
	if !h.Reviewed {
		fmt.Fprintf(w, "[%s]\n", locale.T(p.Lang, "not_reviewed"))
	}
	fmt.Fprintf(w, "\n%s\n\n", h.Summary)
	for _, f := range p.Facts {
		fmt.Fprintf(w, "  %s: %s\n", f.Words, f.Value)
	}
}

// blockText is the text under a block's heading.
func blockText(b *view.Block, lang string) string {
	var s strings.Builder
	switch b.Layout {
	case incidentlib.LayoutTimeline:
		for i, ev := range b.Events {
			if i > 0 {
				s.WriteByte('\n')
			}
			fmt.Fprintf(&s, "- %s  %s", ev.At, indentRest(ev.Text, "  "))
		}
	case incidentlib.LayoutProse:
		if b.Chips != nil && len(b.Chips.Labels) > 0 {
			fmt.Fprintf(&s, "[%s]\n\n", strings.Join(b.Chips.Labels, "] ["))
		}
		s.WriteString(b.Prose)
	case incidentlib.LayoutCause:
		writeCause(&s, b, lang)
	case incidentlib.LayoutItems:
		writeList(&s, b.Items, b.None)
	case incidentlib.LayoutSources:
		writeSources(&s, b, lang)
	case view.LayoutRelated:
		var items []string
		for _, r := range b.Related {
			if r.Found {
				items = append(items, fmt.Sprintf("%s %s (%s · %d)", r.ID, r.Title, r.Org, r.Year))
			} else {
				items = append(items, r.ID)
			}
		}
		writeList(&s, items, b.None)
	}
	return s.String()
}

// writeList writes items as a list, or none when there are none.
func writeList(s *strings.Builder, items []string, none string) {
	if len(items) == 0 {
		s.WriteString(none)
	}
	for i, it := range items {
		if i > 0 {
			s.WriteByte('\n')
		}
		s.WriteString("- " + indentRest(it, "  "))
	}
}

// writeCause writes the cause's terms, then its prose under its own words.
func writeCause(s *strings.Builder, b *view.Block, lang string) {
	for _, t := range b.Terms {
		fmt.Fprintf(s, "%s: %s\n", t.Words, t.Joined)
	}
	fmt.Fprintf(s, "\n%s:\n%s", b.TextWords, b.Prose)
	if r := b.Recurrence; r != nil {
		fmt.Fprintf(s, "\n\n%s %s %s", locale.T(lang, "case.recurrence_of"), r.ID, r.Title)
	}
}

// writeSources writes the sources, each with its address and any archived
// copy, then the further reading.
func writeSources(s *strings.Builder, b *view.Block, lang string) {
	for i, src := range b.Sources {
		if i > 0 {
			s.WriteByte('\n')
		}
		if src.Title != "" {
			fmt.Fprintf(s, "- %s", src.Title)
			if src.Publisher != "" {
				fmt.Fprintf(s, " · %s", src.Publisher)
			}
			fmt.Fprintf(s, " (%s)\n  %s", src.Kind, src.URL)
		} else {
			fmt.Fprintf(s, "- %s (%s)", src.URL, src.Kind)
		}
		if src.Archived != "" {
			fmt.Fprintf(s, "\n  %s: %s", locale.T(lang, "archived"), src.Archived)
		}
	}
	if len(b.Docs) > 0 {
		fmt.Fprintf(s, "\n\n%s:", locale.T(lang, "case.docs"))
		for _, d := range b.Docs {
			fmt.Fprintf(s, "\n- %s", d)
		}
	}
}

func indentRest(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
