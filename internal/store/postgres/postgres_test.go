package postgres_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/store/pgtest"
	"github.com/incidentlib/incidentlib/internal/store/postgres"
	"github.com/incidentlib/incidentlib/internal/store/storetest"
)

// pg is one cluster for the whole package; each test makes its own database.
var (
	pg    *pgtest.Server
	pgErr error
)

func TestMain(m *testing.M) {
	pg, pgErr = pgtest.Launch()
	code := m.Run()
	if pg != nil {
		pg.Close()
	}
	os.Exit(code)
}

func server(t *testing.T) *pgtest.Server {
	if pgErr == pgtest.ErrNoServer && !pgtest.Required() {
		t.Skip(pgErr)
	}
	if pgErr != nil {
		t.Fatal(pgErr)
	}
	return pg
}

func open(t *testing.T, url string) *postgres.Store {
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestStore(t *testing.T) {
	s := server(t)
	storetest.Run(t, func(t *testing.T) (incidentlib.Store, func() incidentlib.Store) {
		url := s.NewDatabase(t)
		return open(t, url), func() incidentlib.Store { return open(t, url) }
	})
}

// TestReplicasSeedTogether starts several stores on one empty database at
// the same moment: the advisory lock makes exactly one of them insert.
func TestReplicasSeedTogether(t *testing.T) {
	url := server(t).NewDatabase(t)
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]incidentlib.SeedResult, 4)
	errs := make([]error, 4)
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			st, err := postgres.Open(context.Background(), url)
			if err != nil {
				errs[i] = err
				return
			}
			defer st.Close()
			results[i], errs[i] = st.Seed(context.Background(), c.Cases)
		}(i)
	}
	wg.Wait()
	inserted := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("replica %d: %v", i, errs[i])
		}
		inserted += r.Inserted
	}
	if inserted != len(c.Cases) {
		t.Errorf("replicas inserted %d cases in all, want %d (once each)", inserted, len(c.Cases))
	}
}

// TestWatchSeesOtherReplicasWrites: a write through one store reaches the
// other store's watcher, and not its own.
func TestWatchSeesOtherReplicasWrites(t *testing.T) {
	url := server(t).NewDatabase(t)
	a, b := open(t, url), open(t, url)
	defer a.Close()
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gotB := make(chan incidentlib.Change, 10)
	gotA := make(chan incidentlib.Change, 10)
	listening := make(chan bool, 2)
	// An empty change says the watch listens (and the caller should
	// reload); every other change is another replica's write.
	watch := func(st *postgres.Store, got chan incidentlib.Change) {
		st.Watch(ctx, func(ch incidentlib.Change) {
			if ch.ID == "" {
				listening <- true
				return
			}
			got <- ch
		})
	}
	go watch(b, gotB)
	go watch(a, gotA)
	for i := 0; i < 2; i++ {
		select {
		case <-listening:
		case <-time.After(5 * time.Second):
			t.Fatal("the watchers did not start listening")
		}
	}
	c, _ := corpus.LoadEmbedded()
	k := *c.Cases[0]
	k.ID = "IL-9555"
	if _, err := a.Put(ctx, &k); err != nil {
		t.Fatal(err)
	}
	select {
	case ch := <-gotB:
		if ch.ID != "IL-9555" || ch.Deleted {
			t.Errorf("notice: %+v", ch)
		}
	case <-time.After(time.Second):
		t.Fatal("the other store heard nothing within a second")
	}
	if err := a.Delete(ctx, "IL-9555"); err != nil {
		t.Fatal(err)
	}
	select {
	case ch := <-gotB:
		if ch.ID != "IL-9555" || !ch.Deleted {
			t.Errorf("delete notice: %+v", ch)
		}
	case <-time.After(time.Second):
		t.Fatal("no delete notice within a second")
	}
	select {
	case ch := <-gotA:
		t.Errorf("a store heard its own write: %+v", ch)
	case <-time.After(200 * time.Millisecond):
	}
}

func TestOpenErrorsHidePassword(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://user:hunter2@127.0.0.1:1/db?connect_timeout=1")
	if err == nil {
		t.Fatal("connecting to a closed port succeeded")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the error shows the password: %v", err)
	}
	if _, err := postgres.Open(context.Background(), "not a url"); err == nil {
		t.Error("a malformed URL was accepted")
	}
}
