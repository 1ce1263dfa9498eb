package cli

import (
	"errors"
	"fmt"
	"io"
	"net/url"
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
		return nil, &ExitError{2, err}
	}
	return ix.Public(), nil
}

func searchCmd(e *env) *cobra.Command {
	var asJSON bool
	// The flags come from the search parameter table; their values are read
	// back as a query string through the same parser as the API's.
	values := map[string]*[]string{}
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
			v := url.Values{}
			if len(args) > 0 {
				v.Set("q", strings.Join(args, " "))
			}
			for name, vals := range values {
				if p := search.ParamNamed(name); p != nil && cmd.Flags().Changed(p.Flag) {
					v[name] = *vals
				}
			}
			parsed, probs := search.ParseParams(v, search.FaceCLI, 0)
			if len(probs) > 0 {
				p := search.ParamNamed(probs[0].Param)
				msg := probs[0].Error()
				if p != nil && p.Flag != "" {
					msg = "--" + p.Flag + ": " + msg
				}
				return &ExitError{2, errors.New(msg)}
			}
			q := parsed.Query
			if q.Lang == "" {
				q.Lang = "ko"
			}
			lang := q.Lang
			ix, err := e.openIndex()
			if err != nil {
				return err
			}
			res, err := ix.Search(q)
			if err != nil {
				return asUserError(err)
			}
			if asJSON {
				return writeJSON(e.stdout, view.NewSearchResponse(res, incidentlib.DefaultBaseURL), true)
			}
			printResults(e.stdout, ix, res, lang)
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, `print {"items": [...], "total": N, "facets": {...}}`)
	for _, p := range search.Params {
		if p.Faces&search.FaceCLI == 0 || p.Flag == "" {
			continue
		}
		v := new([]string)
		values[p.Name] = v
		usage := p.Doc
		switch p.Kind {
		case search.KindTerms, search.KindAllOf, search.KindOrgs:
			f.StringSliceVar(v, p.Flag, nil, usage+" (repeatable)")
		default:
			if p.Kind == search.KindInt && p.Max > 0 {
				usage = fmt.Sprintf("%s (%d to %d)", usage, p.Min, p.Max)
			}
			typ := "string"
			if p.Kind == search.KindInt {
				typ = "int"
			}
			f.Var(lastValue{v, typ}, p.Flag, usage)
			if p.Default != "" {
				f.Lookup(p.Flag).DefValue = p.Default
			}
		}
	}
	return cmd
}

// lastValue is a flag that keeps the last value given, as a one-element
// list: the form the search parameter parser reads.
type lastValue struct {
	v   *[]string
	typ string // what --help names the value
}

func (l lastValue) String() string {
	if l.v == nil || len(*l.v) == 0 {
		return ""
	}
	return (*l.v)[0]
}
func (l lastValue) Set(s string) error { *l.v = []string{s}; return nil }
func (l lastValue) Type() string       { return l.typ }

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

func asUserError(err error) error {
	if errors.Is(err, incidentlib.ErrInvalid) || errors.Is(err, incidentlib.ErrNotFound) {
		return &ExitError{2, err}
	}
	return &ExitError{2, err}
}

func similarCmd(e *env) *cobra.Command {
	var asJSON bool
	var lang string
	var limit int
	cmd := &cobra.Command{
		Annotations: readsDir(),
		Use:         "similar ID|TEXT",
		Short:       "The cases most similar to a case, or to free text, with the reason",
		Args:        cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ix, err := e.openIndex()
			if err != nil {
				return err
			}
			var sims []search.Similar
			arg := strings.TrimSpace(strings.Join(args, " "))
			if id := strings.ToUpper(arg); len(args) == 1 && ix.Case(id) != nil {
				sims, err = ix.SimilarTo(id, limit)
				if err != nil {
					return asUserError(err)
				}
			} else {
				sims = ix.SimilarText(arg, limit)
			}
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
	cmd.Flags().StringVar(&lang, "lang", "ko", "ko or en")
	cmd.Flags().IntVar(&limit, "limit", 10, "how many")
	return cmd
}

func topicCmd(e *env) *cobra.Command {
	var asJSON bool
	var lang string
	cmd := &cobra.Command{
		Annotations: readsDir(),
		Use:         "topic TERM",
		Short:       "A vocabulary term's cases, the terms that co-occur with it, and counts by year",
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ix, err := e.openIndex()
			if err != nil {
				return err
			}
			tp, err := ix.Topic(args[0], lang)
			if err != nil {
				return asUserError(err)
			}
			if asJSON {
				return writeJSON(e.stdout, view.NewTopicResponse(tp), true)
			}
			fmt.Fprintf(e.stdout, "%s (%s) — %s\n%s\n\n", tp.Term.Label.In(lang), tp.Vocab, tp.Term.ID, tp.Term.Description.In(lang))
			for _, c := range tp.Cases {
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
	cmd.Flags().StringVar(&lang, "lang", "ko", "ko or en")
	return cmd
}
