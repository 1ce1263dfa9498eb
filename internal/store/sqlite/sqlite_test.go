package sqlite_test

import (
	"context"
	"path/filepath"
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
