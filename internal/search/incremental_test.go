package search_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
)

// TestIncrementalMatchesFresh makes every kind of write, one at a time, to
// an index (new words in a text, new vocabulary terms, a new organisation,
// a new date, made private and public again, reviewed, deleted, added past
// IL-9999, added again after a deletion), and after each one requires it
// to answer exactly as an index built afresh over the same cases: search
// hits with their scores, totals, close counts, confidence and snippets,
// facets, in both views, by relevance and by date; the cases by date;
// organisations; term counts; topics; similar cases. A write updates the
// index in place, so a write that forgot a posting, a set, a length sum
// or a facet entry shows here.
func TestIncrementalMatchesFresh(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	// A part of the corpus keeps a fresh build cheap enough for every step.
	var cases []*incidentlib.Case
	for i, k := range c.Cases {
		if i%6 == 0 {
			cases = append(cases, k)
		}
	}
	ix, err := search.New(c.Vocab, cases)
	if err != nil {
		t.Fatal(err)
	}
	answers := func(ix *search.Index) string { return indexAnswers(t, ix) }
	answers(ix) // fill what the index keeps between searches
	at := func(id string) int {
		for i, k := range cases {
			if k.ID == id {
				return i
			}
		}
		return -1
	}
	put := func(k *incidentlib.Case) {
		t.Helper()
		if err := ix.Upsert(k); err != nil {
			t.Fatal(err)
		}
		if i := at(k.ID); i >= 0 {
			cases[i] = k
		} else {
			cases = append(cases, k)
		}
	}
	pick := func() incidentlib.Case { return *cases[rng.IntN(len(cases))] }
	words := []string{"quokkaflux", "zebrine", "conntrack", "CoreDNS", "etcd", "webhook", "메모리", "인증서"}
	var deleted []incidentlib.Case
	writes := []struct {
		name string
		do   func()
	}{
		{"new words in a text", func() {
			k := pick()
			k.Summary.EN = words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))] + ". " + k.Summary.EN
			k.Title.KO = words[rng.IntN(len(words))] + " " + k.Title.KO
			put(&k)
		}},
		{"words taken out of a text", func() {
			k := pick()
			k.Trigger = incidentlib.Text{EN: "A change.", KO: "변경이 있었다."}
			put(&k)
		}},
		{"new vocabulary terms", func() {
			k := pick()
			k.RootCause = []string{"upgrade", "config-change", "capacity-limit"}[rng.IntN(3)]
			k.Components = append([]string{"coredns"}, k.Components...)
			k.Components = k.Components[:min(len(k.Components), 3)]
			put(&k)
		}},
		{"a new organisation", func() {
			k := pick()
			n := rng.IntN(3)
			k.Org, k.OrgSlug = fmt.Sprintf("Quokka Systems %d", n), fmt.Sprintf("quokka-systems-%d", n)
			put(&k)
		}},
		{"a new date", func() {
			k := pick()
			k.Date = fmt.Sprintf("%d-%02d-%02d", 2010+rng.IntN(17), 1+rng.IntN(12), 1+rng.IntN(28))
			put(&k)
		}},
		{"made private", func() {
			k := pick()
			k.Private = true
			put(&k)
		}},
		{"made public again", func() {
			for _, k := range cases {
				if k.Private {
					p := *k
					p.Private = false
					put(&p)
					return
				}
			}
		}},
		{"reviewed", func() {
			k := pick()
			at, by := "2026-12-01T00:00:00Z", "an editor"
			k.Review.ReviewedAt, k.Review.ReviewedBy = &at, &by
			put(&k)
		}},
		{"deleted", func() {
			k := pick()
			if err := ix.Delete(k.ID); err != nil {
				t.Fatal(err)
			}
			cases = append(cases[:at(k.ID)], cases[at(k.ID)+1:]...)
			deleted = append(deleted, k)
		}},
		{"added past IL-9999", func() {
			k := pick()
			k.ID = fmt.Sprintf("IL-%d", 10000+rng.IntN(100000))
			if at(k.ID) >= 0 {
				return
			}
			k.Summary.EN = "zebrine " + k.Summary.EN
			put(&k)
		}},
		{"added again after a deletion", func() {
			if len(deleted) == 0 {
				return
			}
			k := deleted[len(deleted)-1]
			deleted = deleted[:len(deleted)-1]
			put(&k)
		}},
	}
	for step := 0; step < 2*len(writes); step++ {
		w := writes[step%len(writes)]
		if step >= len(writes) {
			w = writes[rng.IntN(len(writes))]
		}
		w.do()
		fresh, err := search.New(c.Vocab, cases)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := answers(ix), answers(fresh); got != want {
			t.Fatalf("step %d, after %s, the index answers otherwise than one built afresh:\n%s", step, w.name, firstDiff(got, want))
		}
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}

// indexAnswers is what an index answers, written out: searches of every
// kind in both views, with hits, scores, totals, snippets and facets; the
// cases by date; organisations; term counts; a topic; similar cases.
func indexAnswers(t *testing.T, ix *search.Index) string {
	t.Helper()
	queries := []search.Query{
		{Text: "conntrack"}, {Text: "CoreDNS OOM", Lang: "en"}, {Text: "certificate expired webhook", Sort: search.SortNewest},
		{Text: "etcd 메모리", Lang: "ko"}, {Text: "quokkaflux zebrine"}, {Text: "\"DNS\" timeout"},
		{Text: "read udp 10.0.12.7:48213->10.96.0.10:53: i/o timeout"},
		{Filters: map[string][]string{"root_cause": {"config-change", "upgrade"}}},
		{Sort: search.SortOldest, Limit: 20}, {YearFrom: 2020, Text: "outage"},
	}
	var b strings.Builder
	for _, v := range []*search.View{ix.Public(), ix.All()} {
		for _, q := range queries {
			res := mustSearch(t, v, q)
			fmt.Fprintf(&b, "%q %s %v: total %d close %d conf %.6f weak %v notes %q\n", q.Text, q.Sort, q.Filters, res.Total, res.Close, res.Confidence, res.Weak, res.Notes)
			for _, h := range res.Hits {
				fmt.Fprintf(&b, "  %s %.6f %.4f %.4f %s\n", h.Case.ID, h.Score, h.Match, h.Confidence, h.Snippet)
			}
			fmt.Fprintf(&b, "  facets %v\n", res.Facets)
		}
		for _, k := range v.Cases() {
			fmt.Fprintf(&b, "%s ", k.ID)
		}
		fmt.Fprintf(&b, "\norgs %v\nterms %v\n", v.Orgs(), v.TermCounts())
		if tp, err := v.Topic("components:coredns", "en"); err == nil {
			fmt.Fprintf(&b, "topic %d", len(tp.Cases))
			for _, k := range tp.Cases {
				fmt.Fprintf(&b, " %s", k.ID)
			}
			b.WriteByte('\n')
		}
		for _, k := range v.Cases()[:3] {
			sim, err := v.SimilarTo(k.ID, 5)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "similar %s %v\n", k.ID, sim)
		}
	}
	return b.String()
}

// TestEditChangesItsPostingsOnly: a write of a case the index holds changes
// the postings of the terms whose frequency changed, not those of every
// term of the case, so that the write lock, which searches wait for, is
// held for the edit's size. One new word in a summary is one posting; the
// same case written again unchanged is none; the whole case taken out is
// every posting it held. (TestIncrementalMatchesFresh shows that the
// answers are those of a fresh build after every kind of write.)
func TestEditChangesItsPostingsOnly(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := search.New(c.Vocab, c.Cases[:40])
	if err != nil {
		t.Fatal(err)
	}
	k := *c.Cases[7]
	writes := func(do func()) int64 {
		t.Helper()
		before := ix.PostingWrites()
		do()
		return ix.PostingWrites() - before
	}
	upsert := func(k incidentlib.Case) func() {
		return func() {
			if err := ix.Upsert(&k); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := writes(upsert(k)); n != 0 {
		t.Errorf("the case written again unchanged changed %d postings, want 0", n)
	}
	k.Summary.EN += " quokkaflux"
	if n := writes(upsert(k)); n != 1 {
		t.Errorf("one new word in the summary changed %d postings, want 1", n)
	}
	if r, err := ix.Public().Search(search.Query{Text: "quokkaflux"}); err != nil || r.Total != 1 {
		t.Fatalf("the new word finds %v (%v), want the case", r, err)
	}
	n := writes(func() {
		if err := ix.Delete(k.ID); err != nil {
			t.Fatal(err)
		}
	})
	if n < 100 {
		t.Errorf("deleting the case changed %d postings, want every one it held (hundreds)", n)
	}
}
