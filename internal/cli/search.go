package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/view"
)

// openIndex reads the corpus and returns its public View: the command line
// shows what the public site shows.
func (e *env) openIndex() (*search.View, error) {
	c, err := e.loadCorpus()
	if err != nil {
		return nil, err
	}
	ix, err := search.New(c.Vocab, c.Cases)
	if err != nil {
		return nil, failure(err)
	}
	return ix.Public(), nil
}

func searchCmd(e *env) *cobra.Command {
	var asJSON bool
	var params func(string) (search.Parsed, error)
	cmd := &cobra.Command{
		Annotations: readsDir(),
		Use:         "search [flags] QUERY",
		Short:       "Search the cases in Korean, English or both, or with pasted evidence",
		Long: `Search the cases. QUERY may be Korean, English or both, a log line, a kernel
message, a metric name or an error; "quoted phrases" must match as phrases.
Filters narrow the results: values of one filter are ORed (a case matches with
any of them), different filters are ANDed.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			parsed, err := params(strings.Join(args, " "))
			if err != nil {
				return err
			}
			q := parsed.Query
			q.Lang = parsed.Lang()
			ix, err := e.openIndex()
			if err != nil {
				return err
			}
			res, err := ix.Search(q)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(e.stdout, view.NewSearchResponse(res, incidentlib.DefaultBaseURL), true)
			}
			printResults(e.stdout, ix, res, q.Lang)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"items": [...], "total": N, "facets": {...}}`)
	params = tableFlags(cmd, search.RouteSearch)
	return cmd
}

func printResults(w io.Writer, ix *search.View, res *search.Result, lang string) {
	for _, n := range res.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	if res.Total == 0 {
		fmt.Fprintln(w, locale.T(lang, "search.none"))
		return
	}
	from, to := res.Offset+1, res.Offset+len(res.Hits)
	fmt.Fprintf(w, "%s\n\n", locale.Tf(lang, "list.range", res.Total, from, to))
	for _, h := range res.Hits {
		fmt.Fprintf(w, "%s  %s · %s\n  %s\n  %s\n\n", h.Case.ID, h.Case.Org, h.Case.Date, h.Case.Title.In(lang),
			htmlToTerm(h.Snippet))
	}
	if comps := res.Facets[incidentlib.VocabComponents]; len(comps) > 0 {
		var top []string
		for i, c := range comps {
			if i == 3 {
				break
			}
			top = append(top, fmt.Sprintf("%s (%d)", c.Label, c.Count))
		}
		fmt.Fprintln(w, locale.Tf(lang, "search.top_components", res.Total, strings.Join(top, ", ")))
	}
}

// htmlToTerm turns a snippet's marks into brackets and unescapes it.
func htmlToTerm(s string) string {
	s = strings.NewReplacer("<mark>", "[", "</mark>", "]").Replace(s)
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&#34;", `"`, "&#39;", "'").Replace(s)
}

func similarCmd(e *env) *cobra.Command {
	var asJSON bool
	var params func(string) (search.Parsed, error)
	cmd := &cobra.Command{
		Annotations: readsDir(),
		Use:         "similar ID|TEXT",
		Short:       "The cases most similar to a case, or to free text, with the reason",
		Args:        cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := params("")
			if err != nil {
				return err
			}
			lang, limit, offset := p.Lang(), p.Limit(), p.Query.Offset
			ix, err := e.openIndex()
			if err != nil {
				return err
			}
			var sims []search.Similar
			arg := strings.TrimSpace(strings.Join(args, " "))
			if id := strings.ToUpper(arg); len(args) == 1 && ix.Case(id) != nil {
				sims, err = ix.SimilarTo(id, min(offset+limit, search.MaxLimit))
				if err != nil {
					return err
				}
			} else {
				sims = ix.SimilarText(arg, min(offset+limit, search.MaxLimit))
			}
			sims = sims[min(offset, len(sims)):]
			if asJSON {
				return writeJSON(e.stdout, map[string]any{"items": view.NewSimilarItems(sims)}, true)
			}
			for _, s := range sims {
				fmt.Fprintf(e.stdout, "%s  %.2f  %s\n  %s · %s\n  %s\n\n", s.Case.ID, s.Score, s.Reason.Label.In(lang), s.Case.Org, s.Case.Date, s.Case.Title.In(lang))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	params = tableFlags(cmd, search.RouteSimilar)
	return cmd
}

func topicCmd(e *env) *cobra.Command {
	var asJSON bool
	var params func(string) (search.Parsed, error)
	cmd := &cobra.Command{
		Annotations: readsDir(),
		Use:         "topic TERM",
		Short:       "A vocabulary term's cases, the terms that co-occur with it, and counts by year",
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := params("")
			if err != nil {
				return err
			}
			lang := p.Lang()
			ix, err := e.openIndex()
			if err != nil {
				return err
			}
			tp, err := ix.Topic(args[0], lang)
			if err != nil {
				return err
			}
			page := view.NewTopicResponse(tp).Page(p.Query.Offset, p.Limit())
			if asJSON {
				return writeJSON(e.stdout, page, true)
			}
			fmt.Fprintf(e.stdout, "%s (%s) — %s\n%s\n\n", tp.Term.Label.In(lang), tp.Vocab, tp.Term.ID, tp.Term.Description.In(lang))
			if len(page.Cases) > 0 {
				fmt.Fprintln(e.stdout, locale.Tf(lang, "list.range", page.Total, p.Query.Offset+1, p.Query.Offset+len(page.Cases)))
			}
			for _, c := range page.Cases {
				fmt.Fprintf(e.stdout, "%s  %s · %s  %s\n", c.ID, c.Org, c.Date, c.Title.In(lang))
			}
			fmt.Fprintln(e.stdout)
			for _, f := range search.FilterFields {
				if co := tp.CoOccurring[f]; len(co) > 0 {
					var parts []string
					for _, x := range co {
						parts = append(parts, fmt.Sprintf("%s (%d)", x.Label, x.Count))
					}
					fmt.Fprintf(e.stdout, "%s: %s\n", f, strings.Join(parts, ", "))
				}
			}
			var ys []string
			for _, y := range tp.ByYear {
				ys = append(ys, fmt.Sprintf("%d: %d", y.Year, y.Count))
			}
			fmt.Fprintf(e.stdout, "by year: %s\n", strings.Join(ys, ", "))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	params = tableFlags(cmd, search.RouteTopic)
	return cmd
}
