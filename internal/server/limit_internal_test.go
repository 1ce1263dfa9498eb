package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestLimitConcurrency: with n calls in flight, the next one is answered
// 503 with Retry-After and a JSON-RPC error; once one finishes, calls go
// through again.
func TestLimitConcurrency(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	h := limitConcurrency(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started.Done()
		<-release
		w.WriteHeader(http.StatusNoContent)
	}), 2)
	var done sync.WaitGroup
	for i := 0; i < 2; i++ {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/mcp", nil))
		}()
	}
	started.Wait()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil))
	var body struct {
		JSONRPC string `json:"jsonrpc"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != 503 || rec.Header().Get("Retry-After") == "" || body.JSONRPC != "2.0" || body.Error.Code == 0 {
		t.Fatalf("a call over the bound: %d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	close(release)
	done.Wait()
	started.Add(1)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil))
	if rec.Code != http.StatusNoContent {
		t.Errorf("after the calls finished: %d", rec.Code)
	}
}
