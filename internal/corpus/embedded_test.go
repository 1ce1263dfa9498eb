package corpus_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// The ids the corpus must hold: the incidents the seed pages name.
var fixedIDs = []string{
	"IL-0461", "IL-0195", "IL-0049", "IL-0268", "IL-0191", "IL-0005", "IL-0285", "IL-0153",
	"IL-0019", "IL-0168", "IL-0194", "IL-0002", "IL-0076", "IL-0075",
	"IL-0321", // Skyscanner, HAProxy ingress sorted backends
}

func TestEmbeddedCorpus(t *testing.T) {
	res, err := corpus.Load(incidentlib.CorpusFS(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("the corpus has problems:\n%v", res.Problems)
	}
	c := res.Corpus
	if n := len(c.Cases); n < 80 {
		t.Errorf("%d cases; the corpus holds at least 80", n)
	}
	for _, id := range fixedIDs {
		if c.Case(id) == nil {
			t.Errorf("fixed id %s is missing", id)
		}
	}
	if c.Case("IL-0321").OrgSlug != "skyscanner" {
		t.Errorf("IL-0321 is not the Skyscanner case")
	}
	// Both languages on every text field, checked again on the loaded values;
	// summaries in two to four paragraphs.
	for _, k := range c.Cases {
		checkBoth(t, k.ID, reflect.ValueOf(*k), "")
		for _, text := range []string{k.Summary.EN, k.Summary.KO} {
			n := 0
			for _, p := range strings.Split(text, "\n\n") {
				if strings.TrimSpace(p) != "" {
					n++
				}
			}
			if n < 2 || n > 4 {
				t.Errorf("%s: summary has %d paragraphs; write two to four", k.ID, n)
			}
		}
	}
	// Every vocabulary term is used by a case or marked reserved.
	used := map[string]bool{}
	for _, k := range c.Cases {
		for _, name := range incidentlib.VocabNames {
			for _, id := range incidentlib.CaseTerms(k, name) {
				used[name+"/"+id] = true
			}
		}
	}
	for _, name := range incidentlib.VocabNames {
		for _, term := range c.Vocab.Lists[name] {
			if !used[name+"/"+term.ID] && !term.Reserved {
				t.Errorf("vocab term %s/%s is used by no case and not marked reserved", name, term.ID)
			}
			if used[name+"/"+term.ID] && term.Reserved {
				t.Errorf("vocab term %s/%s is used but still marked reserved", name, term.ID)
			}
		}
	}
	// Breadth: organisations, years, and no root cause on over a third.
	orgs, years, causes := map[string]bool{}, map[int]bool{}, map[string]int{}
	for _, k := range c.Cases {
		orgs[k.OrgSlug] = true
		years[k.Year()] = true
		causes[k.RootCause]++
	}
	if len(orgs) < 40 {
		t.Errorf("%d organisations; at least 40", len(orgs))
	}
	for y := 2017; y <= 2026; y++ {
		if !years[y] {
			t.Errorf("no case from %d", y)
		}
	}
	for rc, n := range causes {
		if 3*n > len(c.Cases) {
			t.Errorf("root cause %s has %d of %d cases (over a third)", rc, n, len(c.Cases))
		}
	}
	// Reviews stay honest: nobody has reviewed the corpus yet.
	for _, k := range c.Cases {
		if k.Reviewed() {
			t.Errorf("%s is marked reviewed; a case stays unreviewed until a person reviews it", k.ID)
		}
		if strings.TrimSpace(k.Review.WrittenBy) == "" {
			t.Errorf("%s has no written_by", k.ID)
		}
	}
}

func checkBoth(t *testing.T, id string, v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(incidentlib.Text{}) {
			x := v.Interface().(incidentlib.Text)
			if strings.TrimSpace(x.EN) == "" || strings.TrimSpace(x.KO) == "" {
				t.Errorf("%s: %s lacks a language", id, path)
			}
			if !strings.ContainsFunc(x.KO, func(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }) {
				t.Errorf("%s: %s.ko has no Hangul", id, path)
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			checkBoth(t, id, v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			checkBoth(t, id, v.Index(i), path+"[]")
		}
	}
}
