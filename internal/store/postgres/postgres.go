// Package postgres is the store for several replicas on one PostgreSQL
// database: the same model as the SQLite store, seeding under an advisory
// lock, and change notices over LISTEN/NOTIFY so that every replica's index
// follows every write.
package postgres

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/decodeall"
)

//go:embed migrations/*.sql
var migrations embed.FS

// channel is the NOTIFY channel of case changes.
const channel = "incidentlib_cases"

// lockKey is the advisory lock that serialises migrations and seeding when
// several replicas start at the same moment.
const lockKey = 0x696e6369 // "inci"

// Store is the PostgreSQL implementation of incidentlib.Store.
type Store struct {
	pool *pgxpool.Pool
	url  string
	// origin tells this process's own notices from other replicas'.
	origin string
}

var (
	_ incidentlib.Store   = (*Store)(nil)
	_ incidentlib.Watcher = (*Store)(nil)
)

// Open connects to url, migrates the database and returns the store.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("--database-url: %v", redact(err))
	}
	cfg.MaxConns = 8
	cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %v", redact(err))
	}
	var b [8]byte
	rand.Read(b[:])
	s := &Store{pool: pool, url: url, origin: hex.EncodeToString(b[:])}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// redact keeps a password in a URL out of messages.
func redact(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "://"); i >= 0 {
		if j := strings.Index(msg[i:], "@"); j >= 0 {
			return msg[:i+3] + "…" + msg[i+j:]
		}
	}
	return msg
}

func (s *Store) migrate(ctx context.Context) error {
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	sort.Strings(names)
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return unavailable(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		return unavailable(err)
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, lockKey)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		return unavailable(err)
	}
	for _, name := range names {
		v, err := strconv.Atoi(strings.SplitN(path.Base(name), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: the name must start with its number", name)
		}
		body, _ := migrations.ReadFile(name)
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE version = $1`, v).Scan(&n); err != nil || n > 0 {
				return err
			}
			if _, err := tx.Exec(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", name, err)
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, v)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Close closes the pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// Ping checks the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return unavailable(err)
	}
	return nil
}

func decode(data []byte, private bool) (*incidentlib.Case, error) {
	var c incidentlib.Case
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("decode stored case: %w", err)
	}
	c.Private = private
	c.URL = ""
	c.Normalize()
	return &c, nil
}

func encode(c *incidentlib.Case) ([]byte, error) {
	cp := *c
	cp.URL = ""
	return json.Marshal(&cp)
}

// Cases returns every live case.
func (s *Store) Cases(ctx context.Context) ([]*incidentlib.Case, error) {
	rows, err := s.pool.Query(ctx, `SELECT data, private FROM cases WHERE NOT deleted ORDER BY id`)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	type row struct {
		data    []byte
		private bool
	}
	out, err := decodeall.Stream(func() (row, bool, error) {
		var r row
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return r, false, unavailable(err)
			}
			return r, false, nil
		}
		if err := rows.Scan(&r.data, &r.private); err != nil {
			return r, false, unavailable(err)
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
	var data []byte
	var private bool
	err := s.pool.QueryRow(ctx, `SELECT data, private FROM cases WHERE id = $1 AND NOT deleted`, id).Scan(&data, &private)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, incidentlib.Errorf(incidentlib.ErrNotFound, "no case %s", id)
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return decode(data, private)
}

// notice is the payload of a change notification.
type notice struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted,omitempty"`
	Origin  string `json:"origin"`
}

func (s *Store) notify(ctx context.Context, tx pgx.Tx, id string, deleted bool) error {
	b, _ := json.Marshal(notice{id, deleted, s.origin})
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, string(b))
	return err
}

// Put creates or replaces a case and tells the other replicas.
func (s *Store) Put(ctx context.Context, c *incidentlib.Case) (bool, error) {
	data, err := encode(c)
	if err != nil {
		return false, err
	}
	var created bool
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var live int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM cases WHERE id = $1 AND NOT deleted`, c.ID).Scan(&live); err != nil {
			return err
		}
		created = live == 0
		if _, err := tx.Exec(ctx, `INSERT INTO cases (id, data, updated_at, private, origin, deleted, written_at) VALUES ($1, $2, $3, $4, 'api', false, now())
			ON CONFLICT (id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at, private = excluded.private, origin = 'api', deleted = false, written_at = now()`,
			c.ID, data, c.UpdatedAt, c.Private); err != nil {
			return err
		}
		return s.notify(ctx, tx, c.ID, false)
	})
	return created, unavailable(err)
}

// progressEvery is how many cases PutAll writes between progress calls
// (and the size of each batch it sends).
const progressEvery = 500

// PutAll creates or replaces every case in one transaction, all or none,
// and tells the other replicas once to reload (a notice without an id),
// rather than once a case.
func (s *Store) PutAll(ctx context.Context, cases []*incidentlib.Case, progress func(int)) (int, error) {
	created := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		created = 0
		live := map[string]bool{}
		rows, err := tx.Query(ctx, `SELECT id FROM cases WHERE NOT deleted`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			live[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for start := 0; start < len(cases); start += progressEvery {
			batch := &pgx.Batch{}
			for _, c := range cases[start:min(start+progressEvery, len(cases))] {
				data, err := encode(c)
				if err != nil {
					return err
				}
				batch.Queue(`INSERT INTO cases (id, data, updated_at, private, origin, deleted, written_at) VALUES ($1, $2, $3, $4, 'api', false, now())
					ON CONFLICT (id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at, private = excluded.private, origin = 'api', deleted = false, written_at = now()`,
					c.ID, data, c.UpdatedAt, c.Private)
				if !live[c.ID] {
					created++
					live[c.ID] = true
				}
			}
			if err := tx.SendBatch(ctx, batch).Close(); err != nil {
				return err
			}
			if progress != nil {
				progress(min(start+progressEvery, len(cases)))
			}
		}
		return s.notify(ctx, tx, "", false)
	})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return 0, err
		}
		return 0, unavailable(err)
	}
	return created, nil
}

// Delete marks a case deleted and tells the other replicas.
func (s *Store) Delete(ctx context.Context, id string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE cases SET deleted = true, written_at = now() WHERE id = $1 AND NOT deleted`, id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return incidentlib.Errorf(incidentlib.ErrNotFound, "no case %s", id)
		}
		return s.notify(ctx, tx, id, true)
	})
	if errors.Is(err, incidentlib.ErrNotFound) {
		return err
	}
	return unavailable(err)
}

// Seed adds and upgrades corpus cases in one transaction under the advisory
// lock, so replicas starting together seed once.
func (s *Store) Seed(ctx context.Context, corpus []*incidentlib.Case) (incidentlib.SeedResult, error) {
	var r incidentlib.SeedResult
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		r = incidentlib.SeedResult{}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey); err != nil {
			return err
		}
		type row struct {
			updatedAt     time.Time
			private, gone bool
			origin        string
		}
		have := map[string]row{}
		rows, err := tx.Query(ctx, `SELECT id, updated_at, private, deleted, origin FROM cases`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			var x row
			if err := rows.Scan(&id, &x.updatedAt, &x.private, &x.gone, &x.origin); err != nil {
				rows.Close()
				return err
			}
			have[id] = x
		}
		rows.Close()
		batch := &pgx.Batch{}
		for _, c := range corpus {
			data, err := encode(c)
			if err != nil {
				return err
			}
			ts, err := time.Parse(time.RFC3339, c.UpdatedAt)
			if err != nil {
				return fmt.Errorf("case %s: updated_at %q: %w", c.ID, c.UpdatedAt, err)
			}
			x, ok := have[c.ID]
			switch {
			case !ok:
				batch.Queue(`INSERT INTO cases (id, data, updated_at, private, origin) VALUES ($1, $2, $3, false, 'corpus')`, c.ID, data, ts)
				r.Inserted++
			case x.private || x.gone || x.origin != "corpus" || !ts.After(x.updatedAt):
				r.Unchanged++
			default:
				batch.Queue(`UPDATE cases SET data = $2, updated_at = $3, written_at = now() WHERE id = $1`, c.ID, data, ts)
				r.Upgraded++
			}
		}
		if batch.Len() > 0 {
			if err := tx.SendBatch(ctx, batch).Close(); err != nil {
				return err
			}
		}
		return nil
	})
	return r, unavailable(err)
}

// Watch listens for changes other replicas make and calls fn for each.
// Each time it starts listening, the first time included, it calls fn with
// an empty Change (ID "") to say that notices may have been missed before
// and the caller should reload. It reconnects when the connection drops
// and returns when ctx ends.
func (s *Store) Watch(ctx context.Context, fn func(incidentlib.Change)) error {
	for ctx.Err() == nil {
		err := s.listen(ctx, func() { fn(incidentlib.Change{}) }, fn)
		if ctx.Err() != nil {
			return nil
		}
		_ = err // the next attempt reconnects; the caller reloads then
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

func (s *Store) listen(ctx context.Context, connected func(), fn func(incidentlib.Change)) error {
	conn, err := pgx.Connect(ctx, s.url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `LISTEN `+channel); err != nil {
		return err
	}
	connected()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		var nt notice
		if json.Unmarshal([]byte(n.Payload), &nt) != nil || nt.Origin == s.origin {
			continue
		}
		fn(incidentlib.Change{ID: nt.ID, Deleted: nt.Deleted, At: time.Now()})
	}
}

// unavailable marks database errors as ErrUnavailable (503 in the API);
// a not-found passes through.
func unavailable(err error) error {
	if err == nil || errors.Is(err, incidentlib.ErrNotFound) || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w: %v", incidentlib.ErrUnavailable, redact(err))
}
