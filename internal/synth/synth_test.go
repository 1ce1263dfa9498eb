package synth_test

import (
	"testing"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/synth"
)

// TestCases: synthetic cases pass the checks validate makes (nearly all at
// the first draw), are the same for the same seed, differ from their
// templates and from one another in their words, and are numbered past
// IL-9999.
func TestCases(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	a := synth.New(c.Cases, 300, synth.Options{Seed: 3})
	b := synth.New(c.Cases, 300, synth.Options{Seed: 3})
	real := map[string]bool{}
	for _, k := range c.Cases {
		real[k.Summary.EN] = true
	}
	seen := map[string]bool{}
	invalid := 0
	for i := 0; i < 300; i++ {
		k, k2 := a.Next(), b.Next()
		if k.Summary.EN != k2.Summary.EN || k.ID != k2.ID || k.Date != k2.Date {
			t.Fatalf("case %d differs between two generators of one seed", i)
		}
		if i == 0 && k.ID != "IL-10000" {
			t.Errorf("first id %s, want IL-10000", k.ID)
		}
		if real[k.Summary.EN] || seen[k.Summary.EN] {
			t.Errorf("%s repeats a summary word for word", k.ID)
		}
		seen[k.Summary.EN] = true
		y, err := corpus.MarshalCase(k)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, probs := corpus.ParseCase("cases/"+k.ID+".yaml", y, c.Vocab); len(probs) > 0 {
			invalid++
		}
	}
	if invalid > 3 {
		t.Errorf("%d of 300 synthetic cases fail validation; gen draws such a case again, but they should be rare", invalid)
	}
}
