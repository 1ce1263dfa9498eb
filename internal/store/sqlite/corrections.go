package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/store/corrections"
)

const stamp = "2006-01-02T15:04:05.000000000Z07:00"

// AddCorrection stores a reader's correction as open.
func (s *Store) AddCorrection(ctx context.Context, c *incidentlib.Correction) (int64, error) {
	return s.queue().Add(ctx, c)
}

// Corrections returns corrections newest first.
func (s *Store) Corrections(ctx context.Context, status string, limit int) ([]incidentlib.Correction, error) {
	return s.queue().List(ctx, status, limit)
}

// CloseCorrection resolves or dismisses an open correction.
func (s *Store) CloseCorrection(ctx context.Context, id int64, status, note string) error {
	return s.queue().Close(ctx, id, status, note)
}

func (s *Store) queue() corrections.Queue { return corrections.Queue{SQL: correctionSQL{s}} }

// correctionSQL is SQLite's SQL for the correction queue: times are text
// (stamp, UTC) from the store's clock.
type correctionSQL struct{ s *Store }

func (q correctionSQL) Insert(ctx context.Context, c *incidentlib.Correction) (int64, error) {
	res, err := q.s.db.ExecContext(ctx, `INSERT INTO corrections (case_id, field, what, source, contact, lang, org, incident_date, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.CaseID, c.Field, c.What, c.Source, c.Contact, c.Lang, c.Org, c.Date, c.Status, q.s.now().UTC().Format(stamp))
	if err != nil {
		return 0, unavailable(err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, unavailable(err)
	}
	return id, nil
}

func (q correctionSQL) List(ctx context.Context, status string, limit int) ([]incidentlib.Correction, error) {
	rows, err := q.s.db.QueryContext(ctx, `SELECT id, case_id, field, what, source, contact, lang, org, incident_date, status, note, created_at, closed_at FROM corrections
		WHERE (? = '' OR status = ?) ORDER BY created_at DESC, id DESC LIMIT ?`, status, status, limit)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	var out []incidentlib.Correction
	for rows.Next() {
		var c incidentlib.Correction
		var created string
		var closed sql.NullString
		if err := rows.Scan(&c.ID, &c.CaseID, &c.Field, &c.What, &c.Source, &c.Contact, &c.Lang, &c.Org, &c.Date, &c.Status, &c.Note, &created, &closed); err != nil {
			return nil, unavailable(err)
		}
		c.CreatedAt, _ = time.Parse(stamp, created)
		if closed.Valid {
			t, _ := time.Parse(stamp, closed.String)
			c.ClosedAt = &t
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

func (q correctionSQL) CloseOpen(ctx context.Context, id int64, status, note string) (bool, error) {
	res, err := q.s.db.ExecContext(ctx, `UPDATE corrections SET status = ?, note = ?, closed_at = ? WHERE id = ? AND status = ?`,
		status, note, q.s.now().UTC().Format(stamp), id, incidentlib.CorrectionOpen)
	if err != nil {
		return false, unavailable(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, unavailable(err)
	}
	return n == 1, nil
}

func (q correctionSQL) Status(ctx context.Context, id int64) (string, bool, error) {
	var cur string
	err := q.s.db.QueryRowContext(ctx, `SELECT status FROM corrections WHERE id = ?`, id).Scan(&cur)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, unavailable(err)
	}
	return cur, true, nil
}

// Spend marks key spent until the time given, unless it is already spent.
// Keys that have run out are removed on the way.
func (s *Store) Spend(ctx context.Context, key string, until time.Time) (bool, error) {
	now := s.now().UTC().Format(stamp)
	if _, err := s.db.ExecContext(ctx, `DELETE FROM spent_keys WHERE until <= ?`, now); err != nil {
		return false, unavailable(err)
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO spent_keys (key, until) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, key, until.UTC().Format(stamp))
	if err != nil {
		return false, unavailable(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, unavailable(err)
	}
	return n == 1, nil
}

// Spent reports whether key is spent and has not run out.
func (s *Store) Spent(ctx context.Context, key string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM spent_keys WHERE key = ? AND until > ?`, key, s.now().UTC().Format(stamp)).Scan(&n)
	if err != nil {
		return false, unavailable(err)
	}
	return n > 0, nil
}
