// Package library joins the store and the search index: reads come from the
// index, writes go to the store first and then to the index, so that every
// face of the server sees a write as soon as it is answered.
package library

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
)

// Reader is everything the faces (web pages, API, MCP) read. They depend
// on it, not on the store or the index, so one place decides what a read
// is. A Reader is made for one audience (Library.Public, Library.All) and
// shows that audience's cases only: no method takes the audience again, so
// a face holding the public Reader cannot reach a private case or anything
// derived from one (a hit, score, total, facet, topic or count).
type Reader interface {
	// Search runs a query: text, filters, paging and facets.
	Search(q search.Query) (*search.Result, error)
	// Case returns a case by id, or nil (also for a case the audience may
	// not see).
	Case(id string) *incidentlib.Case
	// Cases lists the cases, newest first.
	Cases() []*incidentlib.Case
	// SimilarTo lists the cases most similar to case id, each with its reason.
	SimilarTo(id string, limit int) ([]search.Similar, error)
	// SimilarText lists the cases most similar to free text.
	SimilarText(text string, limit int) []search.Similar
	// Related lists a case's curated and computed relations.
	Related(id string, limit int) ([]search.Similar, error)
	// Topic describes a vocabulary term: its cases, co-occurring terms, years.
	Topic(ref, lang string) (*search.Topic, error)
	// FindTerm resolves a term reference to its vocabulary and term.
	FindTerm(ref string) (string, *incidentlib.Term)
	// Vocab is the controlled vocabulary.
	Vocab() *incidentlib.Vocab
	// Orgs lists the organisations with their slugs and case counts.
	Orgs() []search.OrgCount
	// Len counts the cases.
	Len() int
	// TermCounts is, for every vocabulary, how many of the cases carry
	// each term, as the index keeps them.
	TermCounts() map[string]map[string]int
	// Generation counts the index's changes, private ones included: a
	// key for caches of what the Reader shows, never to be shown itself
	// (it would tell a public reader that private cases changed).
	Generation() uint64
	// Private reports whether the Reader shows private cases: false for
	// Library.Public. The faces that must only ever be public (the pages,
	// MCP) refuse a Reader that does.
	Private() bool
}

// Writer is every change the faces make.
type Writer interface {
	// Put validates and stores a case; it reports whether the case is new.
	Put(ctx context.Context, c *incidentlib.Case) (bool, error)
	// Delete removes a case.
	Delete(ctx context.Context, id string) error
	// MarkReviewed records that a person checked the case against its sources.
	MarkReviewed(ctx context.Context, id, by string, at time.Time) (*incidentlib.Case, error)
	// Corrections is where readers' corrections go, or nil when the store
	// keeps none.
	Corrections() incidentlib.CorrectionStore
}

var (
	_ Writer = (*Library)(nil)
	// A View of the index alone is a Reader too: read-only uses (the
	// command line, page tests) need no store.
	_ Reader = (*search.View)(nil)
)

// Library is the running site's collection of cases.
type Library struct {
	store incidentlib.Store
	ix    *search.Index
	vocab *incidentlib.Vocab
	log   *slog.Logger
	// writeMu orders writes within this process so that a write's index
	// update cannot overtake a later one's. Whatever reads a case to write
	// it back (MarkReviewed) or to index it (Apply, Reload) holds it from
	// the read to the index update, so no write lands in between and is
	// overwritten by the older copy.
	writeMu sync.Mutex
	// snapshot is the file the index is kept in between starts ("" for
	// none), print the fingerprint it is written with, and written the
	// index's generation it last holds; saveMu orders writes of it, and
	// saving waits for the one after the build.
	snapshot string
	print    [32]byte
	written  uint64
	saveMu   sync.Mutex
	saving   sync.WaitGroup
}

// Open seeds the store from the corpus and builds the index from the store.
func Open(ctx context.Context, st incidentlib.Store, c *corpus.Corpus, log *slog.Logger) (*Library, incidentlib.SeedResult, error) {
	return OpenSnapshot(ctx, st, c, log, "")
}

// OpenSnapshot is Open with the index kept in the file snapshot between
// starts (search.LoadSnapshot): loaded from it when it describes exactly
// the store's cases, else built and written to it once built; written
// again by Close when the index changed. "" keeps no snapshot.
func OpenSnapshot(ctx context.Context, st incidentlib.Store, c *corpus.Corpus, log *slog.Logger, snapshot string) (*Library, incidentlib.SeedResult, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t0 := time.Now()
	res, err := st.Seed(ctx, c.Cases)
	if err != nil {
		return nil, res, fmt.Errorf("seed the store: %w", err)
	}
	t1 := time.Now()
	cases, err := st.Cases(ctx)
	if err != nil {
		return nil, res, fmt.Errorf("read the store: %w", err)
	}
	log.Debug("store read", "seed", t1.Sub(t0).Round(time.Millisecond), "cases", len(cases), "read", time.Since(t1).Round(time.Millisecond))
	l := &Library{store: st, vocab: c.Vocab, log: log, snapshot: snapshot}
	if snapshot != "" {
		t2 := time.Now()
		l.print = fingerprint(c.Vocab)
		if ix, err := l.loadSnapshot(cases); err == nil {
			l.ix, l.written = ix, ix.Generation()
			log.Info("index loaded from its snapshot", "file", snapshot, "cases", len(cases), "took", time.Since(t2).Round(time.Millisecond))
			return l, res, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			log.Info("index snapshot not used; building the index", "file", snapshot, "reason", err.Error())
		}
	}
	if l.ix, err = search.New(c.Vocab, cases); err != nil {
		return nil, res, err
	}
	if snapshot != "" {
		// Written beside the serving, so that the next start loads it.
		l.saving.Add(1)
		go func() {
			defer l.saving.Done()
			l.saveSnapshot()
		}()
	}
	return l, res, nil
}

// loadSnapshot loads the index of cases from the library's snapshot file.
func (l *Library) loadSnapshot(cases []*incidentlib.Case) (*search.Index, error) {
	f, err := os.Open(l.snapshot)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return search.LoadSnapshot(f, l.vocab, cases, l.print)
}

// saveSnapshot writes the index to the snapshot file (a new file renamed
// over the old, so a crash never leaves half of one) when it changed since
// the last one written, and logs what it did.
func (l *Library) saveSnapshot() {
	l.saveMu.Lock()
	defer l.saveMu.Unlock()
	gen := l.ix.Generation()
	if gen == l.written {
		return
	}
	if err := writeSnapshotFile(l.ix, l.snapshot, l.print); err != nil {
		l.log.Warn("index snapshot not written; the next start builds the index", "file", l.snapshot, "error", err.Error())
		return
	}
	l.written = gen
	l.log.Debug("index snapshot written", "file", l.snapshot)
}

// writeSnapshotFile writes ix's snapshot to path: a new file renamed over
// the old, so that a crash never leaves half of one.
func writeSnapshotFile(ix *search.Index, path string, print [32]byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = ix.WriteSnapshot(tmp, print)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// WriteSnapshot builds the index of cases (every case of a store, with
// their digests) and writes its snapshot to path, as a server on that
// store would: a bulk load leaves the index ready for the next start.
func WriteSnapshot(path string, v *incidentlib.Vocab, cases []*incidentlib.Case) error {
	ix, err := search.New(v, cases)
	if err != nil {
		return err
	}
	return writeSnapshotFile(ix, path, fingerprint(v))
}

// fingerprint identifies the program and vocabulary an index snapshot is
// made by: a snapshot of another build (whose analysis may differ) or of
// another vocabulary is never loaded.
func fingerprint(v *incidentlib.Vocab) [32]byte {
	h := sha256.New()
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			io.Copy(h, f)
			f.Close()
		}
	} else {
		// No program to identify: a fingerprint no run shares.
		fmt.Fprint(h, time.Now().UnixNano())
	}
	if b, err := json.Marshal(v); err == nil {
		h.Write(b)
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// Close writes the index's snapshot when it changed, and releases the
// index (the store belongs to the caller).
func (l *Library) Close() error {
	l.saving.Wait()
	if l.snapshot != "" {
		l.saveSnapshot()
	}
	return l.ix.Close()
}

// The reads: a View of the index answers them, made for its audience.

// Public is what anyone may read: the public cases and nothing derived
// from a private one. The web site and MCP are built on it; the API uses
// it for every request without the write token.
func (l *Library) Public() Reader { return l.ix.Public() }

// All is what the write token's holder reads: every case, private ones
// included (the API with the token, the editors' desk).
func (l *Library) All() Reader { return l.ix.All() }

// Corrections is the store's correction queue, or nil when it keeps none.
func (l *Library) Corrections() incidentlib.CorrectionStore {
	if cs, ok := l.store.(incidentlib.CorrectionStore); ok {
		return cs
	}
	return nil
}

// Validate checks a case exactly as `incidentlib validate` checks a case
// file: it is written as YAML and read back by the corpus loader; related
// cases must exist.
func (l *Library) Validate(c *incidentlib.Case) error {
	y, err := corpus.MarshalCase(c)
	if err != nil {
		return incidentlib.Errorf(incidentlib.ErrInvalid, "the case cannot be written as a case file: %v", err)
	}
	_, _, probs := corpus.ParseCase("cases/"+safeName(c.ID)+".yaml", y, l.vocab)
	var msgs []string
	for _, p := range probs {
		msgs = append(msgs, p.Msg)
	}
	for _, r := range c.Related {
		if r != c.ID && l.ix.All().Case(r) == nil {
			msgs = append(msgs, fmt.Sprintf("related case %s does not exist", r))
		}
	}
	if r := c.RecurrenceOf; r != nil && *r != c.ID && l.ix.All().Case(*r) == nil {
		msgs = append(msgs, fmt.Sprintf("recurrence_of names %s, which does not exist", *r))
	}
	if len(msgs) > 0 {
		return incidentlib.Errorf(incidentlib.ErrInvalid, "the case is invalid: %s", strings.Join(msgs, "; "))
	}
	return nil
}

func safeName(id string) string {
	if id == "" || strings.ContainsAny(id, `/\.`) {
		return "unnamed"
	}
	return id
}

// Put validates and stores a case, then indexes it. It returns whether the
// case is new.
func (l *Library) Put(ctx context.Context, c *incidentlib.Case) (bool, error) {
	c.Normalize()
	c.URL = ""
	if err := l.Validate(c); err != nil {
		return false, err
	}
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	return l.putLocked(ctx, c)
}

// putLocked stores and indexes a validated case; the caller holds writeMu.
func (l *Library) putLocked(ctx context.Context, c *incidentlib.Case) (bool, error) {
	if old := l.ix.All().Case(c.ID); old != nil && old.Private != c.Private {
		return false, incidentlib.Errorf(incidentlib.ErrConflict, "case %s exists and is %s; delete it first to change its visibility", c.ID, vis(old.Private))
	}
	created, err := l.store.Put(ctx, c)
	if err != nil {
		return false, err
	}
	if err := l.ix.Upsert(c); err != nil {
		return created, err
	}
	return created, nil
}

func vis(private bool) string {
	if private {
		return "private"
	}
	return "public"
}

// Delete removes a case from the store and the index.
func (l *Library) Delete(ctx context.Context, id string) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if err := l.store.Delete(ctx, id); err != nil {
		return err
	}
	return l.ix.Delete(id)
}

// MarkReviewed records that a person reviewed the case.
func (l *Library) MarkReviewed(ctx context.Context, id, by string, at time.Time) (*incidentlib.Case, error) {
	by = strings.TrimSpace(by)
	if by == "" {
		return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "reviewed_by is required: the name of the person who checked the case against its sources")
	}
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	// The store, not the index, is read: it holds what other replicas wrote.
	c, err := l.store.Case(ctx, id)
	if err != nil {
		return nil, err
	}
	ts := at.UTC().Format(time.RFC3339)
	c.Review.ReviewedAt, c.Review.ReviewedBy = &ts, &by
	c.UpdatedAt = ts
	c.Normalize()
	c.URL = ""
	if err := l.Validate(c); err != nil {
		return nil, err
	}
	if _, err := l.putLocked(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

// Apply brings the index up to date with a change another process made to
// the shared store.
func (l *Library) Apply(ctx context.Context, ch incidentlib.Change) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if ch.Deleted {
		return l.ix.Delete(ch.ID)
	}
	c, err := l.store.Case(ctx, ch.ID)
	if errors.Is(err, incidentlib.ErrNotFound) {
		return l.ix.Delete(ch.ID)
	}
	if err != nil {
		return err
	}
	return l.ix.Upsert(c)
}

// Reload brings the index in line with the store, for a replica that may
// have missed changes: it upserts the cases that differ and drops those the
// store no longer has. It returns how many cases changed.
func (l *Library) Reload(ctx context.Context) (int, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	cases, err := l.store.Cases(ctx)
	if err != nil {
		return 0, err
	}
	changed := 0
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.ID] = true
		if cur := l.ix.All().Case(c.ID); cur != nil && reflect.DeepEqual(cur, c) {
			continue
		}
		if err := l.ix.Upsert(c); err != nil {
			return changed, err
		}
		changed++
	}
	for _, c := range l.ix.All().Cases() {
		if !seen[c.ID] {
			if err := l.ix.Delete(c.ID); err != nil {
				return changed, err
			}
			changed++
		}
	}
	return changed, nil
}
