package search

import (
	"bufio"
	"net/url"
	"os"
	"testing"
)

func BenchmarkZZLoad(b *testing.B) {
	f, err := os.Open("/tmp/lq/paths.txt")
	if err != nil {
		b.Skip()
	}
	var qs []Query
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		u, _ := url.Parse(sc.Text())
		v := u.Query()
		q := Query{Text: v.Get("q"), Lang: v.Get("lang"), Sort: v.Get("sort"), Limit: 20}
		if v.Get("limit") == "5" {
			q.Limit = 5
		}
		if d := v.Get("domain"); d != "" {
			q.Filters = map[string][]string{"domain": {d}}
		}
		qs = append(qs, q)
	}
	ix := corpusIndex(&testing.T{})
	for _, q := range qs {
		if _, err := ix.Search(q); err != nil {
			b.Fatal(q, err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ix.Search(qs[i%len(qs)])
	}
}
