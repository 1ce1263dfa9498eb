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

// BulkWriter is a Store that writes many cases in one transaction: all of
// them, or on any error none. progress, when not nil, is called now and then
// with the number of cases written so far (within the transaction). It
// returns how many of the cases were new.
type BulkWriter interface {
	PutAll(ctx context.Context, cases []*Case, progress func(done int)) (created int, err error)
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

// Correction is a reader's report that a case states something wrong, or,
// as a submission (Field SubmissionField, no CaseID), of an incident the
// library lacks: its public write-up (Source), organisation, date and a
// note (What). It is never shown publicly; editors resolve or dismiss it
// at the desk, where submissions are a queue of their own.
type Correction struct {
	ID      int64  `json:"id"`
	CaseID  string `json:"case_id"`
	Field   string `json:"field"`   // the section the reader names: summary, timeline, sources …; SubmissionField for a submission
	What    string `json:"what"`    // what is wrong; a submission's note
	Source  string `json:"source"`  // where the right fact is stated (a URL or a citation); a submission's write-up
	Contact string `json:"contact"` // optional, for questions back
	Lang    string `json:"lang"`    // the language of the page it came from
	// Org and Date are a submission's organisation and incident date (as
	// the reader gives them); empty for a correction.
	Org  string `json:"org,omitempty"`
	Date string `json:"date,omitempty"`
	// Status is open, resolved or dismissed; Note is the editor's word on it.
	Status    string     `json:"status"`
	Note      string     `json:"note"`
	CreatedAt time.Time  `json:"created_at"`
	ClosedAt  *time.Time `json:"closed_at"`
}

// SubmissionField is the Field of a submission: a reader's report of an
// incident the library lacks.
const SubmissionField = "submission"

// Correction states.
const (
	CorrectionOpen      = "open"
	CorrectionResolved  = "resolved"
	CorrectionDismissed = "dismissed"
)

// KeyStore keeps keys that may be used once, shared by every replica on the
// store: correction forms already sent, desk sessions already ended.
type KeyStore interface {
	// Spend marks key spent until the time given and returns true, or
	// returns false when key is already spent and that has not yet run
	// out. Of two replicas that spend one key at once, one gets true.
	Spend(ctx context.Context, key string, until time.Time) (bool, error)
	// Spent reports whether key is spent and has not yet run out.
	Spent(ctx context.Context, key string) (bool, error)
}

// CorrectionStore is implemented by stores that keep readers' corrections.
type CorrectionStore interface {
	// AddCorrection stores c as open and returns its id.
	AddCorrection(ctx context.Context, c *Correction) (int64, error)
	// Corrections returns up to limit corrections, newest first; status ""
	// means every status.
	Corrections(ctx context.Context, status string, limit int) ([]Correction, error)
	// CloseCorrection sets an open correction resolved or dismissed, with a
	// note. It returns ErrNotFound for an unknown id and ErrConflict for one
	// already closed.
	CloseCorrection(ctx context.Context, id int64, status, note string) error
}
