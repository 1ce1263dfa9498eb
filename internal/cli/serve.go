package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/checkindex"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/server"
	"github.com/incidentlib/incidentlib/internal/store/postgres"
	"github.com/incidentlib/incidentlib/internal/store/sqlite"
	"github.com/incidentlib/incidentlib/internal/web"
)

// MinTokenLen is the shortest write token serve accepts: a token is the
// only key to writes and the desk, and a short one is guessed.
const MinTokenLen = 16

// readToken takes the write token from INCIDENTLIB_TOKEN or from the file
// INCIDENTLIB_TOKEN_FILE names, and refuses one shorter than MinTokenLen.
func readToken() (string, error) {
	t, from, err := rawToken()
	if err != nil || t == "" {
		return t, err
	}
	if n := utf8.RuneCountInString(t); n < MinTokenLen {
		return "", fmt.Errorf("the write token in %s has %d characters; give at least %d (for example: openssl rand -hex 24)", from, n, MinTokenLen)
	}
	return t, nil
}

func rawToken() (token, from string, err error) {
	if t := strings.TrimSpace(os.Getenv("INCIDENTLIB_TOKEN")); t != "" {
		return t, "INCIDENTLIB_TOKEN", nil
	}
	if f := os.Getenv("INCIDENTLIB_TOKEN_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", "", fmt.Errorf("read INCIDENTLIB_TOKEN_FILE: %w", err)
		}
		t := strings.TrimSpace(string(b))
		if t == "" {
			return "", "", fmt.Errorf("INCIDENTLIB_TOKEN_FILE %s is empty", f)
		}
		return t, "INCIDENTLIB_TOKEN_FILE " + f, nil
	}
	return "", "", nil
}

// openStore opens the database the config names.
// gcRoom is how far serve lets the heap grow over the live one between
// two collections, and gcPercentMin and gcPercentMax bound the GOGC that
// makes (gcPercentFor).
const (
	gcRoom       = 128 << 20
	gcPercentMin = 25
	gcPercentMax = 400
)

// gcPercentFor is the GOGC that lets a live heap of live bytes grow by
// gcRoom, within [gcPercentMin, gcPercentMax].
func gcPercentFor(live uint64) int {
	if live == 0 {
		return gcPercentMax
	}
	return int(min(max(gcRoom*100/live, gcPercentMin), gcPercentMax))
}

// liveHeap collects garbage, returns what it freed to the system (one
// collection for both), and returns the heap that is left.
func liveHeap() uint64 {
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

var openStore = func(ctx context.Context, cfg server.Config) (incidentlib.Store, string, error) {
	if cfg.DatabaseURL != "" {
		if cfg.DBPath != "" {
			return nil, "", errors.New("give --db (SQLite) or --database-url (PostgreSQL), not both")
		}
		st, err := postgres.Open(ctx, cfg.DatabaseURL)
		return st, "postgres", err
	}
	path := cfg.DBPath
	if path == "" {
		p, err := sqlite.DefaultPath()
		if err != nil {
			return nil, "", err
		}
		path = p
	}
	st, err := sqlite.Open(ctx, path)
	return st, "sqlite:" + path, err
}

// checksFor lists, for a case id, the kubegap checks that cite the case, so
// that case pages can point readers at the check for their own cluster. It
// reads the index generated from kubegap's registry, so serve links no
// Kubernetes module.
func checksFor() (func(string) []web.CheckRef, error) {
	ix, err := checkindex.BuiltIn()
	if err != nil {
		return nil, err
	}
	return func(id string) []web.CheckRef {
		var out []web.CheckRef
		for _, c := range ix.ForCase(id) {
			out = append(out, web.CheckRef{ID: c.ID, Severity: c.Severity, Title: c.Title})
		}
		return out
	}, nil
}

// serveCorpus is the corpus serve seeds and upgrades the database from: the
// folder --dir names, or the one built into the binary. A server does not
// start on a folder with problems (it would leave those cases out without
// a word); the message names the first and the command that lists all.
func (e *env) serveCorpus() (*corpus.Corpus, error) {
	if e.dir == "" {
		c, err := corpus.LoadEmbedded()
		if err != nil {
			return nil, failure(err)
		}
		return c, nil
	}
	src, res, err := e.readCorpus()
	if err != nil {
		return nil, err
	}
	if n := len(res.Problems); n > 0 || res.Corpus == nil {
		first := "the vocabulary is invalid"
		if n > 0 {
			p := res.Problems[0]
			first = fmt.Sprintf("%s:%d: %s", src.display(p.File), p.Line, p.Msg)
		}
		return nil, usage(fmt.Errorf("the corpus in %s has %d problems (the first: %s); run incidentlib --dir %s validate, fix them, then serve", e.dir, n, first, e.dir))
	}
	if len(res.Corpus.Cases) == 0 {
		return nil, usage(fmt.Errorf("the corpus in %s has no cases; give a folder whose cases/ holds IL-NNNN.yaml files", e.dir))
	}
	return res.Corpus, nil
}

func serveCmd(e *env) *cobra.Command {
	cfg := server.DefaultConfig()
	var trusted []string
	cmd := &cobra.Command{
		Annotations: readsDir(),
		Use:         "serve",
		Short:       "Serve the web site, the JSON API and the MCP server",
		Long: `Serve the library: web pages (Korean at /, English at /en/), the keyless JSON
API under /api/, and the MCP server at /mcp (Streamable HTTP), plus /healthz,
/readyz and /metrics. The first start creates the database and seeds it from
the corpus built into the binary, or from the corpus folder --dir names (which
must pass incidentlib validate); later starts upgrade cases whose corpus copy
is newer.

Writes need a token: set INCIDENTLIB_TOKEN, or INCIDENTLIB_TOKEN_FILE to a
file holding it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(e, &cfg, trusted)
		},
	}
	serveFlags(cmd, &cfg, &trusted)
	return cmd
}

// runServe opens the store, listens and serves until a signal stops it.
func runServe(e *env, cfg *server.Config, trusted []string) error {
	start := time.Now()
	log, err := server.NewLogger(*cfg, os.Stderr)
	if err != nil {
		return usage(err) // --log-level or --log-format
	}
	if cfg.Token, err = readToken(); err != nil {
		return openFailed(err)
	}
	if cfg.TrustedProxies, err = parseProxies(trusted); err != nil {
		return usage(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := e.serveCorpus()
	if err != nil {
		return err
	}
	st, where, err := openStore(ctx, *cfg)
	if err != nil {
		return failure(err)
	}
	if path, ok := strings.CutPrefix(where, "sqlite:"); ok {
		// The index is kept beside the database between starts.
		cfg.IndexSnapshot = path + ".index"
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		st.Close()
		return failure(fmt.Errorf("listen on %s: %w; choose another address with --addr", cfg.Addr, err))
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = incidentlib.BaseURLFor(ln.Addr().String())
	}
	if cfg.ChecksFor, err = checksFor(); err != nil {
		ln.Close()
		st.Close()
		return failure(err)
	}
	srv, err := server.New(ctx, *cfg, st, c, log)
	if err != nil {
		ln.Close()
		st.Close()
		return failure(err)
	}
	// A server's heap is its index, which lives as long as the
	// process, and every request's garbage, which dies at once. Each
	// collection costs in proportion to the live heap; between two, the
	// requests' garbage needs room. So the heap may grow by a fixed room
	// over the live one, gcRoom, not by a multiple of it: for the
	// corpus built in that is GOGC of about 400, for one ten times larger
	// about 100, for one a hundred times larger the floor of 25, so that
	// memory follows the index rather than five times it. 128 MB of room
	// served searches as fast as 256 MB did at the built-in corpus and at
	// ten times it, with 15 % and 40 % less memory (docs/PERFORMANCE.md,
	// "The room between collections"). A GOGC the user sets wins. (The
	// setting is the process's, so it is made here, once the index is
	// built, not in a constructor.)
	// Building the index took more memory than it keeps: collect, and
	// give the rest back to the system now rather than over the next
	// minutes; what is left is the live heap. The room then stays fixed as
	// the live heap changes while serving (roomKeeper).
	live := liveHeap()
	if os.Getenv("GOGC") == "" {
		pct := gcPercentFor(live)
		debug.SetGCPercent(pct)
		log.Debug("garbage collection", "gogc", pct)
		go newRoomKeeper(pct).run(ctx, 2*time.Second)
	}
	defer srv.Close()
	log.Info("serving", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "store", where,
		"writes", cfg.Token != "", "startup", time.Since(start).Round(time.Millisecond))
	if err := srv.Serve(ctx, ln); err != nil {
		return failure(err)
	}
	log.Info("stopped")
	return nil
}

// serveFlags declares serve's flags, which set cfg and trusted.
func serveFlags(cmd *cobra.Command, cfg *server.Config, trusted *[]string) {
	f := cmd.Flags()
	f.StringVar(&cfg.Addr, "addr", cfg.Addr, "address to listen on")
	f.StringVar(&cfg.DBPath, "db", "", "SQLite database file (default: $XDG_DATA_HOME/incidentlib/incidentlib.db)")
	f.StringVar(&cfg.DatabaseURL, "database-url", os.Getenv("INCIDENTLIB_DATABASE_URL"), "PostgreSQL URL (postgres://…) for several replicas on one database (or INCIDENTLIB_DATABASE_URL)")
	f.StringVar(&cfg.BaseURL, "base-url", "", "public base URL that case URLs are derived from (default http://ADDR)")
	f.StringVar(&cfg.LogFormat, "log-format", cfg.LogFormat, "text or json")
	f.StringVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "debug, info, warn or error")
	f.Float64Var(&cfg.RateLimit, "rate-limit", cfg.RateLimit, "requests per second per client on /api/ and /mcp (0: no limit)")
	f.IntVar(&cfg.RateBurst, "rate-burst", cfg.RateBurst, "burst allowed above --rate-limit")
	f.BoolVar(&cfg.AccessLog, "access-log", false, "log every request (errors are always logged)")
	f.BoolVar(&cfg.MCPJSON, "mcp-json", false, "answer MCP calls with application/json rather than an event stream")
	f.DurationVar(&cfg.DrainFor, "drain", cfg.DrainFor, "on SIGTERM, keep serving this long with /readyz failing before closing the listener")
	f.IntVar(&cfg.MCPConcurrency, "mcp-slots", 0, "MCP calls served at once; more wait a moment, then get 503 (0: 4 per CPU)")
	f.IntVar(&cfg.MCPPerClient, "mcp-per-client", 0, "MCP calls one client may have in flight at once; more get 429 (0: a quarter of --mcp-slots, at least 2)")
	f.StringSliceVar(trusted, "trusted-proxy", nil, "address or CIDR network of a reverse proxy whose X-Forwarded-For names the client (repeatable; default: none, the peer is the client)")
	f.DurationVar(&cfg.ShutdownFor, "shutdown-timeout", cfg.ShutdownFor, "how long requests in flight may take to finish on SIGTERM")
}

// parseProxies reads the --trusted-proxy values: addresses (a network of
// one) or CIDR networks.
func parseProxies(vals []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range vals {
		v = strings.TrimSpace(v)
		if p, err := netip.ParsePrefix(v); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(v)
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxy %q is neither an address nor a CIDR network; give one like 10.0.0.1 or 10.0.0.0/8", v)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}
