package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/store/corrections"
)

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

// correctionSQL is PostgreSQL's SQL for the correction queue: times are
// TIMESTAMPTZ from the database's clock, one clock for every replica.
type correctionSQL struct{ s *Store }

func (q correctionSQL) Insert(ctx context.Context, c *incidentlib.Correction) (int64, error) {
	var id int64
	err := q.s.pool.QueryRow(ctx, `INSERT INTO corrections (case_id, field, what, source, contact, lang, org, incident_date, status, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now()) RETURNING id`,
		c.CaseID, c.Field, c.What, c.Source, c.Contact, c.Lang, c.Org, c.Date, c.Status).Scan(&id)
	if err != nil {
		return 0, unavailable(err)
	}
	return id, nil
}

func (q correctionSQL) List(ctx context.Context, status string, limit int) ([]incidentlib.Correction, error) {
	rows, err := q.s.pool.Query(ctx, `SELECT id, case_id, field, what, source, contact, lang, org, incident_date, status, note, created_at, closed_at FROM corrections
		WHERE ($1 = '' OR status = $1) ORDER BY created_at DESC, id DESC LIMIT $2`, status, limit)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	var out []incidentlib.Correction
	for rows.Next() {
		var c incidentlib.Correction
		if err := rows.Scan(&c.ID, &c.CaseID, &c.Field, &c.What, &c.Source, &c.Contact, &c.Lang, &c.Org, &c.Date, &c.Status, &c.Note, &c.CreatedAt, &c.ClosedAt); err != nil {
			return nil, unavailable(err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

func (q correctionSQL) CloseOpen(ctx context.Context, id int64, status, note string) (bool, error) {
	tag, err := q.s.pool.Exec(ctx, `UPDATE corrections SET status = $1, note = $2, closed_at = now() WHERE id = $3 AND status = $4`,
		status, note, id, incidentlib.CorrectionOpen)
	if err != nil {
		return false, unavailable(err)
	}
	return tag.RowsAffected() == 1, nil
}

func (q correctionSQL) Status(ctx context.Context, id int64) (string, bool, error) {
	var cur string
	err := q.s.pool.QueryRow(ctx, `SELECT status FROM corrections WHERE id = $1`, id).Scan(&cur)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, unavailable(err)
	}
	return cur, true, nil
}

// Spend marks key spent until the time given, unless it is already spent;
// the key's row is the lock, so of two replicas at once one wins. Keys
// that have run out are removed on the way.
func (s *Store) Spend(ctx context.Context, key string, until time.Time) (bool, error) {
	if _, err := s.pool.Exec(ctx, `DELETE FROM spent_keys WHERE until <= now()`); err != nil {
		return false, unavailable(err)
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO spent_keys (key, until) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, key, until)
	if err != nil {
		return false, unavailable(err)
	}
	return tag.RowsAffected() == 1, nil
}

// Spent reports whether key is spent and has not run out.
func (s *Store) Spent(ctx context.Context, key string) (bool, error) {
	var spent bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM spent_keys WHERE key = $1 AND until > now())`, key).Scan(&spent); err != nil {
		return false, unavailable(err)
	}
	return spent, nil
}
