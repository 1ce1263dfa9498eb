package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/server"
	"github.com/incidentlib/incidentlib/internal/store/sqlite"
)

// TestHandlerFirstUseConcurrent: goroutines that ask for the handler at
// once get one handler built once (the race detector sees a lazy build
// without a lock), and it serves.
func TestHandlerFirstUseConcurrent(t *testing.T) {
	ctx := context.Background()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.RateLimit = 0
	srv, err := server.New(ctx, cfg, st, c, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var wg sync.WaitGroup
	hs := make([]http.Handler, 8)
	for i := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs[i] = srv.Handler()
		}()
	}
	wg.Wait()
	for i, h := range hs {
		if h == nil {
			t.Fatalf("goroutine %d got no handler", i)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		if rec.Code != http.StatusOK {
			t.Errorf("goroutine %d: /healthz = %d", i, rec.Code)
		}
	}
}
