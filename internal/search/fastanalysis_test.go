package search

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// TestFastAnalyzerMatchesAnalyzer: the one-pass analysis used for indexing
// and queries gives exactly the terms of the registered analyzer used for
// snippets and phrases, on every text of the corpus and on tricky input.
func TestFastAnalyzerMatchesAnalyzer(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	an, err := newAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	fa, err := newFastAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"kube-proxy가 conntrack을 못 지움", "conntrack_allowance_exceeded", "proxier.go:610] Failed to delete",
		"ÇAĞ straße Ωmega", "a.b.c d: e_f_g_ h..i", "롤아웃 중 DNS 오류가", "가 나 다", "Kubernetes's node's", "1.5GB 20:13:53.795782",
		"", "   ", "\x00\xff", "ＡＢＣ 全角", "x_가_y", "가a나b다",
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
	cache := stemCache{}
	for _, text := range texts {
		var want, got []string
		for _, tok := range an.Analyze([]byte(text)) {
			want = append(want, string(tok.Term))
		}
		fa.each(text, cache, func(term string) { got = append(got, term) })
		sort.Strings(want)
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q (-analyzer +fast):\n%s", strings.TrimSpace(text[:min(len(text), 80)]), diff)
		}
	}
}
