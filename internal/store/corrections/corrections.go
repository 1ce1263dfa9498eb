// Package corrections is the queue of readers' corrections, written once
// for every store. The rules live here: a correction is stored open and
// without an editor's note, a listing holds at most DefaultLimit when no
// limit is given, a correction is closed only as resolved or dismissed and
// only once, an unknown one is not found, and times come back in UTC. A
// store supplies only its SQL, as a Dialect.
package corrections

import (
	"context"
	"time"

	"github.com/incidentlib/incidentlib"
)

// DefaultLimit is how many corrections a listing returns when the limit
// asked for is zero or less.
const DefaultLimit = 100

// Dialect is one database's SQL for the corrections table. Its errors are
// the database's, marked as the store marks them (incidentlib.ErrUnavailable);
// the queue adds its own (not found, conflict, invalid).
type Dialect interface {
	// Insert stores c's case, field, text, source, contact, language and
	// status, stamps it with the store's clock and returns its new id.
	Insert(ctx context.Context, c *incidentlib.Correction) (int64, error)
	// List returns up to limit corrections with the given status (every
	// status when it is ""), newest first: created_at, then id, descending.
	List(ctx context.Context, status string, limit int) ([]incidentlib.Correction, error)
	// CloseOpen sets correction id to status and note and stamps its
	// closing time, in one statement and only while it is open; it
	// reports whether it did.
	CloseOpen(ctx context.Context, id int64, status, note string) (bool, error)
	// Status returns the status of correction id, and false when there is
	// no such correction.
	Status(ctx context.Context, id int64) (string, bool, error)
}

// Queue implements incidentlib.CorrectionStore over a Dialect.
type Queue struct {
	SQL Dialect
}

// Add stores a reader's correction as open and returns its id. Whatever
// status, note or times c carries are not the reader's to set.
func (q Queue) Add(ctx context.Context, c *incidentlib.Correction) (int64, error) {
	row := *c
	row.ID = 0
	row.Status = incidentlib.CorrectionOpen
	row.Note = ""
	row.CreatedAt = time.Time{}
	row.ClosedAt = nil
	return q.SQL.Insert(ctx, &row)
}

// List returns up to limit corrections with status ("" for every status),
// newest first, with their times in UTC.
func (q Queue) List(ctx context.Context, status string, limit int) ([]incidentlib.Correction, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	out, err := q.SQL.List(ctx, status, limit)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []incidentlib.Correction{}
	}
	for i := range out {
		out[i].CreatedAt = out[i].CreatedAt.UTC()
		if t := out[i].ClosedAt; t != nil {
			u := t.UTC()
			out[i].ClosedAt = &u
		}
	}
	return out, nil
}

// Close resolves or dismisses an open correction. It returns
// incidentlib.ErrInvalid for any other status, ErrNotFound for an unknown
// id and ErrConflict for a correction already closed; of several closing
// one correction at once, one succeeds and the others get ErrConflict.
func (q Queue) Close(ctx context.Context, id int64, status, note string) error {
	if status != incidentlib.CorrectionResolved && status != incidentlib.CorrectionDismissed {
		return incidentlib.Errorf(incidentlib.ErrInvalid, "a correction is closed as resolved or dismissed, not %q", status)
	}
	// The update changes nothing when the correction is missing or closed;
	// the status read after it tells which. A closed correction never
	// opens again, so the read cannot contradict the update, except for a
	// correction added with this id in between: then the update is tried
	// again.
	for range 3 {
		done, err := q.SQL.CloseOpen(ctx, id, status, note)
		if err != nil || done {
			return err
		}
		cur, found, err := q.SQL.Status(ctx, id)
		if err != nil {
			return err
		}
		if !found {
			return incidentlib.Errorf(incidentlib.ErrNotFound, "no correction %d", id)
		}
		if cur != incidentlib.CorrectionOpen {
			return incidentlib.Errorf(incidentlib.ErrConflict, "correction %d is already %s", id, cur)
		}
	}
	return incidentlib.Errorf(incidentlib.ErrConflict, "correction %d changed while it was being closed", id)
}
