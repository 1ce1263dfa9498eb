package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/server"
	"github.com/incidentlib/incidentlib/internal/store/pgtest"
	"github.com/incidentlib/incidentlib/internal/store/postgres"
)

// replica starts a server on a PostgreSQL database that follows the others.
func replica(t *testing.T, url string) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	st, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Token, cfg.RateLimit, cfg.BaseURL = testToken, 0, "http://incidentlib.test"
	srv, err := server.New(ctx, cfg, st, c, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv.Follow(ctx)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { cancel(); ts.Close(); srv.Close() })
	return &testServer{Server: ts, srv: srv}
}

// waitFor polls until cond holds or a second passes; it returns how long it took.
func waitFor(t *testing.T, within time.Duration, cond func() bool) (time.Duration, bool) {
	t0 := time.Now()
	for time.Since(t0) < within {
		if cond() {
			return time.Since(t0), true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(t0), false
}

// TestReplicasSeeEachOthersWrites runs two servers on one PostgreSQL
// database: a write on either reaches the other's index within a second.
func TestReplicasSeeEachOthersWrites(t *testing.T) {
	pg := pgtest.Start(t)
	url := pg.NewDatabase(t)
	a, b := replica(t, url), replica(t, url)
	time.Sleep(200 * time.Millisecond) // both listening
	if n := b.srv.Library().All().Len(); n != a.srv.Library().All().Len() || n < 80 {
		t.Fatalf("replicas hold %d and %d cases", a.srv.Library().All().Len(), n)
	}
	body := caseJSON(t, a, "IL-9101", "platypusnebula")
	if r := a.do(t, "PUT", "/api/cases/IL-9101", body, auth()...); r.status != 201 {
		t.Fatalf("write on A: %d %s", r.status, r.body)
	}
	took, ok := waitFor(t, time.Second, func() bool { return b.get(t, "/api/cases?q=platypusnebula").json(t)["total"].(float64) == 1 })
	if !ok {
		t.Fatal("B did not see A's write within a second")
	}
	t.Logf("A's write reached B's index in %v", took)
	if r := b.do(t, "DELETE", "/api/cases/IL-9101", "", auth()...); r.status != 204 {
		t.Fatalf("delete on B: %d", r.status)
	}
	if _, ok := waitFor(t, time.Second, func() bool { return a.get(t, "/api/cases/IL-9101").status == 404 }); !ok {
		t.Fatal("A did not see B's delete within a second")
	}
	if r := b.do(t, "POST", "/api/cases/IL-0049/review", `{"reviewed_by":"A. Reviewer"}`, auth()...); r.status != 200 {
		t.Fatalf("review on B: %d", r.status)
	}
	if _, ok := waitFor(t, time.Second, func() bool {
		rv, _ := a.get(t, "/api/cases/IL-0049").json(t)["review"].(map[string]any)
		return rv["reviewed_by"] == "A. Reviewer"
	}); !ok {
		t.Fatal("A did not see B's review within a second")
	}
}

// TestPostgresRestartUnderLoad restarts PostgreSQL while clients read:
// reads keep being answered from the index, /readyz reports the database
// away, writes fail with a clear 503, and everything recovers without
// restarting the servers (including the change notices between replicas).
func TestPostgresRestartUnderLoad(t *testing.T) {
	pg := pgtest.Start(t)
	url := pg.NewDatabase(t)
	a, b := replica(t, url), replica(t, url)
	time.Sleep(200 * time.Millisecond)
	var ok, bad atomic.Int64
	var failures sync.Map
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			paths := []string{"/api/cases/IL-0049", "/api/cases?q=conntrack", "/api/cases/IL-0195/similar", "/api/topics/coredns"}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				res, err := a.Client().Get(a.URL + paths[i%len(paths)])
				if err != nil || res.StatusCode != 200 {
					bad.Add(1)
					failures.Store(paths[i%len(paths)], true)
				} else {
					ok.Add(1)
				}
				if res != nil {
					res.Body.Close()
				}
			}
		}(w)
	}
	time.Sleep(200 * time.Millisecond)
	pg.StopServer(t)
	// While the database is away.
	if m := a.get(t, "/readyz").json(t); m["database"] != "down" {
		t.Errorf("/readyz while PostgreSQL is down: %v", m)
	}
	r := a.do(t, "PUT", "/api/cases/IL-9102", caseJSON(t, a, "IL-9102", "x"), auth()...)
	if r.status != http.StatusServiceUnavailable || !strings.Contains(string(r.body), `"unavailable"`) {
		t.Errorf("a write while PostgreSQL is down: %d %s", r.status, r.body)
	}
	time.Sleep(300 * time.Millisecond)
	pg.StartServer(t)
	if _, up := waitFor(t, 10*time.Second, func() bool { return a.get(t, "/readyz").json(t)["database"] == "up" }); !up {
		t.Fatal("/readyz does not report the database back")
	}
	close(stop)
	wg.Wait()
	t.Logf("reads during the restart: %d answered, %d failed", ok.Load(), bad.Load())
	failures.Range(func(k, _ any) bool { t.Errorf("a read failed during the restart: %v", k); return true })
	// Writes work again, and B's watcher has reconnected.
	var status int
	waitFor(t, 5*time.Second, func() bool {
		status = a.do(t, "PUT", "/api/cases/IL-9103", caseJSON(t, a, "IL-9103", "echidnaflare"), auth()...).status
		return status == 201 || status == 200
	})
	if status != 201 && status != 200 {
		t.Fatalf("writes do not recover: %d", status)
	}
	if _, ok := waitFor(t, 3*time.Second, func() bool { return b.get(t, "/api/cases?q=echidnaflare").json(t)["total"].(float64) == 1 }); !ok {
		t.Fatal("B does not see writes after the restart")
	}
}

// TestTwoServeProcessesOnPostgres runs the real binary twice on one
// database: both serve the corpus, and a write on one is seen by the other
// within a second.
func TestTwoServeProcessesOnPostgres(t *testing.T) {
	binary(t) // build first (or skip with -short) outside the goroutines
	pg := pgtest.Start(t)
	url := pg.NewDatabase(t)
	var procs [2]*proc
	var wg sync.WaitGroup
	for i := range procs {
		wg.Add(1)
		go func(i int) { defer wg.Done(); procs[i] = startServe(t, "", "--database-url", url) }(i)
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow() // a start failed in its goroutine, which only that goroutine left
	}
	get := func(p *proc, path string) (int, string) {
		res, err := http.Get("http://" + p.addr + path)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := res.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return res.StatusCode, b.String()
	}
	for _, p := range procs {
		if code, _ := get(p, "/api/cases/IL-0049"); code != 200 {
			t.Fatalf("a replica does not serve IL-0049: %d", code)
		}
	}
	ts := &testServer{Server: &httptest.Server{URL: "http://" + procs[0].addr}}
	_, body := get(procs[0], "/api/cases/IL-0049")
	body = strings.Replace(body, `"id":"IL-0049"`, `"id":"IL-9201"`, 1)
	body = strings.Replace(body, `"related":[`, `"related":["IL-0049",`, 1)
	body = strings.Replace(body, `"title":{"en":"`, `"title":{"en":"wallabyprism `, 1)
	status, err := putCase(http.DefaultClient, procs[0].addr, "IL-9201", body)
	if err != nil || status != 201 {
		t.Fatalf("write on the first process: %d %v", status, err)
	}
	_ = ts
	took, ok := waitFor(t, time.Second, func() bool {
		code, b := get(procs[1], "/api/cases?q=wallabyprism")
		return code == 200 && strings.Contains(b, "IL-9201")
	})
	if !ok {
		time.Sleep(2 * time.Second)
		code, b := get(procs[1], "/api/cases/IL-9201")
		procs[1].mu.Lock()
		logs := procs[1].logs.String()
		procs[1].mu.Unlock()
		procs[0].mu.Lock()
		logs += "---- first process:\n" + procs[0].logs.String()
		procs[0].mu.Unlock()
		t.Fatalf("the second process did not see the write within a second (after 3 s: %d %.100s)\n%s", code, b, logs)
	}
	t.Logf("write seen by the other process after %v", took)
}
