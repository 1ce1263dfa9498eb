package search

import (
	"slices"
	"testing"

	"github.com/incidentlib/incidentlib/internal/corpus"
)

// TestAdjacentMatchesPositions holds docSnips.adjacent, which the
// confidence asks whether a case holds a paste's word pair in order, to
// the positions of the words: for every pair of terms of a case's snippet
// fields, it is true exactly when some field, in either reading, has the
// second term right after the first.
func TestAdjacentMatchesPositions(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := New(c.Vocab, c.Cases[:12])
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	pairs, held := 0, 0
	for d := range 12 {
		ds := ix.snips(uint32(d))
		follows := map[[2]uint32]bool{}
		terms := map[uint32]bool{}
		for l := range ds {
			for f := range ds[l] {
				st := &ds[l][f]
				at := map[int32][]uint32{} // a word may give several terms
				for k, id := range st.uniq {
					terms[id] = true
					for _, p := range st.occ[st.off[k]:st.off[k+1]] {
						at[p] = append(at[p], id)
					}
				}
				for p, here := range at {
					for _, a := range here {
						for _, b := range at[p+1] {
							follows[[2]uint32{a, b}] = true
						}
					}
				}
			}
		}
		var ids []uint32
		for id := range terms {
			ids = append(ids, id)
		}
		slices.Sort(ids) // the same pairs on every run
		for _, a := range ids[:min(len(ids), 60)] {
			for _, b := range ids[:min(len(ids), 60)] {
				pairs++
				want := follows[[2]uint32{a, b}]
				if want {
					held++
				}
				if got := ds.adjacent(a, b); got != want {
					t.Fatalf("case %s: adjacent(%d, %d) = %v, the words' positions say %v", c.Cases[d].ID, a, b, got, want)
				}
			}
		}
	}
	if held == 0 || held == pairs {
		t.Errorf("%d of %d pairs held: the test checks nothing", held, pairs)
	}
}
