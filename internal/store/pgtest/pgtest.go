// Package pgtest starts a real PostgreSQL server for tests: Debian's server
// binaries, a temporary data directory, a free loopback port. Tests that
// need it skip when the binaries are missing, unless
// INCIDENTLIB_REQUIRE_POSTGRES=1 (set by .ci/run) makes that a failure.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running PostgreSQL cluster.
type Server struct {
	base string
	Dir  string
	Port int
	bin  string
	run  []string // prefix that runs a command as the cluster's owner
	seq  atomic.Int64
}

func findBin() string {
	if d := os.Getenv("INCIDENTLIB_PG_BIN"); d != "" {
		return d
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return ""
	}
	return filepath.Dir(matches[len(matches)-1])
}

// ErrNoServer says the PostgreSQL binaries are missing.
var ErrNoServer = fmt.Errorf("PostgreSQL server binaries not found; install Debian's postgresql (or set INCIDENTLIB_PG_BIN)")

// Required reports whether a missing server must fail the tests.
func Required() bool { return os.Getenv("INCIDENTLIB_REQUIRE_POSTGRES") == "1" }

// Start initialises and starts a cluster; it is stopped when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := Launch()
	if err == ErrNoServer && !Required() {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Launch initialises and starts a cluster; Close stops it and removes its
// files. For a TestMain that shares one cluster across a package.
func Launch() (*Server, error) {
	bin := findBin()
	if bin == "" {
		return nil, ErrNoServer
	}
	s := &Server{bin: bin}
	base, err := os.MkdirTemp("", "incidentlib-pg-")
	if err != nil {
		return nil, err
	}
	s.base = base
	s.Dir = filepath.Join(base, "data")
	// initdb refuses to run as root: run the server as the postgres user.
	if u, _ := user.Current(); u != nil && u.Uid == "0" {
		if _, err := user.Lookup("postgres"); err != nil {
			return nil, fmt.Errorf("running as root and there is no postgres user to own the cluster")
		}
		s.run = []string{"runuser", "-u", "postgres", "--"}
		if out, err := exec.Command("chown", "-R", "postgres", base).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("chown: %v %s", err, out)
		}
	}
	if out, err := s.cmd("initdb", "-D", s.Dir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.Port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	conf := fmt.Sprintf("\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n", s.Port, base)
	f, err := os.OpenFile(filepath.Join(s.Dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	f.WriteString(conf)
	f.Close()
	if err := s.start(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops the server and removes its files.
func (s *Server) Close() {
	s.cmd("pg_ctl", "-D", s.Dir, "-m", "immediate", "-w", "stop").Run()
	os.RemoveAll(s.base)
}

func (s *Server) cmd(name string, args ...string) *exec.Cmd {
	full := append(append([]string{}, s.run...), append([]string{filepath.Join(s.bin, name)}, args...)...)
	return exec.Command(full[0], full[1:]...)
}

// StartServer starts the server again after StopServer.
func (s *Server) StartServer(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
}

func (s *Server) start() error {
	logf := filepath.Join(s.base, "server.log")
	if out, err := s.cmd("pg_ctl", "-D", s.Dir, "-l", logf, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(logf)
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return nil
}

// StopServer stops the server at once, as a crash or a restart would.
func (s *Server) StopServer(t testing.TB) {
	t.Helper()
	if out, err := s.cmd("pg_ctl", "-D", s.Dir, "-m", "fast", "-w", "stop").CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// URL returns the address of database db.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// NewDatabase creates an empty database and returns its URL.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d_%d", time.Now().UnixNano()%1e9, s.seq.Add(1))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+strings.ToLower(name)); err != nil {
		t.Fatal(err)
	}
	return s.URL(strings.ToLower(name))
}
