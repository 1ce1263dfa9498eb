package search_test

import (
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/search"
)

// pasted is one paste of the pasted-log set: want is empty for a paste no
// case answers.
type pasted struct {
	Q    string   `yaml:"q"`
	Want []string `yaml:"want"`
}

// weakNote reports whether res carries the weak-match note.
func weakNote(res *search.Result) bool {
	for _, n := range res.Notes {
		if strings.HasPrefix(n, search.WeakNote) {
			return true
		}
	}
	return false
}

// TestPastedLogs: pasted log lines, in the formats the tools write them,
// find their cases (recall@5 and MRR over the answerable ones), and the
// weak-match note, with Result.Weak, says which pastes no case answers:
// on every one of those and on at most a tenth of the others.
func TestPastedLogs(t *testing.T) {
	set := readList[pasted](t, "testdata/pastes.yaml")
	ix := realIndex(t)
	var answerable, none, found, wanted, noted, notedNone int
	var rr float64
	for _, p := range set {
		res, err := ix.Public().Search(search.Query{Text: p.Q, Limit: 5, NoFacets: true})
		if err != nil {
			t.Fatal(err)
		}
		note := weakNote(res)
		if note != res.Weak {
			t.Errorf("%.60q: the note (%v) and Weak (%v) disagree", p.Q, note, res.Weak)
		}
		if len(res.Hits) > 0 && res.Weak != (res.Hits[0].Confidence < search.WeakConfidence) {
			t.Errorf("%.60q: Weak is %v, the best hit's confidence %.3f", p.Q, res.Weak, res.Hits[0].Confidence)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.Case.ID)
		}
		best := 0.0
		if len(res.Hits) > 0 {
			best = res.Hits[0].Confidence
		}
		if len(p.Want) == 0 {
			none++
			if note || res.Total == 0 {
				notedNone++
			} else {
				t.Logf("no case answers %.80q, yet no weak-match note (best %v, confidence %.3f)", p.Q, got, best)
			}
			continue
		}
		answerable++
		if note {
			noted++
			t.Logf("note on an answerable paste %.70q (top %v, confidence %.3f)", p.Q, got, best)
		}
		first := 0
		for _, w := range p.Want {
			wanted++
			for i, g := range got {
				if g == w {
					found++
					if first == 0 || i+1 < first {
						first = i + 1
					}
				}
			}
		}
		if first > 0 {
			rr += 1 / float64(first)
		}
		if first != 1 {
			t.Logf("%.70q: want %v, got %v", p.Q, p.Want, got)
		}
	}
	if answerable < 40 || none < 7 {
		t.Fatalf("the set has %d answerable pastes and %d with no case; keep at least 40 and 7", answerable, none)
	}
	recall, mrr := float64(found)/float64(wanted), rr/float64(answerable)
	t.Logf("pasted logs: recall@5 = %.3f, MRR = %.3f over %d pastes; note on %d of %d answerable, %d of %d unanswerable",
		recall, mrr, answerable, noted, answerable, notedNone, none)
	if recall < 0.95 {
		t.Errorf("recall@5 = %.3f, want ≥ 0.95", recall)
	}
	if mrr < 0.9 {
		t.Errorf("MRR = %.3f, want ≥ 0.9", mrr)
	}
	if notedNone < none {
		t.Errorf("the weak-match note is on %d of %d pastes no case answers; want all", notedNone, none)
	}
	if 10*noted > answerable {
		t.Errorf("the weak-match note is on %d of %d answerable pastes; at most a tenth", noted, answerable)
	}
}
