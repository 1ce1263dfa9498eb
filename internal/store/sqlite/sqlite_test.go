package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/store/sqlite"
	"github.com/incidentlib/incidentlib/internal/store/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (incidentlib.Store, func() incidentlib.Store) {
		path := filepath.Join(t.TempDir(), "cases.db")
		open := func() incidentlib.Store {
			st, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		return open(), open
	})
}

func TestMigrationsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	for i := 0; i < 3; i++ {
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		st.Close()
	}
}

func TestOpenBadPath(t *testing.T) {
	if _, err := sqlite.Open(context.Background(), "/proc/no/such/dir/x.db"); err == nil {
		t.Fatal("opening a database in an impossible place succeeded")
	}
}

// TestPathWithURICharacters: a database path holding characters that mean
// something in a URI (?, #, %, a space) opens exactly that file, and the
// pragmas still apply.
func TestPathWithURICharacters(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "odd ? # % dir")
	path := filepath.Join(dir, "my db?x=1#frag.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddCorrection(ctx, &incidentlib.Correction{CaseID: "IL-0049", Field: "summary", What: "kept in the odd path", Source: "x"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not at its path: %v", err)
	}
	if _, err := os.Stat(path + "-wal"); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "my db?x=1#frag.db") {
			t.Errorf("a stray file %q beside the database", e.Name())
		}
	}
	st2, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	got, err := st2.Corrections(ctx, "", 10)
	if err != nil || len(got) != 1 {
		t.Fatalf("reopened: %v %v", got, err)
	}
}
