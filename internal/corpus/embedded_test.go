package corpus_test

import (
	"reflect"
	"testing"

	"github.com/incidentlib/incidentlib/internal/corpus"
)

// Every LoadEmbedded after the first decodes the checked cases from memory;
// its cases must equal the parsed ones field for field and be the caller's
// own, so that one caller's change never shows in another's corpus.
func TestLoadEmbeddedCopiesAreEqualAndOwn(t *testing.T) {
	a, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	b, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Cases) == 0 || len(a.Cases) != len(b.Cases) {
		t.Fatalf("%d and %d cases", len(a.Cases), len(b.Cases))
	}
	if !reflect.DeepEqual(a.Vocab, b.Vocab) {
		t.Error("the vocabularies of two loads differ")
	}
	for i := range a.Cases {
		if !reflect.DeepEqual(a.Cases[i], b.Cases[i]) {
			t.Fatalf("%s differs between two loads:\n%+v\n%+v", a.Cases[i].ID, *a.Cases[i], *b.Cases[i])
		}
		if b.Case(a.Cases[i].ID) != b.Cases[i] {
			t.Fatalf("the second load does not find %s by id", a.Cases[i].ID)
		}
	}
	first := a.Cases[0]
	title, summary := first.Title.EN, b.Cases[0].Summary.KO
	first.Title.EN = "changed"
	first.Domain[0] = "changed"
	b.Cases[0].Summary.KO = "바뀜"
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	if c.Cases[0].Title.EN != title || c.Cases[0].Domain[0] == "changed" || b.Cases[0].Title.EN != title || c.Cases[0].Summary.KO != summary {
		t.Error("a change to one load's cases shows in another load")
	}
	if a.Vocab == b.Vocab || a.Cases[0] == b.Cases[0] {
		t.Error("two loads share a vocabulary or a case")
	}
}
