package search

import (
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// analysisTexts are every text of the corpus and some tricky input.
func analysisTexts(t *testing.T) []string {
	t.Helper()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"kube-proxy가 conntrack을 못 지움", "conntrack_allowance_exceeded", "proxier.go:610] Failed to delete",
		"ÇAĞ straße Ωmega", "a.b.c d: e_f_g_ h..i", "롤아웃 중 DNS 오류가", "가 나 다", "Kubernetes's node's", "1.5GB 20:13:53.795782",
		"", "   ", "\x00\xff", "ＡＢＣ 全角", "x_가_y", "가a나b다", "the_a.b of: is_가나다_running",
	}
	both := func(x incidentlib.Text) { texts = append(texts, x.EN, x.KO) }
	for _, k := range c.Cases {
		both(k.Title)
		both(k.Summary)
		both(k.SymptomsText)
		both(k.Trigger)
		both(k.Detection)
		both(k.Lessons)
	}
	return texts
}

func short(text string) string { return strings.TrimSpace(text[:min(len(text), 80)]) }

// TestFastAnalyzerMatchesAnalyzer: the one-pass analysis used for indexing
// and queries gives exactly the terms of the reference Bleve chain, in the
// same order, on every text of the corpus and on tricky input.
func TestFastAnalyzerMatchesAnalyzer(t *testing.T) {
	an, err := newAnalyzer(true)
	if err != nil {
		t.Fatal(err)
	}
	fa := newFastAnalyzer()
	cache := stemCache{}
	for _, text := range analysisTexts(t) {
		var want, got []string
		for _, tok := range an.Analyze([]byte(text)) {
			want = append(want, string(tok.Term))
		}
		fa.each(text, cache, func(term string) { got = append(got, term) })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q (-analyzer +fast):\n%s", short(text), diff)
		}
	}
}

// TestSequenceMatchesAnalyzer: the terms phrase checks compare are the
// reference chain's terms, in order, without the identifier parts filter.
func TestSequenceMatchesAnalyzer(t *testing.T) {
	an, err := newAnalyzer(false)
	if err != nil {
		t.Fatal(err)
	}
	fa := newFastAnalyzer()
	for _, text := range analysisTexts(t) {
		var want []string
		for _, tok := range an.Analyze([]byte(text)) {
			want = append(want, string(tok.Term))
		}
		if diff := cmp.Diff(want, fa.sequence(text, nil)); diff != "" {
			t.Fatalf("%q (-analyzer +sequence):\n%s", short(text), diff)
		}
	}
}

// TestStopWordsAreBleves: the stop words are the list of Bleve's stop_en
// filter, which the reference chain uses.
func TestStopWordsAreBleves(t *testing.T) {
	m, err := registry.NewCache().TokenMapNamed(en.StopName)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for w := range m {
		want[w] = true
	}
	if diff := cmp.Diff(want, englishStop); diff != "" {
		t.Errorf("stop words (-bleve +ours):\n%s", diff)
	}
}
