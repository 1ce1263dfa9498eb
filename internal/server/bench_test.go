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
