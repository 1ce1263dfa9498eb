package search_test

import (
	"testing"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib/internal/search"
)

// FuzzSearch feeds arbitrary text to the query parser and the search. It
// must never panic; every answer must be a valid page whose snippets are
// valid UTF-8.
func FuzzSearch(f *testing.F) {
	ix := realIndex(f)
	for _, s := range []string{"", "\"", `"a`, `a "b c" d`, "IL-0049", "conntrack_allowance_exceeded", "롤아웃 중 DNS 오류",
		"\xff\xfe", "\x00", "((", "kube-proxy가", "\"\"\"\"", "E0228 20:13:53.795782 1 proxier.go:610]", "“curly quotes”"} {
		f.Add(s, 5, 0)
	}
	f.Fuzz(func(t *testing.T, q string, limit, offset int) {
		res, err := ix.Public().Search(search.Query{Text: q, Limit: limit % 200, Offset: offset % 300})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if res.Limit < 1 || res.Limit > search.MaxLimit || len(res.Hits) > res.Limit || res.Total < len(res.Hits) {
			t.Fatalf("%q: limit %d, %d hits of %d", q, res.Limit, len(res.Hits), res.Total)
		}
		for _, h := range res.Hits {
			if !utf8.ValidString(h.Snippet) {
				t.Fatalf("%q: snippet is not UTF-8: %q", q, h.Snippet)
			}
		}
		ix.Public().SimilarText(q, 3)
	})
}
