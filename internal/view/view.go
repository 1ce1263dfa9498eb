// Package view holds the JSON shapes that the command line, the API and the
// pages share, and the functions that build them from cases and results.
package view

import (
	"fmt"
	"sort"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/casecache"
	"github.com/incidentlib/incidentlib/internal/search"
)

// WithURL returns a copy of c with its canonical URL derived from baseURL.
func WithURL(c *incidentlib.Case, baseURL string) *incidentlib.Case {
	cp := *c
	cp.URL = incidentlib.CaseURL(baseURL, c.ID)
	return &cp
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// SearchItem is one result in the JSON form of a search, shared with the API.
type SearchItem struct {
	ID        string           `json:"id"`
	Org       string           `json:"org"`
	Date      string           `json:"date"`
	Title     incidentlib.Text `json:"title"`
	RootCause string           `json:"root_cause"`
	Score     float64          `json:"score"`
	// Match is the share of the query's terms the case holds (0 to 1),
	// comparable across queries.
	Match   float64 `json:"match"`
	Snippet string  `json:"snippet"`
	URL     string  `json:"url"`

	// head is the item's JSON from its start to root_cause, kept for the
	// case value it was made from (heads); AppendJSON writes it as it is.
	head []byte
	// snippetSafe says Snippet came from a search, and so needs no
	// escaping in JSON (search.Hit.Snippet).
	snippetSafe bool
}

// SearchResponse is the JSON form of a search.
type SearchResponse struct {
	Items  []SearchItem                   `json:"items"`
	Total  int                            `json:"total"`
	Offset int                            `json:"offset"`
	Limit  int                            `json:"limit"`
	Facets map[string][]search.FacetCount `json:"facets,omitempty"`
	Notes  []string                       `json:"notes,omitempty"`
	// Terms is how many terms the query was read as; Close how many
	// results hold at least half of their weight. The results of a text
	// query are the cases holding at least a quarter of the weight the
	// best one holds (so every close match), and the cases it names by
	// id; Total and the facets count them.
	Terms int `json:"terms"`
	Close int `json:"close"`
}

// NewSearchResponse turns a search result into its JSON form.
func NewSearchResponse(r *search.Result, baseURL string) SearchResponse {
	out := SearchResponse{Items: make([]SearchItem, 0, len(r.Hits)), Total: r.Total, Offset: r.Offset, Limit: r.Limit, Facets: r.Facets, Notes: r.Notes, Terms: r.Terms, Close: r.Close}
	for _, h := range r.Hits {
		it := SearchItem{
			ID: h.Case.ID, Org: h.Case.Org, Date: h.Case.Date, Title: h.Case.Title,
			RootCause: h.Case.RootCause, Score: round3(h.Score), Match: round3(h.Match), Snippet: h.Snippet,
			URL: incidentlib.CaseURL(baseURL, h.Case.ID),
		}
		it.head, _ = heads.Get(h.Case, func() ([]byte, error) { return it.appendHead(nil), nil })
		it.snippetSafe = true
		out.Items = append(out.Items, it)
	}
	return out
}

// headCacheCases bounds the cases heads keeps: past it, it starts again
// empty (a store of that many cases re-encodes them as they are shown).
const headCacheCases = 8192

// heads keeps the encoded head of each case's search item, by case value
// (casecache says why an entry never goes stale). Titles were a third of
// the bytes a search answer escapes.
var heads = casecache.New[[]byte](headCacheCases)

// SimilarItem is one similar case in JSON.
type SimilarItem struct {
	ID     string           `json:"id"`
	Org    string           `json:"org"`
	Date   string           `json:"date"`
	Title  incidentlib.Text `json:"title"`
	Score  float64          `json:"score"`
	Reason search.Reason    `json:"reason"`
}

// NewSimilarItems turns similar cases into their JSON form.
func NewSimilarItems(s []search.Similar) []SimilarItem {
	out := []SimilarItem{}
	for _, x := range s {
		out = append(out, SimilarItem{ID: x.Case.ID, Org: x.Case.Org, Date: x.Case.Date, Title: x.Case.Title, Score: round3(x.Score), Reason: x.Reason})
	}
	return out
}

// TopicResponse is the JSON form of a topic.
type TopicResponse struct {
	Vocab       string                         `json:"vocab"`
	Term        *incidentlib.Term              `json:"term"`
	Total       int                            `json:"total"`
	Cases       []TopicCase                    `json:"cases"`
	CoOccurring map[string][]search.FacetCount `json:"co_occurring"`
	ByYear      []search.YearCount             `json:"by_year"`
}

// TopicCase is a case in a topic listing.
type TopicCase struct {
	ID    string           `json:"id"`
	Org   string           `json:"org"`
	Date  string           `json:"date"`
	Title incidentlib.Text `json:"title"`
}

// NewTopicResponse turns a topic into its JSON form.
func NewTopicResponse(tp *search.Topic) TopicResponse {
	out := TopicResponse{Vocab: tp.Vocab, Term: tp.Term, Total: len(tp.Cases), Cases: []TopicCase{}, CoOccurring: tp.CoOccurring, ByYear: tp.ByYear}
	for _, c := range tp.Cases {
		out.Cases = append(out.Cases, TopicCase{c.ID, c.Org, c.Date, c.Title})
	}
	if out.ByYear == nil {
		out.ByYear = []search.YearCount{}
	}
	return out
}

// Page keeps limit of the topic's cases from offset on; Total stays the
// count of them all.
func (t TopicResponse) Page(offset, limit int) TopicResponse {
	t.Cases = t.Cases[min(offset, len(t.Cases)):]
	t.Cases = t.Cases[:min(limit, len(t.Cases))]
	return t
}

// Count is a term or value with how many cases carry it.
type Count struct {
	Key   string           `json:"key"`
	Label incidentlib.Text `json:"label"`
	Count int              `json:"count"`
}

// Stats describes the breadth of the corpus.
type Stats struct {
	Cases         int     `json:"cases"`
	Reviewed      int     `json:"reviewed"`
	Organisations int     `json:"organisations"`
	YearFrom      int     `json:"year_from"`
	YearTo        int     `json:"year_to"`
	ByYear        []Count `json:"by_year"`
	ByRootCause   []Count `json:"by_root_cause"`
	ByComponent   []Count `json:"by_component"`
	ByDomain      []Count `json:"by_domain"`
	BySeverity    []Count `json:"by_severity"`
	ByOrg         []Count `json:"by_org"`
	// ComponentRootCause counts cases per component and root cause, for the
	// top components.
	ComponentRootCause map[string]map[string]int `json:"component_root_cause"`
}

// ComputeStats counts cases by year, root cause, component, domain,
// severity and organisation.
func ComputeStats(cases []*incidentlib.Case, v *incidentlib.Vocab) Stats {
	s := Stats{Cases: len(cases), ComponentRootCause: map[string]map[string]int{}}
	years, orgs, orgNames := map[string]int{}, map[string]int{}, map[string]string{}
	byVocab := map[string]map[string]int{}
	for _, name := range []string{incidentlib.VocabRootCause, incidentlib.VocabComponents, incidentlib.VocabDomain, incidentlib.VocabSeverity} {
		byVocab[name] = map[string]int{}
	}
	for _, c := range cases {
		if c.Reviewed() {
			s.Reviewed++
		}
		y := c.Year()
		years[fmt.Sprint(y)]++
		if s.YearFrom == 0 || y < s.YearFrom {
			s.YearFrom = y
		}
		if y > s.YearTo {
			s.YearTo = y
		}
		orgs[c.OrgSlug]++
		orgNames[c.OrgSlug] = c.Org
		for name, m := range byVocab {
			for _, id := range incidentlib.CaseTerms(c, name) {
				m[id]++
			}
		}
		for _, comp := range c.Components {
			if s.ComponentRootCause[comp] == nil {
				s.ComponentRootCause[comp] = map[string]int{}
			}
			s.ComponentRootCause[comp][c.RootCause]++
		}
	}
	s.Organisations = len(orgs)
	list := func(m map[string]int, label func(string) incidentlib.Text, byKey bool) []Count {
		out := []Count{}
		for k, n := range m {
			out = append(out, Count{k, label(k), n})
		}
		sort.Slice(out, func(i, j int) bool {
			if byKey {
				return out[i].Key < out[j].Key
			}
			if out[i].Count != out[j].Count {
				return out[i].Count > out[j].Count
			}
			return out[i].Key < out[j].Key
		})
		return out
	}
	plain := func(k string) incidentlib.Text { return incidentlib.Text{EN: k, KO: k} }
	term := func(vocab string) func(string) incidentlib.Text {
		return func(id string) incidentlib.Text {
			if t := v.Term(vocab, id); t != nil {
				return t.Label
			}
			return plain(id)
		}
	}
	s.ByYear = list(years, plain, true)
	s.ByRootCause = list(byVocab[incidentlib.VocabRootCause], term(incidentlib.VocabRootCause), false)
	s.ByComponent = list(byVocab[incidentlib.VocabComponents], term(incidentlib.VocabComponents), false)
	s.ByDomain = list(byVocab[incidentlib.VocabDomain], term(incidentlib.VocabDomain), false)
	s.BySeverity = list(byVocab[incidentlib.VocabSeverity], term(incidentlib.VocabSeverity), false)
	s.ByOrg = list(orgs, func(k string) incidentlib.Text { return plain(orgNames[k]) }, false)
	return s
}
