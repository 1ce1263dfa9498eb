package library

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/store/sqlite"
)

// TestSnapshotAcrossStarts: on a SQLite file, the first start builds the
// index and writes its snapshot; the next start loads it and answers the
// same; a write makes Close write it again, and the start after sees the
// write from the snapshot; a write made behind the server's back (another
// process on the file) makes the snapshot stale, so the next start builds
// the index and finds that write; a damaged snapshot is never loaded.
func TestSnapshotAcrossStarts(t *testing.T) {
	ctx := context.Background()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db, snap := filepath.Join(dir, "lib.db"), filepath.Join(dir, "lib.db.index")
	start := func(want string) (*Library, func()) {
		t.Helper()
		st, err := sqlite.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		l, _, err := OpenSnapshot(ctx, st, c, slog.New(slog.NewTextHandler(&log, nil)), snap)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(log.String(), want) {
			t.Fatalf("start: the log lacks %q:\n%s", want, log.String())
		}
		return l, func() {
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			st.Close()
		}
	}
	answer := func(l *Library, q string) string {
		res, err := l.Public().Search(search.Query{Text: q, Limit: 20, NoFacets: true})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, h := range res.Hits {
			b.WriteString(h.Case.ID + " ")
		}
		return b.String()
	}
	l, stop := start("")
	if !strings.Contains(answer(l, "conntrack"), "IL-") {
		t.Fatal("no answer")
	}
	built := answer(l, "coredns timeout")
	stop()
	if _, err := os.Stat(snap); err != nil {
		t.Fatalf("no snapshot after the first start: %v", err)
	}
	l, stop = start("index loaded from its snapshot")
	if got := answer(l, "coredns timeout"); got != built {
		t.Fatalf("loaded index answers %s, built %s", got, built)
	}
	k := *l.All().Case("IL-0049")
	k.Summary.EN = "quokkaflux " + k.Summary.EN
	if _, err := l.Put(ctx, &k); err != nil {
		t.Fatal(err)
	}
	stop()
	l, stop = start("index loaded from its snapshot")
	if got := answer(l, "quokkaflux"); got != "IL-0049 " {
		t.Fatalf("after a write and a restart: %q, want IL-0049", got)
	}
	stop()
	// Another process writes to the file.
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	k.Summary.EN = "zebrine " + k.Summary.EN
	if _, err := st.Put(ctx, &k); err != nil {
		t.Fatal(err)
	}
	st.Close()
	l, stop = start("case IL-0049 changed")
	if got := answer(l, "zebrine"); got != "IL-0049 " {
		t.Fatalf("after a write behind the server: %q, want IL-0049", got)
	}
	stop()
	// A damaged snapshot.
	b, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snap, b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	l, stop = start("index snapshot not used")
	if got := answer(l, "zebrine"); got != "IL-0049 " {
		t.Fatalf("after a damaged snapshot: %q, want IL-0049", got)
	}
	stop()
}
