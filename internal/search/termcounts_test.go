package search_test

import (
	"fmt"
	"maps"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
)

// handCounts counts, over cases, the cases carrying each term of every
// vocabulary (every term of the vocabulary there, 0 when none carries it).
func handCounts(v *incidentlib.Vocab, cases []*incidentlib.Case) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, name := range incidentlib.VocabNames {
		out[name] = map[string]int{}
		for _, id := range v.IDs(name) {
			out[name][id] = 0
		}
		for _, c := range cases {
			seen := map[string]bool{}
			for _, id := range incidentlib.CaseTerms(c, name) {
				if !seen[id] {
					seen[id] = true
					out[name][id]++
				}
			}
		}
	}
	return out
}

// TestTermCounts: a View's term counts are those of its own cases, counted
// by hand, in every vocabulary: the public View's are the public cases'
// alone, though 40 private copies of public cases (each with a source of
// its own kind) carry the same terms; the View of all counts the copies.
func TestTermCounts(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	cases := append([]*incidentlib.Case{}, c.Cases...)
	kinds := c.Vocab.IDs(incidentlib.VocabSourceKind)
	for i, pc := range c.Cases[:40] {
		p := *pc
		p.ID = fmt.Sprintf("IL-%d", 20000+i)
		p.Private = true
		p.Related, p.RecurrenceOf = nil, nil
		p.Sources = append([]incidentlib.Source{{URL: "https://example.org/private", Kind: kinds[i%len(kinds)]}}, p.Sources...)
		cases = append(cases, &p)
	}
	ix, err := search.New(c.Vocab, cases)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, got, want map[string]map[string]int) {
		t.Helper()
		if len(got) != len(incidentlib.VocabNames) {
			t.Errorf("%s: counts of %d vocabularies, want %d", what, len(got), len(incidentlib.VocabNames))
		}
		for _, name := range incidentlib.VocabNames {
			if !maps.Equal(got[name], want[name]) {
				t.Errorf("%s: %s counts\n got %v\nwant %v", what, name, got[name], want[name])
			}
		}
	}
	pub, all := ix.Public().TermCounts(), ix.All().TermCounts()
	check("public View", pub, handCounts(c.Vocab, c.Cases))
	check("public View, over its cases", pub, handCounts(c.Vocab, ix.Public().Cases()))
	check("View of all", all, handCounts(c.Vocab, cases))
	if maps.EqualFunc(pub, all, maps.Equal) {
		t.Error("the private cases change no count: the test proves nothing")
	}
}
