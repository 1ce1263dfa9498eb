// Package storetest is the one test suite every store implementation runs,
// so that SQLite and PostgreSQL behave the same.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// Opener opens a store on an empty database; reopen opens the same
// database again (to test migrations and durability).
type Opener func(t *testing.T) (st incidentlib.Store, reopen func() incidentlib.Store)

func sample(t *testing.T) []*incidentlib.Case {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	return c.Cases
}

func clone(c *incidentlib.Case) *incidentlib.Case {
	cp := *c
	return &cp
}

// Run runs the suite.
func Run(t *testing.T, open Opener) {
	spentKeys(t, open)
	corrections(t, open)
	correctionQueue(t, open)
	seedAndRead(t, open)
	seedOver(t, open)
	caseWrites(t, open)
	putAll(t, open)
	concurrentWrites(t, open)
}

// spentKeys tests the keys a store lets be used once (incidentlib.KeyStore).
func spentKeys(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("spent_keys", func(t *testing.T) {
		st, reopen := open(t)
		ks, ok := st.(incidentlib.KeyStore)
		if !ok {
			t.Fatalf("%T keeps no keys that may be used once (incidentlib.KeyStore)", st)
		}
		later := time.Now().Add(time.Hour)
		if spent, err := ks.Spent(ctx, "form:a"); err != nil || spent {
			t.Fatalf("a key never spent reads spent=%v, %v", spent, err)
		}
		if ok, err := ks.Spend(ctx, "form:a", later); err != nil || !ok {
			t.Fatalf("spending a new key: %v, %v", ok, err)
		}
		if ok, err := ks.Spend(ctx, "form:a", later); err != nil || ok {
			t.Fatalf("spending a key twice: the second gave %v, %v", ok, err)
		}
		if spent, err := ks.Spent(ctx, "form:a"); err != nil || !spent {
			t.Fatalf("a spent key reads spent=%v, %v", spent, err)
		}
		if spent, _ := ks.Spent(ctx, "form:b"); spent {
			t.Fatal("another key reads spent")
		}
		// A key that has run out is free again.
		if ok, err := ks.Spend(ctx, "session:x", time.Now().Add(-time.Second)); err != nil || !ok {
			t.Fatalf("spending a key that runs out at once: %v, %v", ok, err)
		}
		if spent, _ := ks.Spent(ctx, "session:x"); spent {
			t.Error("a key that has run out reads spent")
		}
		if ok, err := ks.Spend(ctx, "session:x", later); err != nil || !ok {
			t.Errorf("a key that has run out cannot be spent again: %v, %v", ok, err)
		}
		// Of many spending one key at once, one wins.
		var wg sync.WaitGroup
		var wins atomic.Int32
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if ok, err := ks.Spend(ctx, "form:race", later); err == nil && ok {
					wins.Add(1)
				} else if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if n := wins.Load(); n != 1 {
			t.Errorf("%d of 8 spending one key at once won, want 1", n)
		}
		// Kept across a restart.
		st.Close()
		st = reopen()
		defer st.Close()
		if spent, err := st.(incidentlib.KeyStore).Spent(ctx, "form:a"); err != nil || !spent {
			t.Errorf("after reopening, a spent key reads spent=%v, %v", spent, err)
		}
	})
}

// corrections tests that a store keeps corrections
// (incidentlib.CorrectionStore).
func corrections(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("corrections", func(t *testing.T) {
		st, reopen := open(t)
		cs, ok := st.(incidentlib.CorrectionStore)
		if !ok {
			t.Fatalf("%T does not keep corrections", st)
		}
		var ids []int64
		for i, what := range []string{"the date is 2020-02-29", "the org is misspelt", "a missing action item: monitor conntrack"} {
			id, err := cs.AddCorrection(ctx, &incidentlib.Correction{CaseID: "IL-0049", Field: "summary", What: what, Source: "https://example.com/" + fmt.Sprint(i), Contact: "", Lang: "ko"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		all, err := cs.Corrections(ctx, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 3 || all[0].ID != ids[2] || all[2].ID != ids[0] || all[0].Status != incidentlib.CorrectionOpen || all[0].CreatedAt.IsZero() {
			t.Fatalf("corrections not newest first and open: %+v", all)
		}
		if all[1].What != "the org is misspelt" || all[1].Source != "https://example.com/1" || all[1].CaseID != "IL-0049" {
			t.Errorf("a correction changed in the store: %+v", all[1])
		}
		if err := cs.CloseCorrection(ctx, ids[1], incidentlib.CorrectionResolved, "fixed in the case"); err != nil {
			t.Fatal(err)
		}
		if err := cs.CloseCorrection(ctx, ids[1], incidentlib.CorrectionDismissed, "again"); !errors.Is(err, incidentlib.ErrConflict) {
			t.Errorf("closing a closed correction: %v, want a conflict", err)
		}
		if err := cs.CloseCorrection(ctx, 987654, incidentlib.CorrectionResolved, ""); !errors.Is(err, incidentlib.ErrNotFound) {
			t.Errorf("closing an unknown correction: %v, want not found", err)
		}
		if err := cs.CloseCorrection(ctx, ids[0], "deleted", ""); !errors.Is(err, incidentlib.ErrInvalid) {
			t.Errorf("closing with a made-up status: %v, want invalid", err)
		}
		st.Close()
		st2 := reopen()
		defer st2.Close()
		cs = st2.(incidentlib.CorrectionStore)
		open_, err := cs.Corrections(ctx, incidentlib.CorrectionOpen, 10)
		if err != nil {
			t.Fatal(err)
		}
		resolved, err := cs.Corrections(ctx, incidentlib.CorrectionResolved, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(open_) != 2 || len(resolved) != 1 || resolved[0].Note != "fixed in the case" || resolved[0].ClosedAt == nil {
			t.Errorf("after reopening: %d open, resolved %+v", len(open_), resolved)
		}
		if two, _ := cs.Corrections(ctx, "", 2); len(two) != 2 {
			t.Errorf("limit 2 gave %d", len(two))
		}
		// A submission (an incident the library lacks) keeps its
		// organisation and date.
		sid, err := cs.AddCorrection(ctx, &incidentlib.Correction{Field: incidentlib.SubmissionField, What: "a DNS outage we wrote up", Source: "https://example.org/postmortem", Org: "Example Corp", Date: "2024-03-05", Lang: "en"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := cs.Corrections(ctx, incidentlib.CorrectionOpen, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].ID != sid || got[0].Org != "Example Corp" || got[0].Date != "2024-03-05" || got[0].Field != incidentlib.SubmissionField || got[0].CaseID != "" {
			t.Errorf("a submission came back as %+v", got[0])
		}
		if got[1].Org != "" || got[1].Date != "" {
			t.Errorf("a correction came back with an organisation or date: %+v", got[1])
		}
	})
}

// correctionQueue tests the queue of corrections a store keeps.
func correctionQueue(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("correction_queue", func(t *testing.T) {
		st, _ := open(t)
		defer st.Close()
		cs := st.(incidentlib.CorrectionStore)
		// What the reader sends cannot open a correction already closed,
		// with a note, nor date it.
		then := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
		id, err := cs.AddCorrection(ctx, &incidentlib.Correction{ID: 77, CaseID: "IL-0049", Field: "timeline", What: "the outage began an hour earlier", Source: "a status page",
			Status: incidentlib.CorrectionResolved, Note: "not the reader's", CreatedAt: then, ClosedAt: &then})
		if err != nil {
			t.Fatal(err)
		}
		got, err := cs.Corrections(ctx, "", 10)
		if err != nil || len(got) != 1 {
			t.Fatalf("one correction added, listed %v, %v", got, err)
		}
		if c := got[0]; c.ID != id || c.Status != incidentlib.CorrectionOpen || c.Note != "" || c.ClosedAt != nil || c.CreatedAt.Year() < 2020 {
			t.Errorf("a correction kept what the reader set instead of opening fresh: %+v (id %d)", c, id)
		}
		if loc := got[0].CreatedAt.Location(); loc != time.UTC {
			t.Errorf("created_at comes back in %v, want UTC", loc)
		}
		// Of many closing one correction at once, one wins and the others
		// are told it is already closed.
		var wg sync.WaitGroup
		var wins, conflicts atomic.Int32
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				status := []string{incidentlib.CorrectionResolved, incidentlib.CorrectionDismissed}[i%2]
				switch err := cs.CloseCorrection(ctx, id, status, fmt.Sprint("editor ", i)); {
				case err == nil:
					wins.Add(1)
				case errors.Is(err, incidentlib.ErrConflict):
					conflicts.Add(1)
				default:
					t.Error(err)
				}
			}(i)
		}
		wg.Wait()
		if wins.Load() != 1 || conflicts.Load() != 7 {
			t.Errorf("8 closing one correction at once: %d won, %d conflicts; want 1 and 7", wins.Load(), conflicts.Load())
		}
		closed, err := cs.Corrections(ctx, "", 10)
		if err != nil || len(closed) != 1 {
			t.Fatalf("after closing: %v, %v", closed, err)
		}
		if c := closed[0]; c.Status == incidentlib.CorrectionOpen || !strings.HasPrefix(c.Note, "editor ") || c.ClosedAt == nil || c.ClosedAt.Location() != time.UTC {
			t.Errorf("the closed correction: %+v", c)
		}
		if none, err := cs.Corrections(ctx, incidentlib.CorrectionOpen, 10); err != nil || none == nil || len(none) != 0 {
			t.Errorf("no open corrections listed as %#v, %v; want an empty list", none, err)
		}
		// No limit means the default, not everything and not nothing.
		for i := 0; i < 105; i++ {
			if _, err := cs.AddCorrection(ctx, &incidentlib.Correction{CaseID: "IL-0001", Field: "summary", What: fmt.Sprint("correction number ", i), Source: "x"}); err != nil {
				t.Fatal(err)
			}
		}
		for _, limit := range []int{0, -1} {
			if all, err := cs.Corrections(ctx, "", limit); err != nil || len(all) != 100 {
				t.Errorf("limit %d listed %d, %v; want the default 100", limit, len(all), err)
			}
		}
	})
}

// seedAndRead tests seeding an empty store and reading the cases back.
func seedAndRead(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("seed_then_read", func(t *testing.T) {
		st, reopen := open(t)
		cases := sample(t)
		r, err := st.Seed(ctx, cases)
		if err != nil {
			t.Fatal(err)
		}
		if r.Inserted != len(cases) || r.Upgraded != 0 {
			t.Fatalf("first seed: %+v", r)
		}
		got, err := st.Cases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(cases) {
			t.Fatalf("%d cases back, want %d", len(got), len(cases))
		}
		want := clone(cases[0])
		one, err := st.Case(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		// Digest is the store's checksum of what it holds, not a part of
		// the case (a store may give none).
		if diff := cmp.Diff(want, one, cmpopts.IgnoreFields(incidentlib.Case{}, "Digest")); diff != "" {
			t.Errorf("case changed in the store (-want +got):\n%s", diff)
		}
		st.Close()
		st2 := reopen()
		defer st2.Close()
		r, err = st2.Seed(ctx, cases)
		if err != nil {
			t.Fatal(err)
		}
		if r.Inserted != 0 || r.Upgraded != 0 || r.Unchanged != len(cases) {
			t.Errorf("second seed after reopening: %+v", r)
		}
	})
}

// seedOver tests seeding a store that holds cases: only newer corpus
// cases replace theirs, and private cases are never touched.
func seedOver(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("seed_upgrades_only_newer_corpus_cases", func(t *testing.T) {
		st, _ := open(t)
		defer st.Close()
		cases := sample(t)[:4]
		if _, err := st.Seed(ctx, cases); err != nil {
			t.Fatal(err)
		}
		// Case 1 is edited through the API and case 2 deleted; cases 0
		// and 3 are left alone, so only they take the newer corpus copy.
		edited := clone(cases[1])
		edited.Title.EN = "edited by hand"
		edited.UpdatedAt = "2026-12-01T00:00:00Z"
		if _, err := st.Put(ctx, edited); err != nil {
			t.Fatal(err)
		}
		if err := st.Delete(ctx, cases[2].ID); err != nil {
			t.Fatal(err)
		}
		next := make([]*incidentlib.Case, 4)
		for i, c := range cases {
			n := clone(c)
			n.Title.EN = "newer corpus copy"
			n.UpdatedAt = "2027-01-01T00:00:00Z"
			next[i] = n
		}
		r, err := st.Seed(ctx, next)
		if err != nil {
			t.Fatal(err)
		}
		if r.Upgraded != 2 || r.Unchanged != 2 {
			// 0 and 3 upgrade; 1 (edited) and 2 (deleted) stay.
			t.Errorf("seed: %+v", r)
		}
		for _, i := range []int{0, 3} {
			if c, err := st.Case(ctx, cases[i].ID); err != nil || c.Title.EN != "newer corpus copy" {
				t.Errorf("case %d of the sample, a newer corpus case, was not upgraded: %v", i, err)
			}
		}
		if c, _ := st.Case(ctx, cases[1].ID); c.Title.EN != "edited by hand" {
			t.Errorf("seeding overwrote an edit: %q", c.Title.EN)
		}
		if _, err := st.Case(ctx, cases[2].ID); !errors.Is(err, incidentlib.ErrNotFound) {
			t.Errorf("seeding brought back a deleted case: %v", err)
		}
		older := clone(next[0])
		older.UpdatedAt = "2020-01-01T00:00:00Z"
		older.Title.EN = "older"
		if r, _ := st.Seed(ctx, []*incidentlib.Case{older}); r.Upgraded != 0 {
			t.Errorf("an older corpus copy replaced a newer one")
		}
	})
	t.Run("seed_never_touches_private", func(t *testing.T) {
		st, _ := open(t)
		defer st.Close()
		c := clone(sample(t)[0])
		c.Private = true
		c.Title.EN = "private"
		if _, err := st.Put(ctx, c); err != nil {
			t.Fatal(err)
		}
		pub := clone(sample(t)[0])
		pub.UpdatedAt = "2030-01-01T00:00:00Z"
		if _, err := st.Seed(ctx, []*incidentlib.Case{pub}); err != nil {
			t.Fatal(err)
		}
		got, _ := st.Case(ctx, c.ID)
		if !got.Private || got.Title.EN != "private" {
			t.Errorf("seeding touched a private case: %+v", got.Title)
		}
	})
}

// caseWrites tests putting, reading and deleting cases, and ids past
// IL-9999 in number order.
func caseWrites(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("put_get_delete", func(t *testing.T) {
		st, reopen := open(t)
		c := clone(sample(t)[0])
		c.ID = "IL-9990"
		created, err := st.Put(ctx, c)
		if err != nil || !created {
			t.Fatalf("put: %v %v", created, err)
		}
		c.Title.KO = "바뀐 제목"
		if created, err := st.Put(ctx, c); err != nil || created {
			t.Fatalf("replace: %v %v", created, err)
		}
		st.Close()
		st = reopen()
		defer st.Close()
		got, err := st.Case(ctx, "IL-9990")
		if err != nil || got.Title.KO != "바뀐 제목" {
			t.Fatalf("after reopen: %v %v", err, got)
		}
		if err := st.Delete(ctx, "IL-9990"); err != nil {
			t.Fatal(err)
		}
		if err := st.Delete(ctx, "IL-9990"); !errors.Is(err, incidentlib.ErrNotFound) {
			t.Errorf("second delete: %v", err)
		}
		if _, err := st.Case(ctx, "IL-9990"); !errors.Is(err, incidentlib.ErrNotFound) {
			t.Errorf("deleted case: %v", err)
		}
		if created, _ := st.Put(ctx, c); !created {
			t.Errorf("writing a deleted case again does not count as a new case")
		}
		if err := st.Ping(ctx); err != nil {
			t.Error(err)
		}
	})
	t.Run("ids_past_9999_in_number_order", func(t *testing.T) {
		st, _ := open(t)
		defer st.Close()
		base := sample(t)[0]
		for _, id := range []string{"IL-10000", "IL-9999", "IL-123456", "IL-0100"} {
			c := clone(base)
			c.ID = id
			if _, err := st.Put(ctx, c); err != nil {
				t.Fatalf("put %s: %v", id, err)
			}
		}
		got, err := st.Cases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range got {
			ids = append(ids, c.ID)
		}
		if want := []string{"IL-0100", "IL-9999", "IL-10000", "IL-123456"}; !slices.Equal(ids, want) {
			t.Errorf("Cases in order %q, want %q (by number, not byte order)", ids, want)
		}
	})
}

// putAll tests that putting several cases is all or nothing.
func putAll(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("put_all_is_all_or_nothing", func(t *testing.T) {
		st, reopen := open(t)
		bw, ok := st.(incidentlib.BulkWriter)
		if !ok {
			t.Fatalf("%T cannot write many cases at once (incidentlib.BulkWriter)", st)
		}
		base := sample(t)[0]
		if _, err := st.Put(ctx, clone(base)); err != nil {
			t.Fatal(err)
		}
		batch := func(from, n int, marker string) []*incidentlib.Case {
			var out []*incidentlib.Case
			for i := 0; i < n; i++ {
				c := clone(base)
				c.ID = fmt.Sprintf("IL-%d", from+i)
				c.Title.EN = marker + " " + c.Title.EN
				out = append(out, c)
			}
			return out
		}
		// Cut off half-way: not one of the cases stays.
		cctx, cancel := context.WithCancel(ctx)
		var calls []int
		_, err := bw.PutAll(cctx, batch(20000, 1200, "cut"), func(done int) {
			calls = append(calls, done)
			if done >= 500 {
				cancel()
			}
		})
		cancel()
		if err == nil {
			t.Fatal("PutAll with its context cancelled half-way gave no error")
		}
		if _, err := st.Case(ctx, "IL-20000"); !errors.Is(err, incidentlib.ErrNotFound) {
			t.Fatalf("after a PutAll that failed half-way, its first case is there (%v)", err)
		}
		// Whole: every case, the new ones counted, a replaced one not.
		all := append(batch(30000, 1200, "whole"), clone(base))
		created, err := bw.PutAll(ctx, all, func(done int) { calls = append(calls, done) })
		if err != nil || created != 1200 {
			t.Fatalf("PutAll: created %d, %v; want 1200 new (and %s replaced)", created, err, base.ID)
		}
		if last := calls[len(calls)-1]; last != len(all) {
			t.Errorf("the last progress call says %d of %d", last, len(all))
		}
		st.Close()
		st = reopen()
		defer st.Close()
		got, err := st.Cases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range got {
			if strings.HasPrefix(c.Title.EN, "whole ") {
				n++
			}
			if strings.HasPrefix(c.Title.EN, "cut ") {
				t.Fatalf("%s of the failed PutAll was kept", c.ID)
			}
		}
		if n != 1200 {
			t.Errorf("%d of the 1200 cases written by PutAll are there after reopening", n)
		}
	})
}

// concurrentWrites tests writes from many goroutines at once.
func concurrentWrites(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("concurrent_writes", func(t *testing.T) {
		st, _ := open(t)
		defer st.Close()
		base := sample(t)[0]
		var wg sync.WaitGroup
		errs := make(chan error, 40)
		for i := 0; i < 40; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				c := clone(base)
				c.ID = fmt.Sprintf("IL-98%02d", i)
				if _, err := st.Put(ctx, c); err != nil {
					errs <- err
				}
			}(i)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		all, _ := st.Cases(ctx)
		if len(all) != 40 {
			t.Errorf("%d cases after 40 concurrent writes", len(all))
		}
	})
}
