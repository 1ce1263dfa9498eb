package search

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/incidentlib/incidentlib"
)

// Limits on what one search asks for.
const (
	DefaultLimit  = 20
	MaxLimit      = 100
	MaxQueryBytes = 2000 // longer queries are cut; pasted evidence rarely needs more
	MaxQueryTerms = 64
	MaxOffset     = 10000
)

// Sort orders.
const (
	SortRelevance = "relevance"
	SortNewest    = "date"
	SortOldest    = "-date"
)

// Query is one search: free text and filters.
type Query struct {
	Text string
	// Lang is the reader's language for snippets and labels: ko or en.
	Lang string
	// Filters maps a field of FilterFields, or "org", to the terms every
	// result must carry.
	Filters          map[string][]string
	YearFrom, YearTo int
	Reviewed         *bool
	Sort             string
	Offset, Limit    int
	// IncludePrivate lets private cases into the results (write token only).
	IncludePrivate bool
	// NoFacets skips facet counting when the caller does not show them.
	NoFacets bool
}

// Hit is one result.
type Hit struct {
	Case    *incidentlib.Case
	Score   float64
	Snippet string // HTML: escaped text with matches in <mark>
}

// FacetCount is how many results carry one term.
type FacetCount struct {
	Term  string `json:"term"`
	Label string `json:"label"`
	Count int    `json:"count"`
}

// Result is a page of hits with the total and the facet counts over the
// whole result set.
type Result struct {
	Hits   []Hit
	Total  int
	Offset int
	Limit  int
	Facets map[string][]FacetCount
	// Notes says how the query was adjusted: a limit clamped, a query cut.
	Notes []string
}

// clean makes any input safe to analyse: valid UTF-8, no control
// characters, bounded length.
func clean(s string, notes *[]string) string {
	s = strings.ToValidUTF8(s, " ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if len(s) > MaxQueryBytes {
		cut := MaxQueryBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
		*notes = append(*notes, fmt.Sprintf("the query was cut to its first %d bytes", MaxQueryBytes))
	}
	return strings.TrimSpace(s)
}

// parsedQuery is the text split into quoted phrases and loose words.
type parsedQuery struct {
	phrases []string
	words   string
}

// parse splits text into "quoted phrases" and the rest. An unbalanced quote
// is ignored rather than treated as an error.
func parse(text string) parsedQuery {
	var pq parsedQuery
	var rest strings.Builder
	for {
		i := strings.IndexAny(text, "\"“”")
		if i < 0 {
			rest.WriteString(text)
			break
		}
		_, w := utf8.DecodeRuneInString(text[i:])
		j := strings.IndexAny(text[i+w:], "\"“”")
		if j < 0 {
			rest.WriteString(text[:i])
			rest.WriteByte(' ')
			rest.WriteString(text[i+w:])
			break
		}
		rest.WriteString(text[:i])
		rest.WriteByte(' ')
		if p := strings.TrimSpace(text[i+w : i+w+j]); p != "" {
			pq.phrases = append(pq.phrases, p)
		}
		_, w2 := utf8.DecodeRuneInString(text[i+w+j:])
		text = text[i+w+j+w2:]
	}
	pq.words = strings.TrimSpace(rest.String())
	return pq
}

// analyze returns the distinct analysed terms of s, in order.
func (ix *Index) analyze(s string) []string {
	a := ix.bi.Mapping().AnalyzerNamed(analyzerName)
	seen := map[string]bool{}
	var out []string
	for _, tok := range a.Analyze([]byte(s)) {
		t := string(tok.Term)
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// validate checks the filters and normalises paging.
func (ix *Index) normalize(q *Query) ([]string, error) {
	var notes []string
	if q.Lang != "en" {
		q.Lang = "ko"
	}
	switch q.Sort {
	case "", SortRelevance:
		q.Sort = SortRelevance
	case SortNewest, SortOldest:
	default:
		return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "sort %q is not supported; use relevance, date (newest first) or -date (oldest first)", q.Sort)
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultLimit
	case q.Limit < 0:
		notes = append(notes, fmt.Sprintf("limit %d is not positive; used %d", q.Limit, DefaultLimit))
		q.Limit = DefaultLimit
	case q.Limit > MaxLimit:
		notes = append(notes, fmt.Sprintf("limit %d is above the maximum; used %d", q.Limit, MaxLimit))
		q.Limit = MaxLimit
	}
	if q.Offset < 0 {
		notes = append(notes, fmt.Sprintf("offset %d is negative; used 0", q.Offset))
		q.Offset = 0
	}
	if q.Offset > MaxOffset {
		notes = append(notes, fmt.Sprintf("offset %d is above the maximum; used %d", q.Offset, MaxOffset))
		q.Offset = MaxOffset
	}
	for field, terms := range q.Filters {
		if field == "org" {
			continue
		}
		known := false
		for _, f := range FilterFields {
			known = known || f == field
		}
		if !known {
			return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "unknown filter %q; filters are %s, org, year_from, year_to and reviewed", field, strings.Join(FilterFields, ", "))
		}
		for _, t := range terms {
			if !ix.vocab.Has(field, t) {
				return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "unknown %s term %q; valid terms: %s", field, t, strings.Join(ix.vocab.IDs(field), ", "))
			}
		}
	}
	if q.YearFrom != 0 && q.YearTo != 0 && q.YearFrom > q.YearTo {
		return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "year_from %d is after year_to %d", q.YearFrom, q.YearTo)
	}
	return notes, nil
}

// textQuery builds the relevance part of a search: every word and phrase
// against every text field, with the field weights.
func (ix *Index) textQuery(text string, notes *[]string) (query.Query, []string) {
	pq := parse(text)
	terms := ix.analyze(pq.words)
	if len(terms) > MaxQueryTerms {
		*notes = append(*notes, fmt.Sprintf("the query has %d distinct terms; the first %d were used", len(terms), MaxQueryTerms))
		terms = terms[:MaxQueryTerms]
	}
	var should []query.Query
	fields := func(name string) []string { return []string{name} }
	for _, tf := range textFields {
		for _, f := range fields(tf.name) {
			for _, t := range terms {
				tq := bleve.NewTermQuery(t)
				tq.SetField(f)
				tq.SetBoost(tf.boost)
				should = append(should, tq)
			}
		}
	}
	var must []query.Query
	highlight := append([]string{}, terms...)
	for _, p := range pq.phrases {
		var alts []query.Query
		for _, tf := range textFields {
			for _, f := range fields(tf.name) {
				mp := bleve.NewMatchPhraseQuery(p)
				mp.SetField(f)
				mp.SetBoost(tf.boost * 2)
				alts = append(alts, mp)
			}
		}
		must = append(must, bleve.NewDisjunctionQuery(alts...))
		highlight = append(highlight, ix.analyze(p)...)
	}
	// A case id typed as the query finds that case first.
	for _, w := range strings.Fields(strings.ToUpper(text)) {
		if caseIDLike(w) {
			tq := bleve.NewTermQuery(w)
			tq.SetField("id")
			tq.SetBoost(50)
			should = append(should, tq)
		}
	}
	if len(should) == 0 && len(must) == 0 {
		return nil, nil
	}
	if len(must) == 0 {
		return bleve.NewDisjunctionQuery(should...), highlight
	}
	bq := bleve.NewBooleanQuery()
	bq.AddMust(must...)
	if len(should) > 0 {
		bq.AddShould(should...)
	}
	return bq, highlight
}

func caseIDLike(s string) bool {
	if len(s) != 7 || !strings.HasPrefix(s, "IL-") {
		return false
	}
	for _, r := range s[3:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// filterQuery builds the conjunction of every filter.
func (ix *Index) filterQuery(q *Query) []query.Query {
	var must []query.Query
	for _, field := range append(append([]string{}, FilterFields...), "org") {
		for _, t := range q.Filters[field] {
			f := field
			if field == "org" {
				f = "org_slug"
			}
			tq := bleve.NewTermQuery(t)
			tq.SetField(f)
			must = append(must, tq)
		}
	}
	if q.YearFrom != 0 || q.YearTo != 0 {
		var lo, hi *float64
		incl := true
		if q.YearFrom != 0 {
			v := float64(q.YearFrom)
			lo = &v
		}
		if q.YearTo != 0 {
			v := float64(q.YearTo)
			hi = &v
		}
		nq := bleve.NewNumericRangeInclusiveQuery(lo, hi, &incl, &incl)
		nq.SetField("year")
		must = append(must, nq)
	}
	if q.Reviewed != nil {
		bq := bleve.NewBoolFieldQuery(*q.Reviewed)
		bq.SetField("reviewed")
		must = append(must, bq)
	}
	if !q.IncludePrivate {
		tq := bleve.NewTermQuery("public")
		tq.SetField("visibility")
		must = append(must, tq)
	}
	return must
}

// Search runs q. Invalid filters or sort give an error of kind ErrInvalid
// whose message lists what is valid.
func (ix *Index) Search(q Query) (*Result, error) {
	notes, err := ix.normalize(&q)
	if err != nil {
		return nil, err
	}
	text := clean(q.Text, &notes)
	tq, _ := ix.textQuery(text, &notes)
	must := ix.filterQuery(&q)
	var root query.Query
	switch {
	case tq == nil && len(must) == 0:
		root = bleve.NewMatchAllQuery()
	case tq == nil:
		root = bleve.NewConjunctionQuery(must...)
	case len(must) == 0:
		root = tq
	default:
		bq := bleve.NewBooleanQuery()
		bq.AddMust(append(must, tq)...)
		root = bq
	}
	req := bleve.NewSearchRequestOptions(root, q.Limit, q.Offset, false)
	req.IncludeLocations = tq != nil // for snippets
	switch {
	case q.Sort == SortNewest || (tq == nil && q.Sort == SortRelevance):
		req.SortBy([]string{"-date", "-_id"})
	case q.Sort == SortOldest:
		req.SortBy([]string{"date", "_id"})
	default:
		req.SortBy([]string{"-_score", "-date", "_id"})
	}
	if !q.NoFacets {
		for _, f := range FilterFields {
			req.AddFacet(f, bleve.NewFacetRequest(f, 200))
		}
		req.AddFacet("org", bleve.NewFacetRequest("org_slug", 200))
	}
	sr, err := ix.bi.Search(req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	res := &Result{Total: int(sr.Total), Offset: q.Offset, Limit: q.Limit, Notes: notes}
	ix.mu.RLock()
	for _, h := range sr.Hits {
		c := ix.cases[h.ID]
		if c == nil {
			continue // deleted between search and lookup
		}
		res.Hits = append(res.Hits, Hit{Case: c, Score: h.Score, Snippet: ix.snippet(c, q.Lang, h.Locations)})
	}
	ix.mu.RUnlock()
	if q.Offset >= res.Total && res.Total > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("offset %d is past the last result (%d in all)", q.Offset, res.Total))
	}
	if !q.NoFacets {
		res.Facets = ix.facets(sr.Facets, q.Lang)
	}
	return res, nil
}

func (ix *Index) facets(fr search.FacetResults, lang string) map[string][]FacetCount {
	out := map[string][]FacetCount{}
	orgNames := map[string]string{}
	ix.mu.RLock()
	for _, c := range ix.cases {
		orgNames[c.OrgSlug] = c.Org
	}
	ix.mu.RUnlock()
	for name, f := range fr {
		var counts []FacetCount
		if f.Terms != nil {
			for _, t := range f.Terms.Terms() {
				label := orgNames[t.Term]
				if name != "org" {
					label = ix.vocab.Label(name, t.Term, lang)
				}
				counts = append(counts, FacetCount{Term: t.Term, Label: label, Count: t.Count})
			}
		}
		sort.SliceStable(counts, func(i, j int) bool {
			if counts[i].Count != counts[j].Count {
				return counts[i].Count > counts[j].Count
			}
			return counts[i].Term < counts[j].Term
		})
		if counts == nil {
			counts = []FacetCount{}
		}
		out[name] = counts
	}
	return out
}
