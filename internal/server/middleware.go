package server

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"github.com/incidentlib/incidentlib/internal/api"
	"github.com/incidentlib/incidentlib/internal/httpx"
)

var requestIDRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	size   int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.size += n
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// metrics are the Prometheus collectors of the server.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer, indexSize func() float64) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "incidentlib_http_requests_total", Help: "HTTP requests by route, method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "incidentlib_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route"}),
	}
	reg.MustRegister(m.requests, m.latency, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "incidentlib_index_cases", Help: "Public cases in the search index (private ones are not counted).",
	}, indexSize))
	return m
}

// observe wraps h with request ids, logging, metrics and panic recovery.
func (s *Server) observe(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !requestIDRE.MatchString(id) {
			var b [8]byte
			rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		w.Header()["X-Content-Type-Options"] = nosniff
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic", "request_id", id, "panic", fmt.Sprint(p), "path", r.URL.Path)
				if sw.status == 0 {
					api.WriteErrorCode(sw, http.StatusInternalServerError, "internal", "something went wrong on the server; the request id in the X-Request-Id header helps find it in the logs")
				}
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			d := time.Since(start)
			s.metrics.requests.WithLabelValues(route, methodLabel(r.Method), strconv.Itoa(status)).Inc()
			s.metrics.latency.WithLabelValues(route).Observe(d.Seconds())
			if s.cfg.AccessLog || status >= 500 {
				s.log.Info("request", "request_id", id, "method", r.Method, "path", r.URL.Path, "status", status, "bytes", sw.size, "duration", d)
			}
		}()
		h.ServeHTTP(sw, r)
	})
}

// methodLabel maps a request method to a fixed set of metric labels: any
// other method name a client invents would become a new series and grow
// /metrics without bound.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// limiter is a token bucket per client address.
type limiter struct {
	mu      sync.Mutex
	buckets map[string]*bucket
	rate    rate.Limit
	burst   int
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(perSecond float64, burst int) *limiter {
	return &limiter{buckets: map[string]*bucket{}, rate: rate.Limit(perSecond), burst: burst}
}

// allow reports whether the client may go on, or how long it should wait.
func (l *limiter) allow(client string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	b := l.buckets[client]
	if b == nil {
		if len(l.buckets) > 100_000 {
			// Forget clients idle for a minute so the map stays bounded.
			for k, v := range l.buckets {
				if now.Sub(v.seen) > time.Minute {
					delete(l.buckets, k)
				}
			}
		}
		b = &bucket{lim: rate.NewLimiter(l.rate, l.burst)}
		l.buckets[client] = b
	}
	b.seen = now
	res := b.lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

// clientAddr is the address of the client that sent r: the connection's
// peer, or, when the peer is a trusted proxy (Config.TrustedProxies), the
// nearest address in X-Forwarded-For that is not a trusted proxy.
func (s *Server) clientAddr(r *http.Request) string {
	return httpx.ClientAddr(r, s.cfg.TrustedProxies)
}

// rateLimit answers 429 with Retry-After to a client over its rate on the
// public API and MCP; pages, health and metrics are not limited.
func (s *Server) rateLimit(h http.Handler) http.Handler {
	if s.limiter == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; strings.HasPrefix(p, "/api/") || p == "/mcp" {
			if ok, wait := s.limiter.allow(s.clientAddr(r)); !ok {
				secs := int(math.Ceil(wait.Seconds()))
				w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
				if r.Method == http.MethodGet || r.Method == http.MethodHead {
					api.SetCORS(w.Header())
				}
				msg := fmt.Sprintf("too many requests from this address; wait %d s", max(secs, 1))
				if p == "/mcp" {
					// An MCP client reads JSON-RPC, not the API's error body.
					writeRPCError(w, http.StatusTooManyRequests, msg)
					return
				}
				api.WriteErrorCode(w, http.StatusTooManyRequests, "rate_limited", msg)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// gzipWriter compresses a response when its type is worth compressing.
type gzipWriter struct {
	http.ResponseWriter
	gz      *gzip.Writer
	decided bool
	on      bool
}

var gzipPool = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed); return w }}

func compressible(ct string) bool {
	for _, p := range []string{"application/json", "text/", "application/xml", "application/atom+xml", "image/svg+xml", "application/javascript"} {
		if strings.HasPrefix(ct, p) {
			return true
		}
	}
	return false
}

func (g *gzipWriter) decide(status int) {
	if g.decided {
		return
	}
	g.decided = true
	h := g.Header()
	if status < 200 || status == http.StatusNoContent || status == http.StatusNotModified || h.Get("Content-Encoding") != "" || !compressible(h.Get("Content-Type")) {
		return
	}
	g.on = true
	h.Set("Content-Encoding", "gzip")
	h.Del("Content-Length")
	if etag := h.Get("ETag"); strings.HasPrefix(etag, `"`) {
		// The bytes differ from the uncompressed ones: mark the tag weak.
		h.Set("ETag", "W/"+etag)
	}
	g.gz = gzipPool.Get().(*gzip.Writer)
	g.gz.Reset(g.ResponseWriter)
}

func (g *gzipWriter) WriteHeader(status int) {
	g.decide(status)
	g.ResponseWriter.WriteHeader(status)
}

func (g *gzipWriter) Write(b []byte) (int, error) {
	if !g.decided {
		if g.Header().Get("Content-Type") == "" {
			g.Header().Set("Content-Type", http.DetectContentType(b))
		}
		g.WriteHeader(http.StatusOK)
	}
	if g.on {
		return g.gz.Write(b)
	}
	return g.ResponseWriter.Write(b)
}

func (g *gzipWriter) Flush() {
	if g.on {
		g.gz.Flush()
	}
	if f, ok := g.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (g *gzipWriter) close() {
	if g.on {
		g.gz.Close()
		gzipPool.Put(g.gz)
	}
}

// compress gzips responses for clients that accept it. MCP answers are
// compressed too: a tool answer is JSON that shrinks several times, and an
// event stream stays live because every flush ends a gzip block.
func compress(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") || r.Method == http.MethodHead {
			h.ServeHTTP(w, r)
			return
		}
		// If-None-Match may carry the weak tag we sent: httpx.NoneMatch
		// compares weakly, so it still matches.
		g := &gzipWriter{ResponseWriter: w}
		defer g.close()
		h.ServeHTTP(g, r)
	})
}

// slogLevel parses a log level name.
func slogLevel(s string) (slog.Level, error) {
	var l slog.Level
	err := l.UnmarshalText([]byte(s))
	return l, err
}

// mcpBodyLimit is the largest MCP request body the server reads.
const mcpBodyLimit = 1 << 20

// shareWait is how long an MCP call waits for its client's share of the
// slots and for a slot, before 429 or 503.
const shareWait = 250 * time.Millisecond

// limitConcurrency serves at most n requests of h at once (0: 4 per CPU),
// and at most perClient of them for one client (0: a quarter of n, at
// least 2; never more than n).
//
// A request's body is read in full, within bodyFor (0: 10 s) and up to
// mcpBodyLimit, before the request takes a slot: a client that sends its
// body slowly holds a connection, never a slot. A call waits a moment
// (shareWait) for its client's share and then for a slot: a client that
// calls one at a time may send its next call as soon as it has read an
// answer, while the handler of the last one is still returning. A client
// still over its share after the moment gets 429, and a request that finds
// every slot taken gets 503; both with Retry-After and a JSON-RPC error
// that names the limit, so that a burst of large MCP calls cannot take all
// the memory and one client cannot take every slot.
func limitConcurrency(h http.Handler, n, perClient int, bodyFor time.Duration, client func(*http.Request) string) http.Handler {
	if n <= 0 {
		n = 4 * runtime.GOMAXPROCS(0)
	}
	if bodyFor <= 0 {
		bodyFor = 10 * time.Second
	}
	share := perClient
	if share <= 0 {
		share = max(2, n/4)
	}
	share = min(share, n)
	slots := make(chan struct{}, n)
	// Each client with calls waiting or in progress has a channel of its
	// share, kept while any of its calls refers to it.
	type clientShare struct {
		held chan struct{}
		refs int
	}
	var mu sync.Mutex
	clients := map[string]*clientShare{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Calls come as POSTs. A GET (a client's stream for messages from
		// the server, which a stateless server never sends) or a DELETE
		// does no work that the slots bound, and a stream held open must
		// not count against its client's calls.
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			if !readBody(w, r, bodyFor) {
				return
			}
		}
		who := client(r)
		mu.Lock()
		cs := clients[who]
		if cs == nil {
			cs = &clientShare{held: make(chan struct{}, share)}
			clients[who] = cs
		}
		cs.refs++
		mu.Unlock()
		defer func() {
			mu.Lock()
			if cs.refs--; cs.refs == 0 {
				delete(clients, who)
			}
			mu.Unlock()
		}()
		t := time.NewTimer(shareWait)
		defer t.Stop()
		select {
		case cs.held <- struct{}{}:
		case <-t.C:
			w.Header().Set("Retry-After", "1")
			writeRPCError(w, http.StatusTooManyRequests, fmt.Sprintf("this client already has %d MCP calls in progress, the most one client may have at once; retry when one has finished", share))
			return
		case <-r.Context().Done():
			return
		}
		defer func() { <-cs.held }()
		select {
		case slots <- struct{}{}:
		case <-t.C:
			w.Header().Set("Retry-After", "1")
			writeRPCError(w, http.StatusServiceUnavailable, fmt.Sprintf("the server is busy: all %d MCP call slots are taken; retry in a second", n))
			return
		case <-r.Context().Done():
			return
		}
		defer func() { <-slots }()
		h.ServeHTTP(w, r)
	})
}

// readBody reads r's body in full within d and up to mcpBodyLimit, and
// puts it back as a reader of the bytes read. It answers the error itself
// and returns false when the body is too large, too slow or broken.
func readBody(w http.ResponseWriter, r *http.Request, d time.Duration) bool {
	rc := http.NewResponseController(w)
	// A writer that cannot set deadlines (a test's recorder) reads without.
	_ = rc.SetReadDeadline(time.Now().Add(d))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcpBodyLimit))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var tooBig *http.MaxBytesError
		var nerr net.Error
		switch {
		case errors.As(err, &tooBig):
			writeRPCError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is over %d bytes, the most an MCP call may send", mcpBodyLimit))
		case errors.As(err, &nerr) && nerr.Timeout():
			w.Header().Set("Connection", "close")
			writeRPCError(w, http.StatusRequestTimeout, fmt.Sprintf("the request body did not arrive within %s; send it at once", d))
		default:
			writeRPCError(w, http.StatusBadRequest, "the request body could not be read: "+err.Error())
		}
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return true
}

// writeRPCError answers an MCP request that never reached the server with a
// JSON-RPC error (id null: the request was not read).
func writeRPCError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32000, "message": msg}})
	w.Write(append(b, '\n'))
}

// nosniff is the value of X-Content-Type-Options, shared by every answer.
var nosniff = []string{"nosniff"}
