package web

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
)

// filterParams are the list's filters, from the search parameter table:
// the singular names are what the site writes (/cases?component=coredns);
// the table's names (the API's) are accepted too, so a URL copied from
// either works.
var filterParams = func() []struct{ param, field string } {
	var out []struct{ param, field string }
	for _, p := range search.Params {
		if p.Faces&search.FacePages == 0 || (p.Kind != search.KindTerms && p.Kind != search.KindOrgs) {
			continue
		}
		name := p.Name
		if len(p.Aliases) > 0 {
			name = p.Aliases[0]
		}
		out = append(out, struct{ param, field string }{name, p.Field})
	}
	return out
}()

// paramFor is the list parameter that filters on vocabulary field, or "".
func paramFor(field string) string {
	for _, f := range filterParams {
		if f.field == field {
			return f.param
		}
	}
	return ""
}

// PageSize is how many cases a list page shows.
const PageSize = 20

// listState is the list page's request, normalised: what links to other
// pages of the list are built from.
type listState struct {
	lang    string
	q       string
	filters []activeFilter // vocabulary and organisation filters
	// The year range and the review filter: filters too, kept by every
	// link of the list like the others (0 and "" when absent).
	yearFrom, yearTo int
	reviewed         string // "true", "false" or ""
	sort             string // "" means the default for the query
	page             int
}

type activeFilter struct {
	Param, Field, Term, Label string
	Remove                    string // the list without this filter
}

// url builds the list address for st: one canonical form for one list,
// whatever order or spelling the request used. url.Values.Encode orders
// the parameters by name; a parameter's values are ordered here, and
// spaces are written as "+", so two links to one list are one URL.
func (st listState) url() string {
	v := url.Values{}
	if st.q != "" {
		v.Set("q", st.q)
	}
	for _, f := range st.filters {
		v.Add(f.Param, f.Term)
	}
	for _, vals := range v {
		slices.Sort(vals)
	}
	if st.yearFrom != 0 {
		v.Set("year_from", strconv.Itoa(st.yearFrom))
	}
	if st.yearTo != 0 {
		v.Set("year_to", strconv.Itoa(st.yearTo))
	}
	if st.reviewed != "" {
		v.Set("reviewed", st.reviewed)
	}
	if st.sort != "" {
		v.Set("sort", st.sort)
	}
	if st.page > 1 {
		v.Set("page", strconv.Itoa(st.page))
	}
	u := langPrefix[st.lang] + "/cases"
	if enc := v.Encode(); enc != "" {
		u += "?" + enc
	}
	return u
}

// listURL is the canonical address of the list for the query q alone in
// lang: what the other pages link a search with.
func listURL(lang, q string) string {
	return listState{lang: lang, q: q}.url()
}

// chips are the filters in force as the page shows them: each with its
// words and the link that removes it alone, the years and the review
// filter included.
func (st listState) chips() []chip {
	var out []chip
	for i, f := range st.filters {
		rest := st
		rest.page = 1
		rest.filters = slices.Delete(slices.Clone(st.filters), i, i+1)
		out = append(out, chip{Field: locale.T(st.lang, "facet."+f.Field), Value: f.Label, Remove: rest.url()})
	}
	if st.yearFrom != 0 || st.yearTo != 0 {
		// The range is one chip: removing half of it leaves a filter the
		// reader did not ask for.
		rest := st
		rest.page, rest.yearFrom, rest.yearTo = 1, 0, 0
		out = append(out, chip{Field: locale.T(st.lang, "list.years"), Value: yearRange(st.lang, st.yearFrom, st.yearTo), Remove: rest.url()})
	}
	if st.reviewed != "" {
		rest := st
		rest.page, rest.reviewed = 1, ""
		out = append(out, chip{Field: locale.T(st.lang, "list.review"), Value: locale.T(st.lang, "list.reviewed_"+st.reviewed), Remove: rest.url()})
	}
	return out
}

// chip is one filter in force, as the page shows it.
type chip struct {
	Field, Value string
	Remove       string // the list without this filter
}

// yearRange words a year filter: "2024–2025", "2024년부터", "to 2023".
func yearRange(lang string, from, to int) string {
	switch {
	case from != 0 && to != 0 && from == to:
		return locale.Tf(lang, "list.year_in", from)
	case from != 0 && to != 0:
		return locale.Tf(lang, "list.year_range", from, to)
	case from != 0:
		return locale.Tf(lang, "list.year_from", from)
	}
	return locale.Tf(lang, "list.year_to", to)
}

// hidden are the parameters a new search or sort from the list's form
// keeps: every filter in force.
func (st listState) hidden() []hiddenParam {
	var out []hiddenParam
	for _, f := range st.filters {
		out = append(out, hiddenParam{f.Param, f.Term})
	}
	if st.yearFrom != 0 {
		out = append(out, hiddenParam{"year_from", strconv.Itoa(st.yearFrom)})
	}
	if st.yearTo != 0 {
		out = append(out, hiddenParam{"year_to", strconv.Itoa(st.yearTo)})
	}
	if st.reviewed != "" {
		out = append(out, hiddenParam{"reviewed", st.reviewed})
	}
	return out
}

type hiddenParam struct{ Name, Value string }

// filterWords names the filters in force for the page's title: "분야: DNS
// · 원인: 설정 변경 · 연도: 2024년부터".
func (st listState) filterWords() string {
	var parts []string
	for _, c := range st.chips() {
		parts = append(parts, c.Field+": "+c.Value)
	}
	return strings.Join(parts, " · ")
}

// filterCount is how many filters are in force.
func (st listState) filterCount() int {
	n := len(st.filters)
	if st.yearFrom != 0 || st.yearTo != 0 {
		n++
	}
	if st.reviewed != "" {
		n++
	}
	return n
}

type facetGroup struct {
	Field string
	Param string
	Items []facetItem
	More  []facetItem
}

type facetItem struct {
	Label  string
	Count  int
	URL    string
	Active bool
	// NoFollow marks a link that only adds a filter to a list that has
	// one (or a query) already: crawlers index each filter's own list and
	// leave the combinations, which multiply without end.
	NoFollow bool
}

type pageLink struct {
	N       int
	URL     string
	Current bool
	Gap     bool // an ellipsis between page numbers
}

type listData struct {
	Query         string
	Sort          string
	Problems      []string
	Filters       []chip
	Hidden        []hiddenParam // the filters a new search or sort keeps
	ClearURL      string
	FirstURL      string // the first page of this list
	Total         int
	From, To      int
	Hits          []search.Hit
	Facets        []facetGroup
	TopComponents []search.FacetCount
	// A long query (pasted text): the page says how many of the results
	// hold at least half of its terms (Close), or that none does and the
	// results are the nearest.
	Long           bool
	Cut            int  // the bytes of the query read, when it was cut
	Weak           bool // the best hit is weak by its confidence (search.Result.Weak)
	Close, Terms   int
	Described      int // the cases the facets and the top line count
	Pages          []pageLink
	PrevURL        string
	NextURL        string
	SortOptions    []sortOption
	HasFacetFilter bool
}

type sortOption struct {
	Value, Label string
	Selected     bool
}

// caseList is the search and list page. Bad input never fails the page:
// each bad parameter is named in a message and left out, and the page
// answers 400 so that crawlers and scripts see the problem too.
func (s *Site) caseList(w http.ResponseWriter, r *http.Request, lang string) error {
	parsed, bad := search.ParseParams(r.URL.Query(), search.FacePages, PageSize)
	q := parsed.Query
	q.Lang = lang
	st := listState{lang: lang, q: q.Text, page: parsed.Page, sort: q.Sort, yearFrom: q.YearFrom, yearTo: q.YearTo}
	if q.Reviewed != nil {
		st.reviewed = strconv.FormatBool(*q.Reviewed)
	}
	var problems []string
	for _, b := range bad {
		// Links from elsewhere carry their own parameters (utm_…).
		if b.Kind != search.ProblemUnknown {
			problems = append(problems, problemWords(lang, b))
		}
	}
	orgs := map[string]string{}
	for _, o := range s.ix.Orgs() {
		orgs[o.Slug] = o.Name
	}
	q.Filters = map[string][]string{}
	for _, fv := range parsed.Values {
		var label string
		if fv.Field == search.OrgFilter {
			name, ok := orgs[fv.Value]
			if !ok {
				problems = append(problems, locale.Tf(lang, "list.bad_org", echo(fv.Value)))
				continue
			}
			label = name
		} else {
			if !s.vocab.Has(fv.Field, fv.Value) {
				problems = append(problems, locale.Tf(lang, "list.bad_term", echo(fv.Value), locale.T(lang, "facet."+fv.Field)))
				continue
			}
			label = s.vocab.Label(fv.Field, fv.Value, lang)
		}
		q.Filters[fv.Field] = append(q.Filters[fv.Field], fv.Value)
		st.filters = append(st.filters, activeFilter{Param: paramFor(fv.Field), Field: fv.Field, Term: fv.Value, Label: label})
	}
	res, err := s.ix.Search(q)
	if err != nil {
		if !errors.Is(err, incidentlib.ErrInvalid) {
			return err
		}
		// The checks above should catch everything the index refuses; if
		// they miss a case, still answer with a page and the index's words.
		problems = append(problems, err.Error())
		if res, err = s.ix.Search(search.Query{Lang: lang, Limit: PageSize}); err != nil {
			return err
		}
	}
	d := s.listData(st, res, capProblems(lang, problems))
	title := locale.T(lang, "list.title")
	if st.q != "" {
		title = locale.Tf(lang, "list.title_q", queryTitle(st.q))
	}
	// A filtered list is titled by its filters, so that two lists never
	// share a title: "사례 목록 — 분야: DNS · 연도: 2024년부터".
	if fw := st.filterWords(); fw != "" {
		title += " — " + fw
	}
	if st.page > 1 {
		title += " — " + locale.Tf(lang, "list.title_page", st.page)
	}
	p := &pageData{Title: title, Description: locale.T(lang, "list.description"), Data: d}
	// Result pages are endless in number; the sitemap lists what to index.
	p.NoIndex = st.q != "" || st.filterCount() > 1 || st.page > 1
	if len(problems) > 0 {
		w.Header().Set("Cache-Control", "no-store")
		return s.renderCode(w, r, lang, http.StatusBadRequest, "cases", p)
	}
	return s.render(w, r, lang, "cases", p)
}

func (s *Site) listData(st listState, res *search.Result, problems []string) listData {
	d := listData{Query: st.q, Sort: st.sort, Problems: problems, Total: res.Total, Hits: res.Hits, Long: res.Long, Close: res.Close, Terms: res.Terms}
	if res.Cut {
		d.Cut = search.MaxQueryBytes
	}
	d.Weak = res.Weak
	d.Described = res.Total
	d.activeFilters(st)
	if res.Total > 0 && len(res.Hits) > 0 {
		d.From = res.Offset + 1
		d.To = res.Offset + len(res.Hits)
	}
	d.facets(st, res)
	top := res.Facets[incidentlib.VocabComponents]
	d.TopComponents = top[:min(3, len(top))]
	first := st
	first.page = 1
	d.FirstURL = first.url()
	d.paging(st, res.Total)
	def := search.SortNewest
	if st.q != "" {
		def = search.SortRelevance
	}
	for _, o := range []string{search.SortRelevance, search.SortNewest, search.SortOldest} {
		sel := st.sort == o || (st.sort == "" && o == def)
		d.SortOptions = append(d.SortOptions, sortOption{o, locale.T(st.lang, "sort."+o), sel})
	}
	return d
}

// activeFilters lists the filters in force, each with the link that
// removes it, and the link that clears them all.
func (d *listData) activeFilters(st listState) {
	for _, f := range st.filters {
		if f.Field != search.OrgFilter {
			d.HasFacetFilter = true
		}
	}
	d.Filters = st.chips()
	d.Hidden = st.hidden()
	if len(d.Filters) > 0 {
		clear := st
		clear.filters, clear.page, clear.yearFrom, clear.yearTo, clear.reviewed = nil, 1, 0, 0, ""
		d.ClearURL = clear.url()
	}
}

// facets are the counts by term of each filter field, each term with the
// link that adds it (those in force are shown above the results instead).
func (d *listData) facets(st listState, res *search.Result) {
	active := map[string]bool{}
	for _, f := range st.filters {
		active[f.Field+"\x00"+f.Term] = true
	}
	for _, fp := range filterParams {
		g := facetGroup{Field: fp.field, Param: fp.param}
		for _, fc := range res.Facets[fp.field] {
			if fc.Term == "unknown" && fp.field == incidentlib.VocabSeverity {
				continue
			}
			it := facetItem{Label: fc.Label, Count: fc.Count, Active: active[fp.field+"\x00"+fc.Term], NoFollow: st.q != "" || st.filterCount() > 0}
			if it.Active {
				continue // shown, with its remove link, above the results
			}
			add := st
			add.page = 1
			add.filters = append(append([]activeFilter{}, st.filters...), activeFilter{Param: fp.param, Term: fc.Term})
			it.URL = add.url()
			// Ten links a field keep the page light; every term is one
			// click away on the vocabulary page.
			switch {
			case len(g.Items) < 6:
				g.Items = append(g.Items, it)
			case len(g.More) < 10:
				g.More = append(g.More, it)
			}
		}
		if len(g.Items) > 0 {
			d.Facets = append(d.Facets, g)
		}
	}
}

// paging links the first and last pages and two either side of the
// current one, with the previous and next.
func (d *listData) paging(st listState, total int) {
	pages := (total + PageSize - 1) / PageSize
	link := func(n int) string {
		o := st
		o.page = n
		return o.url()
	}
	last := 0
	for n := 1; n <= pages; n++ {
		if n != 1 && n != pages && (n < st.page-2 || n > st.page+2) {
			continue
		}
		if last != 0 && n > last+1 {
			d.Pages = append(d.Pages, pageLink{Gap: true})
		}
		d.Pages = append(d.Pages, pageLink{N: n, URL: link(n), Current: n == st.page})
		last = n
	}
	if pages <= 1 {
		d.Pages = nil
	}
	if st.page > 1 && st.page <= pages {
		d.PrevURL = link(st.page - 1)
	}
	if st.page < pages {
		d.NextURL = link(st.page + 1)
	}
}

// problemWords says, in the catalogue's words in lang, what was wrong with
// a list parameter: by the parameter where the page has words of its own
// for it (page, the years), else by the problem's kind; never in the
// parser's own (English) message.
func problemWords(lang string, b search.ParamProblem) string {
	v := echo(b.Value)
	switch {
	case b.Kind == search.ProblemUTF8:
		return locale.Tf(lang, "list.bad_utf8", b.Param)
	case b.Param == "page":
		return locale.Tf(lang, "list.bad_page", v)
	case b.Kind == search.ProblemYearOrder && len(b.Numbers) == 2:
		return locale.Tf(lang, "list.bad_year_order", b.Numbers[0], b.Numbers[1])
	case b.Param == "year_from" || b.Param == "year_to":
		return locale.Tf(lang, "list.bad_year", b.Param, v)
	case b.Kind == search.ProblemNotBool:
		return locale.Tf(lang, "list.bad_bool", b.Param, v)
	case b.Kind == search.ProblemEnum && b.Param == "sort":
		return locale.Tf(lang, "list.bad_sort", v, strings.Join(search.ParamNamed("sort").Enum, ", "))
	}
	return locale.Tf(lang, "list.bad_value", b.Param, v)
}

// Bounds on what a list page echoes of a bad request: a value is cut to
// echoRunes, and at most maxProblems messages are shown, so that a huge query
// string cannot make a huge page.
const (
	echoRunes   = 40
	maxProblems = 5
)

// queryTitle is the query as a page title: a pasted log can hold many
// lines and 2,000 bytes, and a title shows one short line, so its white
// space is folded and it is cut to titleRunes.
func queryTitle(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if r := []rune(q); len(r) > titleRunes {
		return string(r[:titleRunes]) + "…"
	}
	return q
}

const titleRunes = 60

// echo returns v cut for quoting back to the reader.
func echo(v string) string {
	if utf8.RuneCountInString(v) <= echoRunes {
		return v
	}
	r := []rune(v)
	return string(r[:echoRunes]) + "…"
}

// capProblems keeps the first maxProblems messages and says how many more
// there were.
func capProblems(lang string, problems []string) []string {
	if len(problems) <= maxProblems {
		return problems
	}
	return append(problems[:maxProblems:maxProblems], locale.Tf(lang, "list.more_problems", len(problems)-maxProblems))
}
