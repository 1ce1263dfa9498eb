package search_test

import (
	"runtime"
	"runtime/debug"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/synth"
)

// synthetic returns the real corpus with n-len(real) synthetic cases drawn
// from it (internal/synth: each real case's texts with a fifth of their
// words drawn anew from the corpus and a few invented, its own id, date and
// often organisation), so that the index has realistic term statistics and
// growing posting lists at any size. n 0 is the real corpus alone.
func synthetic(b testing.TB, n int) (*incidentlib.Vocab, []*incidentlib.Case) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		b.Fatal(err)
	}
	if n <= len(c.Cases) {
		return c.Vocab, c.Cases
	}
	g := synth.New(c.Cases, n-len(c.Cases), synth.Options{Seed: 1})
	out := append([]*incidentlib.Case{}, c.Cases...)
	for len(out) < n {
		out = append(out, g.Next())
	}
	return c.Vocab, out
}

var sizes = []struct {
	name string
	n    int
}{{"real", 0}, {"10x", 10 * realCases}, {"100x", 100 * realCases}}

// realCases is about the real corpus's size: the synthetic corpora are ten
// and a hundred times it.
const realCases = 509

// latencies runs op b.N times and reports the median and 99th percentile.
func latencies(b *testing.B, op func(i int)) {
	d := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		op(i)
		d[i] = time.Since(t0)
	}
	b.StopTimer()
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapMB() float64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

func BenchmarkBuild(b *testing.B) {
	for _, s := range sizes {
		b.Run(s.name, func(b *testing.B) {
			v, cases := synthetic(b, s.n)
			if s.n > 5000 {
				// As serve does while it starts (a large build allocates
				// much short-lived garbage): collect less often.
				defer debug.SetGCPercent(debug.SetGCPercent(400))
			}
			before := heapMB()
			var ix *search.Index
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if ix != nil {
					ix.Close()
				}
				var err error
				if ix, err = search.New(v, cases); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			// CPU time is steadier than wall time on a shared machine.
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(heapMB()-before, "index-MB")
			runtime.KeepAlive(ix)
			runtime.KeepAlive(cases)
			ix.Close()
		})
	}
}

var benchQueries = []string{
	"kube-apiserver OOM", "롤아웃 중 DNS 오류", "conntrack_allowance_exceeded",
	"Failed to delete kube-system/kube-dns:dns endpoint connections",
	"CoreDNS 파드가 줄어든 뒤 일부 서비스의 DNS 가 안 됨", "throttled containers",
	`"PLEG is not healthy"`, "webhook timeout blocked deploys", "인증서가 만료돼 부가 기능이 모두 꺼짐",
}

func benchIndex(b *testing.B, n int) *search.Index {
	v, cases := synthetic(b, n)
	ix, err := search.New(v, cases)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return ix
}

func BenchmarkSearch(b *testing.B) {
	for _, s := range sizes {
		b.Run(s.name, func(b *testing.B) {
			ix := benchIndex(b, s.n)
			latencies(b, func(i int) {
				if _, err := ix.Public().Search(search.Query{Text: benchQueries[i%len(benchQueries)]}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func BenchmarkFilterOnly(b *testing.B) {
	filters := []map[string][]string{
		{"components": {"coredns"}}, {"root_cause": {"capacity-limit"}},
		{"domain": {"kubernetes"}, "symptoms": {"dns-resolution-failures"}},
	}
	for _, s := range sizes {
		b.Run(s.name, func(b *testing.B) {
			ix := benchIndex(b, s.n)
			latencies(b, func(i int) {
				if _, err := ix.Public().Search(search.Query{Filters: filters[i%len(filters)]}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func BenchmarkSimilar(b *testing.B) {
	for _, s := range sizes {
		b.Run(s.name, func(b *testing.B) {
			ix := benchIndex(b, s.n)
			all := ix.Public().Cases()
			latencies(b, func(i int) {
				if _, err := ix.Public().SimilarTo(all[i%len(all)].ID, 10); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkSearchLoadQueries runs, on the real corpus, the searches of the
// load runs (tools/load/queries): every judged and unanswerable query in
// the six forms of the load's paths (plain, lang=en, lang=ko, limit=5,
// domain=kubernetes, sort=date), one after the other, facets included.
func BenchmarkSearchLoadQueries(b *testing.B) {
	var qs []string
	for _, j := range loadRelevance(b) {
		qs = append(qs, j.Q)
	}
	qs = append(qs, loadUnanswerable(b)...)
	var queries []search.Query
	for _, q := range qs {
		queries = append(queries,
			search.Query{Text: q}, search.Query{Text: q, Lang: "en"}, search.Query{Text: q, Lang: "ko"},
			search.Query{Text: q, Limit: 5}, search.Query{Text: q, Filters: map[string][]string{"domain": {"kubernetes"}}},
			search.Query{Text: q, Sort: search.SortNewest})
	}
	ix := realIndex(b)
	defer ix.Close()
	for _, q := range queries { // every page's snippet fields analysed once
		if _, err := ix.Public().Search(q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Public().Search(queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScale runs the load's queries (every judged and unanswerable
// one, as GET /api/cases asks them: relevance, ten hits, no facets) over
// the real corpus and the synthetic ones ten and a hundred times its size,
// and reports the median and 99th percentile of one search, then the
// pasted log lines of testdata/pastes.yaml the same way. The same run at
// each size shows how the cost grows with the corpus.
func BenchmarkScale(b *testing.B) {
	var load, pastes []string
	for _, j := range loadRelevance(b) {
		load = append(load, j.Q)
	}
	load = append(load, loadUnanswerable(b)...)
	for _, p := range readList[pasted](b, "testdata/pastes.yaml") {
		pastes = append(pastes, p.Q)
	}
	for _, s := range sizes {
		// pruned is the search as served (scoreClose); every-holder scores
		// every document that holds a query term and keeps the close ones,
		// the same answers (TestPrunedMatchesExhaustive), side by side on
		// one index, for the load's queries and for the pasted log lines.
		b.Run(s.name, func(b *testing.B) {
			ix := benchIndex(b, s.n)
			for _, set := range []struct {
				name string
				qs   []string
			}{{"", load}, {"pastes-", pastes}} {
				for _, mode := range []struct {
					name string
					q    func(search.Query) search.Query
				}{{"pruned", func(q search.Query) search.Query { return q }}, {"every-holder", search.Exhaustive}} {
					qs := set.qs
					for _, q := range qs { // every page's snippet fields analysed once
						if _, err := ix.Public().Search(mode.q(search.Query{Text: q, NoFacets: true})); err != nil {
							b.Fatal(err)
						}
					}
					b.Run(set.name+mode.name, func(b *testing.B) {
						latencies(b, func(i int) {
							if _, err := ix.Public().Search(mode.q(search.Query{Text: qs[i%len(qs)], NoFacets: true})); err != nil {
								b.Fatal(err)
							}
						})
					})
				}
			}
		})
	}
}
