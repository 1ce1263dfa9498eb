package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkAPISearch measures one search through the whole handler stack
// (middleware, API, index, JSON), without a network.
func BenchmarkAPISearch(b *testing.B) {
	ts := newServer(b, nil)
	h := ts.srv.Handler()
	queries := []string{"/api/cases?q=kube-apiserver+OOM", "/api/cases?q=conntrack_allowance_exceeded", "/api/cases?q=webhook+timeout&components=admission-webhook"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodGet, queries[i%len(queries)], nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkAPISearchJudged runs the judged relevance queries (Korean,
// English, pasted evidence) through the whole handler stack, each in a few
// forms an agent or a page sends, so that no handful of repeated queries
// dominates.
func BenchmarkAPISearchJudged(b *testing.B) {
	ts := newServer(b, nil)
	h := ts.srv.Handler()
	urls := judgedURLs(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodGet, urls[i%len(urls)], nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(urls[i%len(urls)], w.Code, w.Body.String())
		}
	}
}
