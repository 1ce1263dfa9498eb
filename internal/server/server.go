// Package server is `incidentlib serve`: one process with three faces (web
// pages, JSON API, MCP) over one library, plus health, readiness and
// metrics endpoints.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/api"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/library"
	"github.com/incidentlib/incidentlib/internal/mcpserver"
	"github.com/incidentlib/incidentlib/internal/web"
)

// Version is reported by the MCP server and /healthz.
var Version = "dev"

// Config is everything serve can be told.
type Config struct {
	Addr   string
	DBPath string // SQLite file; default in the user's data folder
	// IndexSnapshot is the file the search index is kept in between
	// starts (library.OpenSnapshot); "" keeps none.
	IndexSnapshot string
	DatabaseURL   string // postgres://… for several replicas
	BaseURL       string
	LogFormat     string // text or json
	LogLevel      string
	Token         string // write token; empty disables writes
	// RateLimit is requests per second per client on /api/ and /mcp;
	// 0 turns the limit off.
	RateLimit   float64
	RateBurst   int
	AccessLog   bool
	MCPJSON     bool // answer MCP calls as application/json instead of SSE
	ShutdownFor time.Duration
	// ChecksFor lists the kubegap checks that cite a case, for the case
	// pages (serve reads them from internal/checkindex); nil for none.
	ChecksFor func(caseID string) []web.CheckRef
	// DrainFor is how long the server keeps serving after SIGTERM, with
	// /readyz answering 503, before it closes its listener: load balancers
	// stop sending, and connections already queued are still accepted.
	DrainFor time.Duration
	// MCPConcurrency bounds the MCP calls served at once; more get a
	// JSON-RPC "busy" error with 503. 0 means 4 per CPU.
	MCPConcurrency int
	// MCPPerClient bounds the MCP calls one client may have in flight
	// at once; more get 429. 0 means a quarter of MCPConcurrency, at least
	// 2; at most MCPConcurrency.
	MCPPerClient int
	// BodyFor bounds how long an MCP request's body may take to arrive;
	// it is read before the request takes one of the MCPConcurrency slots.
	// 0 means 10 s.
	BodyFor time.Duration
	// TrustedProxies are the networks of reverse proxies whose
	// X-Forwarded-For the server believes. For a request that comes from
	// one of them, the client (for the rate limit, the MCP slots and the
	// correction form) is the nearest address in X-Forwarded-For that is not
	// itself a trusted proxy. Empty, the default: the client is always the
	// connection's peer, and X-Forwarded-For is ignored.
	TrustedProxies []netip.Prefix
	// FormMinFill is the least time between showing the correction form
	// and sending it (quicker is taken for a bot); 0 means 3 s.
	FormMinFill time.Duration
}

// DefaultConfig returns the defaults of serve.
func DefaultConfig() Config {
	return Config{Addr: incidentlib.DefaultAddr, LogFormat: "text", LogLevel: "info", RateLimit: 20, RateBurst: 60, ShutdownFor: 10 * time.Second, DrainFor: time.Second}
}

// Server is a running incidentlib serve.
type Server struct {
	cfg     Config
	log     *slog.Logger
	store   incidentlib.Store
	lib     *library.Library
	api     *api.API
	mcp     *mcpserver.Server
	metrics *metrics
	reg     *prometheus.Registry
	limiter *limiter
	handler http.Handler
	http    *http.Server
	ready   atomic.Bool
	site    *web.Site
	// handlerOnce builds handler on the first call of Handler, which tests
	// and Serve may make from several goroutines.
	handlerOnce sync.Once
}

// NewLogger returns the logger the config asks for.
func NewLogger(cfg Config, w *os.File) (*slog.Logger, error) {
	lvl, err := slogLevel(cfg.LogLevel)
	if err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", cfg.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: lvl}
	switch cfg.LogFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: use text or json", cfg.LogFormat)
}

// New seeds st (opened by the caller) from the corpus c, builds the index
// from it and wires the faces: JSON API, MCP and web pages. The Server owns
// st from then on: Close closes it.
func New(ctx context.Context, cfg Config, st incidentlib.Store, c *corpus.Corpus, log *slog.Logger) (*Server, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = incidentlib.BaseURLFor(cfg.Addr)
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, fmt.Errorf("--base-url %q must start with http:// or https://", cfg.BaseURL)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	lib, seeded, err := library.OpenSnapshot(ctx, st, c, log, cfg.IndexSnapshot)
	if err != nil {
		return nil, err
	}
	log.Info("library ready", "cases", lib.All().Len(), "seeded", seeded.Inserted, "upgraded", seeded.Upgraded)
	s := &Server{cfg: cfg, log: log, store: st, lib: lib, reg: prometheus.NewRegistry()}
	s.ready.Store(true) // the index is built: reads can be answered
	s.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.metrics = newMetrics(s.reg, func() float64 { return float64(lib.Public().Len()) })
	if cfg.RateLimit > 0 {
		s.limiter = newLimiter(cfg.RateLimit, max(cfg.RateBurst, 1))
	}
	s.api = api.New(lib.Public(), lib.All(), lib, cfg.BaseURL, cfg.Token, log)
	s.mcp = mcpserver.New(lib.Public(), cfg.BaseURL, Version)
	opts := web.Options{BaseURL: cfg.BaseURL, ChecksFor: cfg.ChecksFor, Logger: log}
	for _, t := range mcpserver.Tools() {
		opts.Tools = append(opts.Tools, web.Tool{Name: t.Def.Name, About: t.About})
	}
	if cs := lib.Corrections(); cs != nil {
		// Corrections from readers: five an address every ten minutes,
		// whatever the API's rate.
		corrections := newLimiter(5.0/600, 5)
		opts.Desk = &web.Desk{
			Corrections: cs,
			Cases:       lib.All(),
			Token:       cfg.Token,
			Review: func(ctx context.Context, id, by string) error {
				_, err := lib.MarkReviewed(ctx, id, by, time.Now())
				return err
			},
			Allow:   func(r *http.Request) bool { ok, _ := corrections.allow(s.clientAddr(r)); return ok },
			Client:  s.clientAddr,
			MinFill: cfg.FormMinFill,
		}
		// Forms sent and sessions ended are kept in the store, which
		// every replica shares.
		if ks, ok := st.(incidentlib.KeyStore); ok {
			opts.Desk.Keys = ks
		}
	}
	if s.site, err = web.New(lib.Public(), opts); err != nil {
		return nil, fmt.Errorf("web pages: %w", err)
	}
	return s, nil
}

// Library returns the server's library.
func (s *Server) Library() *library.Library { return s.lib }

// Handler returns the whole HTTP handler, building it on first use.
func (s *Server) Handler() http.Handler {
	s.handlerOnce.Do(func() { s.handler = s.buildHandler() })
	return s.handler
}

func (s *Server) buildHandler() http.Handler {
	mux := http.NewServeMux()
	s.api.Install(mux)
	mux.Handle("/mcp", limitConcurrency(s.mcp.Handler(s.cfg.MCPJSON), s.cfg.MCPConcurrency, s.cfg.MCPPerClient, s.cfg.BodyFor, s.clientAddr))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		api.WriteJSON(w, r, http.StatusOK, map[string]any{"status": "ok", "version": Version})
	})
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	s.site.Install(mux) // pages, and / with the 404 page for unknown paths
	var h http.Handler = mux
	h = s.rateLimit(h)
	h = compress(h)
	h = s.observe(h)
	return h
}

// readyz reports ready once the index is built; it names the database state
// so that operators see a database outage, and stays 200 while the index
// can serve reads.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	db := "up"
	if err := s.store.Ping(ctx); err != nil {
		db = "down"
	}
	status := http.StatusOK
	state := "ready"
	if !s.ready.Load() {
		status, state = http.StatusServiceUnavailable, "starting"
	}
	w.Header().Set("Cache-Control", "no-store")
	api.WriteJSON(w, r, status, map[string]any{"status": state, "database": db, "cases": s.lib.Public().Len()})
}

// Follow keeps the index up to date with writes other replicas make to a
// shared store, until ctx ends. It returns once it listens (or after five
// seconds), having reloaded whatever changed since the index was built, so
// that no write falls between the build and the first notice. It does
// nothing for a store only this process writes to. Serve calls it; tests of
// a bare Handler call it themselves.
func (s *Server) Follow(ctx context.Context) {
	w, ok := s.store.(incidentlib.Watcher)
	if !ok {
		return
	}
	listening := make(chan struct{})
	var once sync.Once
	go w.Watch(ctx, func(ch incidentlib.Change) {
		if ch.ID == "" {
			n, err := s.lib.Reload(ctx)
			if err != nil {
				s.log.Warn("reload from the store", "err", err)
			} else if n > 0 {
				s.log.Info("index caught up with the store", "changed", n)
			}
			once.Do(func() { close(listening) })
			return
		}
		if err := s.lib.Apply(ctx, ch); err != nil {
			s.log.Warn("apply a change from another replica", "id", ch.ID, "err", err)
		}
	})
	select {
	case <-listening:
	case <-time.After(5 * time.Second):
		s.log.Warn("not yet listening for other replicas' changes; going on")
	case <-ctx.Done():
	}
}

// Serve answers on ln until ctx ends, then shuts down gracefully: it stops
// accepting, lets requests in flight finish (up to ShutdownFor), and returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.http = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	followCtx, stopFollowing := context.WithCancel(context.Background())
	defer stopFollowing()
	s.Follow(followCtx)
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.ready.Store(false)
	// From now on every answer closes its connection: a client that kept
	// one alive reconnects (to another replica) instead of having it reset
	// when the listener closes.
	s.http.SetKeepAlivesEnabled(false)
	s.log.Info("shutting down", "drain", s.cfg.DrainFor, "grace", s.cfg.ShutdownFor)
	select {
	case err := <-errc:
		return err
	case <-time.After(s.cfg.DrainFor):
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownFor)
	defer cancel()
	if err := s.http.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close releases the index and the store.
func (s *Server) Close() error {
	s.lib.Close()
	return s.store.Close()
}
