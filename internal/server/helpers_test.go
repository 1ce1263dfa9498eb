package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/server"
	"github.com/incidentlib/incidentlib/internal/store/sqlite"
)

const testToken = "s3cret-test-token"

type testServer struct {
	*httptest.Server
	srv *server.Server
	db  string
}

func newServer(t testing.TB, mutate func(*server.Config)) *testServer {
	t.Helper()
	ctx := context.Background()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "test.db")
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Token = testToken
	cfg.RateLimit = 0
	cfg.BaseURL = "http://incidentlib.test"
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := server.New(ctx, cfg, st, c, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return &testServer{Server: ts, srv: srv, db: db}
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("not JSON (%d): %.300s", r.status, r.body)
	}
	return m
}

func (ts *testServer) do(t *testing.T, method, path string, body string, headers ...string) resp {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{res.StatusCode, res.Header, b}
}

func (ts *testServer) get(t *testing.T, path string, headers ...string) resp {
	return ts.do(t, "GET", path, "", headers...)
}

func auth() []string { return []string{"Authorization", "Bearer " + testToken} }

// reviewedInCorpus counts the cases of the embedded corpus that a person
// has reviewed, so that tests assert what the data says.
func reviewedInCorpus(t testing.TB) int {
	t.Helper()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, k := range c.Cases {
		if k.Reviewed() {
			n++
		}
	}
	return n
}

// unreviewedInCorpus returns the first case of the embedded corpus that no
// person has reviewed yet.
func unreviewedInCorpus(t testing.TB) string {
	t.Helper()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range c.Cases {
		if !k.Reviewed() {
			return k.ID
		}
	}
	t.Skip("every case of the corpus is reviewed")
	return ""
}
