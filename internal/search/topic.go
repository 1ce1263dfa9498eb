package search

import (
	"sort"
	"strings"

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

// topicVocabs is the order in which FindTerm looks a bare reference up.
var topicVocabs = []string{incidentlib.VocabComponents, incidentlib.VocabRootCause, incidentlib.VocabSymptoms, incidentlib.VocabContributing, incidentlib.VocabDomain, incidentlib.VocabSeverity, incidentlib.VocabSourceKind}

// FindTerm resolves a term reference to its vocabulary: a term id, a
// "vocab:term" or "vocab/term" form (which picks the vocabulary when an id
// exists in several), or, as search reads it, a label or an alias of the
// term (kube-dns for coredns), in any letter case.
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
	for _, v := range topicVocabs {
		if t := ix.vocab.Term(v, ref); t != nil {
			return v, t
		}
	}
	key := termKey(ref)
	if key == "" {
		return "", nil
	}
	// The id in another letter case, then a label, then an alias.
	for _, match := range []func(t *incidentlib.Term) bool{
		func(t *incidentlib.Term) bool { return termKey(t.ID) == key },
		func(t *incidentlib.Term) bool { return termKey(t.Label.EN) == key || termKey(t.Label.KO) == key },
		func(t *incidentlib.Term) bool {
			for _, a := range t.Aliases {
				if termKey(a) == key {
					return true
				}
			}
			return false
		},
	} {
		for _, v := range topicVocabs {
			for i := range ix.vocab.Lists[v] {
				if t := &ix.vocab.Lists[v][i]; match(t) {
					return v, ix.vocab.Term(v, t.ID)
				}
			}
		}
	}
	return "", nil
}

// termKey folds a term reference for comparison: lower case, with spaces
// and underscores read as hyphens.
func termKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '_' {
			return '-'
		}
		return r
	}, s)
}

// SuggestTerms returns up to n terms, as "vocab:id", that an unknown
// reference was probably meant as: those whose id, label or alias holds
// it or is held by it, then those whose id is within two edits of it.
func (ix *Index) SuggestTerms(ref string, n int) []string {
	key := termKey(ref)
	if key == "" || n <= 0 {
		return nil
	}
	type cand struct {
		ref  string
		rank int
	}
	var cands []cand
	seen := map[string]bool{}
	for _, v := range topicVocabs {
		for _, t := range ix.vocab.Lists[v] {
			r := v + ":" + t.ID
			if seen[r] {
				continue
			}
			rank := -1
			names := append([]string{t.ID, t.Label.EN, t.Label.KO}, t.Aliases...)
			for _, name := range names {
				k := termKey(name)
				if k == "" {
					continue
				}
				if len([]rune(key)) >= 3 && (strings.Contains(k, key) || strings.Contains(key, k) && len([]rune(k)) >= 3) {
					rank = 0
					break
				}
			}
			if rank < 0 {
				if d := editDistance(key, termKey(t.ID)); d <= 2 {
					rank = d
				}
			}
			if rank >= 0 {
				seen[r] = true
				cands = append(cands, cand{r, rank})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].rank < cands[j].rank })
	var out []string
	for _, c := range cands {
		if len(out) == n {
			break
		}
		out = append(out, c.ref)
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, by runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// topic returns the topic of a term, or an ErrNotFound error.
func (ix *Index) topic(ref, lang string, includePrivate bool) (*Topic, error) {
	v, t := ix.FindTerm(ref)
	if t == nil {
		if sug := ix.SuggestTerms(ref, 5); len(sug) > 0 {
			return nil, incidentlib.Errorf(incidentlib.ErrNotFound, "no vocabulary term %q; did you mean %s? /api/vocab lists them", ref, strings.Join(sug, ", "))
		}
		return nil, incidentlib.Errorf(incidentlib.ErrNotFound, "no vocabulary term %q; /api/vocab lists them", ref)
	}
	tp := &Topic{Vocab: v, Term: t, CoOccurring: map[string][]FacetCount{}}
	co := map[string]map[string]int{}
	years := map[int]int{}
	for _, c := range ix.cases(includePrivate) {
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

// orgs lists the organisations of the cases the caller may see, with their
// slugs (what the org filter takes, besides the name) and counts, by slug.
func (ix *Index) orgs(includePrivate bool) []OrgCount {
	at := map[string]int{}
	out := []OrgCount{}
	for _, c := range ix.cases(includePrivate) {
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
