package corpus_test

import (
	"bytes"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// The breadth the corpus must keep.
const (
	minCases = 250
	minOrgs  = 110
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
	if n := len(c.Cases); n < minCases {
		t.Errorf("%d cases; the corpus holds at least %d", n, minCases)
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
	// Breadth: at least 110 organisations, none on more than 4% of cases,
	// no root cause on more than a quarter, every year from 2014 to 2026.
	orgs, years, causes := map[string]int{}, map[int]bool{}, map[string]int{}
	for _, k := range c.Cases {
		orgs[k.OrgSlug]++
		years[k.Year()] = true
		causes[k.RootCause]++
	}
	if len(orgs) < minOrgs {
		t.Errorf("%d organisations; at least %d", len(orgs), minOrgs)
	}
	for org, n := range orgs {
		if 25*n > len(c.Cases) {
			t.Errorf("organisation %s has %d of %d cases (over 4%%)", org, n, len(c.Cases))
		}
	}
	for y := 2014; y <= 2026; y++ {
		if !years[y] {
			t.Errorf("no case from %d", y)
		}
	}
	for rc, n := range causes {
		if 4*n > len(c.Cases) {
			t.Errorf("root cause %s has %d of %d cases (over a quarter)", rc, n, len(c.Cases))
		}
	}
	// Related cases link both ways.
	for _, k := range c.Cases {
		for _, r := range k.Related {
			if o := c.Case(r); o != nil && !slices.Contains(o.Related, k.ID) {
				t.Errorf("%s lists %s as related, but %s does not list %s", k.ID, r, r, k.ID)
			}
		}
	}
	// Every source names its write-up.
	for _, k := range c.Cases {
		for i, s := range k.Sources {
			if strings.TrimSpace(s.Title) == "" {
				t.Errorf("%s: sources[%d] has no title", k.ID, i)
			}
		}
	}
	// Reviews stay honest: a review names a person other than the writers.
	for _, k := range c.Cases {
		if strings.TrimSpace(k.Review.WrittenBy) == "" {
			t.Errorf("%s has no written_by", k.ID)
		}
		if k.Reviewed() {
			by := ""
			if k.Review.ReviewedBy != nil {
				by = strings.TrimSpace(*k.Review.ReviewedBy)
			}
			if by == "" || strings.EqualFold(by, strings.TrimSpace(k.Review.WrittenBy)) {
				t.Errorf("%s is marked reviewed by %q; a review is signed by a person other than its writers (%q)", k.ID, by, k.Review.WrittenBy)
			}
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
			f := v.Type().Field(i)
			// An optional text (omitempty) may be absent; present, it is
			// in both languages like every other.
			if f.Type == reflect.TypeOf(incidentlib.Text{}) && strings.Contains(f.Tag.Get("json"), ",omitempty") && v.Field(i).IsZero() {
				continue
			}
			checkBoth(t, id, v.Field(i), path+"."+f.Name)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			checkBoth(t, id, v.Index(i), path+"[]")
		}
	}
}

// TestCorpusCanonical: every case file is in the form "incidentlib fmt"
// writes, with every text a block scalar, so that no " #" can cut a text
// short and no paragraph is wrapped by hand.
func TestCorpusCanonical(t *testing.T) {
	fsys := incidentlib.CorpusFS()
	files, err := fs.Glob(fsys, "cases/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			t.Fatal(err)
		}
		out, probs := corpus.Format(f, data, true)
		if len(probs) > 0 {
			t.Errorf("%v", probs)
			continue
		}
		if !bytes.Equal(out, data) {
			t.Errorf("%s is not in canonical form; run incidentlib fmt --unwrap %s", f, f)
		}
	}
}
