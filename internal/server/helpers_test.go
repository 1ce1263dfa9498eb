package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	ts, err := startServer(mutate, t.Cleanup)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// startServer starts a server on a new SQLite file in a folder of its own,
// seeded from the embedded corpus; cleanup receives what stops it and
// removes the folder.
func startServer(mutate func(*server.Config), cleanup func(func())) (*testServer, error) {
	ctx := context.Background()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "server-test-")
	if err != nil {
		return nil, err
	}
	db := filepath.Join(dir, "test.db")
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
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
		st.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	ts := httptest.NewServer(srv.Handler())
	cleanup(func() { ts.Close(); srv.Close(); os.RemoveAll(dir) })
	return &testServer{Server: ts, srv: srv, db: db}, nil
}

// readOnlyServer returns the server with the default test configuration
// that the tests which never change the library share: built once for the
// package, as building one (seeding its database, indexing the corpus)
// costs seconds under -race. A test that writes, signs in or needs another
// configuration takes newServer.
func readOnlyServer(t *testing.T) *testServer {
	t.Helper()
	shared.once.Do(func() {
		shared.ts, shared.err = startServer(nil, func(cleanup func()) { shared.cleanup = cleanup })
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.ts
}

var shared struct {
	once    sync.Once
	ts      *testServer
	err     error
	cleanup func()
}

// TestMain closes the shared server after the package's tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cleanup != nil {
		shared.cleanup()
	}
	os.Exit(code)
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
