// Package sqlite is the embedded store: one SQLite file, opened with a
// pure-Go driver, in WAL mode, with numbered migrations applied one
// transaction each.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	_ "modernc.org/sqlite" // the driver, pure Go

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/decodeall"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is the SQLite implementation of incidentlib.Store.
type Store struct {
	db  *sql.DB
	now func() time.Time
}

var _ incidentlib.Store = (*Store)(nil)

// DefaultPath is where the database lives when no path is given: the user's
// data directory ($XDG_DATA_HOME, else ~/.local/share) /incidentlib/incidentlib.db.
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the home folder for the database: %w; pass --db PATH", err)
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "incidentlib", "incidentlib.db"), nil
}

// Open opens (creating when needed) the database at path and applies the
// migrations it lacks.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create the database folder: %w", err)
	}
	dsn := dsnFor(path)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	s := &Store{db: db, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return err
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		v, err := strconv.Atoi(strings.SplitN(filepath.Base(name), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: the name must start with its number", name)
		}
		body, _ := migrations.ReadFile(name)
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, v).Scan(&n); err != nil {
			tx.Rollback()
			return err
		}
		if n > 0 {
			tx.Rollback()
			continue
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, ?)`, v, s.now().UTC().Format(time.RFC3339)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// dsnFor builds the driver's file: URI for path. The path is escaped as a
// URI path, so a "?", "#", "%" or space in a folder or file name stays part
// of the name instead of starting the query or being dropped.
func dsnFor(path string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// _txlock=immediate makes writers take the lock at BEGIN, so two writers
	// wait for each other instead of failing half-way.
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + "?" + q.Encode()
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Ping checks the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return incidentlib.Errorf(incidentlib.ErrUnavailable, "the database does not answer: %v", err)
	}
	return nil
}

func decode(data string, private bool) (*incidentlib.Case, error) {
	var c incidentlib.Case
	// The row's text read in place: json.Unmarshal and the digest only read
	// it, and a copy of every case (tens of thousands at start) was a
	// sixth of reading a large store.
	b := unsafe.Slice(unsafe.StringData(data), len(data))
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("decode stored case: %w", err)
	}
	c.Private = private
	c.URL = ""
	c.Digest = incidentlib.Digest(b)
	c.Normalize()
	return &c, nil
}

func encode(c *incidentlib.Case) (string, error) {
	cp := *c
	cp.URL = ""
	b, err := json.Marshal(&cp)
	return string(b), err
}

// Cases returns every live case. The rows are decoded on every core while
// they are read: at start a server reads every case, and reading and
// decoding tens of thousands one after the other was most of its start-up.
func (s *Store) Cases(ctx context.Context) ([]*incidentlib.Case, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT data, private FROM cases WHERE deleted = 0 ORDER BY id`)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	type row struct {
		data    string
		private bool
	}
	out, err := decodeall.Stream(func() (row, bool, error) {
		var r row
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return r, false, err
			}
			return r, false, nil
		}
		if err := rows.Scan(&r.data, &r.private); err != nil {
			return r, false, err
		}
		return r, true, nil
	}, func(r row) (*incidentlib.Case, error) { return decode(r.data, r.private) })
	if err != nil {
		return nil, err
	}
	// ORDER BY id is byte order (IL-10000 before IL-9999); ids are ordered
	// by number.
	slices.SortFunc(out, func(a, b *incidentlib.Case) int { return incidentlib.CompareIDs(a.ID, b.ID) })
	return out, nil
}

// Case returns one live case.
func (s *Store) Case(ctx context.Context, id string) (*incidentlib.Case, error) {
	var data string
	var private bool
	err := s.db.QueryRowContext(ctx, `SELECT data, private FROM cases WHERE id = ? AND deleted = 0`, id).Scan(&data, &private)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, incidentlib.Errorf(incidentlib.ErrNotFound, "no case %s", id)
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return decode(data, private)
}

// Put creates or replaces a case.
func (s *Store) Put(ctx context.Context, c *incidentlib.Case) (bool, error) {
	data, err := encode(c)
	if err != nil {
		return false, err
	}
	c.Digest = incidentlib.Digest([]byte(data))
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, unavailable(err)
	}
	defer tx.Rollback()
	var live int
	err = tx.QueryRowContext(ctx, `SELECT count(*) FROM cases WHERE id = ? AND deleted = 0`, c.ID).Scan(&live)
	if err != nil {
		return false, unavailable(err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO cases (id, data, updated_at, private, origin, deleted, written_at) VALUES (?, ?, ?, ?, 'api', 0, ?)
		ON CONFLICT (id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at, private = excluded.private, origin = 'api', deleted = 0, written_at = excluded.written_at`,
		c.ID, data, c.UpdatedAt, c.Private, s.now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return false, unavailable(err)
	}
	if err := tx.Commit(); err != nil {
		return false, unavailable(err)
	}
	return live == 0, nil
}

// progressEvery is how many cases PutAll writes between progress calls.
const progressEvery = 500

// PutAll creates or replaces every case in one transaction: all or none.
func (s *Store) PutAll(ctx context.Context, cases []*incidentlib.Case, progress func(int)) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, unavailable(err)
	}
	defer tx.Rollback()
	live := map[string]bool{}
	rows, err := tx.QueryContext(ctx, `SELECT id FROM cases WHERE deleted = 0`)
	if err != nil {
		return 0, unavailable(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, unavailable(err)
		}
		live[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, unavailable(err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO cases (id, data, updated_at, private, origin, deleted, written_at) VALUES (?, ?, ?, ?, 'api', 0, ?)
		ON CONFLICT (id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at, private = excluded.private, origin = 'api', deleted = 0, written_at = excluded.written_at`)
	if err != nil {
		return 0, unavailable(err)
	}
	defer stmt.Close()
	now := s.now().UTC().Format(time.RFC3339Nano)
	created := 0
	for i, c := range cases {
		data, err := encode(c)
		if err != nil {
			return 0, err
		}
		c.Digest = incidentlib.Digest([]byte(data))
		if _, err := stmt.ExecContext(ctx, c.ID, data, c.UpdatedAt, c.Private, now); err != nil {
			return 0, unavailable(err)
		}
		if !live[c.ID] {
			created++
			live[c.ID] = true
		}
		if progress != nil && ((i+1)%progressEvery == 0 || i+1 == len(cases)) {
			progress(i + 1)
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, unavailable(err)
	}
	return created, nil
}

// Delete marks a case deleted.
func (s *Store) Delete(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE cases SET deleted = 1, written_at = ? WHERE id = ? AND deleted = 0`, s.now().UTC().Format(time.RFC3339Nano), id)
	if err != nil {
		return unavailable(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return incidentlib.Errorf(incidentlib.ErrNotFound, "no case %s", id)
	}
	return nil
}

// Seed adds and upgrades corpus cases in one transaction.
func (s *Store) Seed(ctx context.Context, corpus []*incidentlib.Case) (incidentlib.SeedResult, error) {
	var r incidentlib.SeedResult
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return r, unavailable(err)
	}
	defer tx.Rollback()
	// Each corpus case's row is looked up by id: a scan of the table
	// would read every stored case's text too (the columns after data sit
	// past it, on its overflow pages), half a second at 50,000 cases.
	get, err := tx.PrepareContext(ctx, `SELECT updated_at, private, deleted, origin FROM cases WHERE id = ?`)
	if err != nil {
		return r, unavailable(err)
	}
	defer get.Close()
	now := s.now().UTC().Format(time.RFC3339Nano)
	for _, c := range corpus {
		var updatedAt, origin string
		var private, gone bool
		err := get.QueryRowContext(ctx, c.ID).Scan(&updatedAt, &private, &gone, &origin)
		found := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return r, unavailable(err)
		}
		if found && (private || gone || origin != "corpus" || !newer(c.UpdatedAt, updatedAt)) {
			r.Unchanged++
			continue
		}
		data, err := encode(c)
		if err != nil {
			return r, err
		}
		if !found {
			_, err = tx.ExecContext(ctx, `INSERT INTO cases (id, data, updated_at, private, origin, deleted, written_at) VALUES (?, ?, ?, 0, 'corpus', 0, ?)`, c.ID, data, c.UpdatedAt, now)
			r.Inserted++
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE cases SET data = ?, updated_at = ?, written_at = ? WHERE id = ?`, data, c.UpdatedAt, now, c.ID)
			r.Upgraded++
		}
		if err != nil {
			return r, unavailable(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return r, unavailable(err)
	}
	return r, nil
}

// newer reports whether RFC 3339 time a is after b.
func newer(a, b string) bool {
	ta, err1 := time.Parse(time.RFC3339, a)
	tb, err2 := time.Parse(time.RFC3339, b)
	if err1 != nil || err2 != nil {
		return a > b
	}
	return ta.After(tb)
}

func unavailable(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%w: %v", incidentlib.ErrUnavailable, err)
}
