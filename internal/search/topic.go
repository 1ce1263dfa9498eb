package search

import (
	"sort"

	"github.com/incidentlib/incidentlib"
)

// YearCount is how many cases a year has.
type YearCount struct {
	Year  int `json:"year"`
	Count int `json:"count"`
}

// Topic is everything about one vocabulary term.
type Topic struct {
	Vocab string
	Term  *incidentlib.Term
	Cases []*incidentlib.Case // newest first
	// CoOccurring maps a vocabulary to its terms that appear most often on
	// this topic's cases.
	CoOccurring map[string][]FacetCount
	ByYear      []YearCount
}

// FindTerm resolves a term id to its vocabulary. A "vocab:term" or
// "vocab/term" form picks the vocabulary when an id exists in several.
func (ix *Index) FindTerm(ref string) (string, *incidentlib.Term) {
	for _, sep := range []string{":", "/"} {
		for _, v := range incidentlib.VocabNames {
			if len(ref) > len(v)+1 && ref[:len(v)] == v && ref[len(v):len(v)+1] == sep {
				if t := ix.vocab.Term(v, ref[len(v)+1:]); t != nil {
					return v, t
				}
			}
		}
	}
	for _, v := range []string{incidentlib.VocabComponents, incidentlib.VocabRootCause, incidentlib.VocabSymptoms, incidentlib.VocabContributing, incidentlib.VocabDomain, incidentlib.VocabSeverity, incidentlib.VocabSourceKind} {
		if t := ix.vocab.Term(v, ref); t != nil {
			return v, t
		}
	}
	return "", nil
}

// Topic returns the topic of a term, or an ErrNotFound error.
func (ix *Index) Topic(ref, lang string, includePrivate bool) (*Topic, error) {
	v, t := ix.FindTerm(ref)
	if t == nil {
		return nil, incidentlib.Errorf(incidentlib.ErrNotFound, "no vocabulary term %q; /api/vocab lists them", ref)
	}
	tp := &Topic{Vocab: v, Term: t, CoOccurring: map[string][]FacetCount{}}
	co := map[string]map[string]int{}
	years := map[int]int{}
	for _, c := range ix.Cases(includePrivate) {
		has := false
		for _, id := range incidentlib.CaseTerms(c, v) {
			has = has || id == t.ID
		}
		if !has {
			continue
		}
		tp.Cases = append(tp.Cases, c)
		years[c.Year()]++
		for _, f := range FilterFields {
			for _, id := range incidentlib.CaseTerms(c, f) {
				if f == v && id == t.ID {
					continue
				}
				if co[f] == nil {
					co[f] = map[string]int{}
				}
				co[f][id]++
			}
		}
	}
	for f, counts := range co {
		var fc []FacetCount
		for id, n := range counts {
			fc = append(fc, FacetCount{Term: id, Label: ix.vocab.Label(f, id, lang), Count: n})
		}
		sort.Slice(fc, func(i, j int) bool {
			if fc[i].Count != fc[j].Count {
				return fc[i].Count > fc[j].Count
			}
			return fc[i].Term < fc[j].Term
		})
		if len(fc) > 10 {
			fc = fc[:10]
		}
		tp.CoOccurring[f] = fc
	}
	for y, n := range years {
		tp.ByYear = append(tp.ByYear, YearCount{y, n})
	}
	sort.Slice(tp.ByYear, func(i, j int) bool { return tp.ByYear[i].Year < tp.ByYear[j].Year })
	return tp, nil
}

// OrgCount is an organisation with how many cases it has.
type OrgCount struct {
	Slug  string `json:"slug"`
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Orgs lists the organisations of the cases the caller may see, with their
// slugs (what the org filter takes, besides the name) and counts, by slug.
func (ix *Index) Orgs(includePrivate bool) []OrgCount {
	at := map[string]int{}
	out := []OrgCount{}
	for _, c := range ix.Cases(includePrivate) {
		i, ok := at[c.OrgSlug]
		if !ok {
			i = len(out)
			at[c.OrgSlug] = i
			out = append(out, OrgCount{Slug: c.OrgSlug, Name: c.Org})
		}
		out[i].Count++
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slug < out[j].Slug })
	return out
}
