package incidentlib

import (
	"context"
	"time"
)

// Store keeps the cases of a running site: the corpus it was seeded with,
// edits made through the API, reviews and private cases. The search index is
// built from it and follows its changes.
//
// Methods return errors of kind ErrNotFound for a missing case and
// ErrUnavailable when the database cannot be reached.
type Store interface {
	// Cases returns every stored case, private ones included.
	Cases(ctx context.Context) ([]*Case, error)
	// Case returns one case.
	Case(ctx context.Context, id string) (*Case, error)
	// Put creates or replaces a case. It returns true when the case is new.
	Put(ctx context.Context, c *Case) (created bool, err error)
	// Delete removes a case. A deleted corpus case is not seeded again.
	Delete(ctx context.Context, id string) error
	// Seed adds the corpus cases the store lacks and upgrades those whose
	// corpus copy has a newer updated_at. It never touches private cases,
	// cases edited since, or cases deleted through the API.
	Seed(ctx context.Context, corpus []*Case) (SeedResult, error)
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}

// SeedResult counts what a Seed did.
type SeedResult struct {
	Inserted, Upgraded, Unchanged int
}

// Change is a notice that one case was written or deleted, so that other
// processes on the same database can update their index.
type Change struct {
	ID      string
	Deleted bool
	At      time.Time
}

// Watcher is implemented by stores shared by several processes: Watch
// calls fn for every change another process makes, until ctx ends. A Change
// with an empty ID means the watch (re)connected and notices may have been
// missed: the caller should reload.
type Watcher interface {
	Watch(ctx context.Context, fn func(Change)) error
}
