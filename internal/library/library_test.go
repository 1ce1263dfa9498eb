package library

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/store/sqlite"
)

// openLibrary opens a library on a real SQLite file seeded with the corpus.
func openLibrary(t *testing.T, wrap func(incidentlib.Store) incidentlib.Store) *Library {
	t.Helper()
	ctx := context.Background()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "lib.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var s incidentlib.Store = st
	if wrap != nil {
		s = wrap(st)
	}
	l, _, err := Open(ctx, s, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestMarkReviewedKeepsAConcurrentEdit: a review and an edit of the same
// case at the same time end as one after the other would, never as a review
// of the text the edit replaced. Before MarkReviewed read the case under
// the write lock, the review wrote back the old text and the edit was lost.
func TestMarkReviewedKeepsAConcurrentEdit(t *testing.T) {
	l := openLibrary(t, nil)
	ctx := context.Background()
	const id = "IL-0049"
	for i := range 30 {
		cur := l.ix.All().Case(id)
		if cur == nil {
			t.Fatalf("%s is not in the index", id)
		}
		edit := *cur
		edit.Title.EN = fmt.Sprintf("Edit %d of the title", i)
		edit.Review.ReviewedAt, edit.Review.ReviewedBy = nil, nil
		var wg sync.WaitGroup
		var putErr, markErr error
		wg.Add(2)
		go func() { defer wg.Done(); _, putErr = l.Put(ctx, &edit) }()
		go func() {
			defer wg.Done()
			_, markErr = l.MarkReviewed(ctx, id, "A. Reviewer", time.Date(2026, 11, 30, 0, 0, i, 0, time.UTC))
		}()
		wg.Wait()
		if putErr != nil || markErr != nil {
			t.Fatalf("round %d: put: %v, review: %v", i, putErr, markErr)
		}
		stored, err := l.store.Case(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for where, c := range map[string]*incidentlib.Case{"store": stored, "index": l.ix.All().Case(id)} {
			if c.Title.EN != edit.Title.EN {
				t.Fatalf("round %d: the %s holds title %q (reviewed: %v): the concurrent edit to %q was lost", i, where, c.Title.EN, c.Reviewed(), edit.Title.EN)
			}
		}
	}
}

// lockWatch is a store that records, on every read, whether the library's
// write lock was held: a read that feeds an index update or a write must
// not interleave with another write of this process.
type lockWatch struct {
	incidentlib.Store
	lib      **Library
	mu       sync.Mutex
	unlocked []string
	reads    int
}

func (w *lockWatch) check(what string) {
	l := *w.lib
	if l == nil {
		return // Open's own reads, before any write can run
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reads++
	if l.writeMu.TryLock() {
		l.writeMu.Unlock()
		w.unlocked = append(w.unlocked, what)
	}
}

func (w *lockWatch) Case(ctx context.Context, id string) (*incidentlib.Case, error) {
	w.check("Case(" + id + ")")
	return w.Store.Case(ctx, id)
}

func (w *lockWatch) Cases(ctx context.Context) ([]*incidentlib.Case, error) {
	w.check("Cases")
	return w.Store.Cases(ctx)
}

// TestStoreReadsUnderTheWriteLock: MarkReviewed, and the changes another
// replica made (Apply, Reload), read the store under the write lock, so
// that a local write cannot land between the read and the index update and
// be overwritten there by the older copy.
func TestStoreReadsUnderTheWriteLock(t *testing.T) {
	var lib *Library
	var w *lockWatch
	l := openLibrary(t, func(s incidentlib.Store) incidentlib.Store {
		w = &lockWatch{Store: s, lib: &lib}
		return w
	})
	lib = l
	ctx := context.Background()
	if _, err := l.MarkReviewed(ctx, "IL-0049", "A. Reviewer", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := l.Apply(ctx, incidentlib.Change{ID: "IL-0049"}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, u := range w.unlocked {
		t.Errorf("the store was read without the write lock: %s", u)
	}
	if w.reads < 3 {
		t.Errorf("only %d store reads were seen; MarkReviewed, Apply and Reload each read the store", w.reads)
	}
}
