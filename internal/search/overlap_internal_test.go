package search

import (
	"testing"

	"github.com/incidentlib/incidentlib/internal/corpus"
)

// rank scores candidates with overlapScore and words the reasons of the
// ones it returns with overlap: the two must agree on every pair of cases,
// or the order of similar cases would differ from their stated scores.
func TestOverlapScoreMatchesOverlap(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	cases := c.Cases
	if len(cases) < 100 {
		t.Fatalf("only %d cases", len(cases))
	}
	shared := 0
	for i, a := range cases {
		p := caseProfile(a)
		// Every case against every seventh, to keep the race build quick.
		for j := i % 7; j < len(cases); j += 7 {
			b := cases[j]
			want, r := overlap(p, b)
			if got := overlapScore(p, b); got != want {
				t.Fatalf("%s against %s: overlapScore %v, overlap %v", a.ID, b.ID, got, want)
			}
			if len(r.Shared) > 0 {
				shared++
			}
		}
	}
	if shared == 0 {
		t.Fatal("no pair shares a term: the test compares nothing")
	}
}
