// Package web is the human face of incidentlib: server-rendered Korean and
// English pages for the cases, their search, topics, vocabulary and
// statistics, with an Atom feed and a sitemap. It reads only from the search
// index and never shows a private case.
package web

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/httpx"
	"github.com/incidentlib/incidentlib/internal/library"
)

// CheckRef is a kubegap check that cites a case, as the case page shows it.
type CheckRef struct {
	ID, Severity string
	Title        incidentlib.Text
}

// Options configure a Site.
type Options struct {
	// BaseURL is the public address of the site (scheme and host, no
	// trailing slash), used wherever a page needs an absolute address:
	// canonical and hreflang links, the feed, the sitemap, and the API and
	// MCP set-up that readers copy. Empty means incidentlib.DefaultBaseURL.
	BaseURL string
	// ChecksFor returns the kubegap checks that cite a case. Nil means no
	// check cites any case yet.
	ChecksFor func(caseID string) []CheckRef
	// Logger receives server errors. Nil means slog.Default().
	Logger *slog.Logger
	// Desk turns on the correction form on every case page and the
	// editors' desk; nil leaves both off.
	Desk *Desk
	// Tools are the MCP server's tools, which the API page lists (the
	// server passes them from the tool registry).
	Tools []Tool
	// SitemapMaxURLs is the most URLs one sitemap file lists before
	// /sitemap.xml becomes an index of several; 0 means the protocol's
	// limit, 50,000.
	SitemapMaxURLs int
}

// Tool is an MCP tool as the API page lists it.
type Tool struct {
	Name  string
	About incidentlib.Text
}

// Site renders the web pages. It is safe for concurrent use.
type Site struct {
	ix     library.Reader
	vocab  *incidentlib.Vocab
	base   string
	checks func(string) []CheckRef
	log    *slog.Logger
	pages  map[string]map[string]*template.Template // page → lang → set
	assets *assets
	desk   *desk
	tools  []Tool
	nav    map[string]string // template → the navigation item current on its page
	// sitemapMax is the most URLs of one sitemap file.
	sitemapMax int
	// sitemap holds the sitemap's URLs as of an index generation, so that
	// the files of a split sitemap are cut from one list rather than each
	// built from every case again.
	sitemapCache struct {
		sync.Mutex
		gen  uint64
		urls []sitemapURL
	}
}

// New builds a Site that reads from ix. It parses every template up front, so a broken
// template fails at start-up instead of on a reader's request.
func New(ix library.Reader, opts Options) (*Site, error) {
	if ix == nil {
		return nil, errors.New("web.New: the search index is nil")
	}
	if ix.Private() {
		return nil, errors.New("web.New: the pages read the public cases only; pass Library.Public(), not a Reader that shows private cases")
	}
	if opts.Desk != nil && opts.Desk.Corrections != nil && opts.Desk.Cases == nil {
		return nil, errors.New("web.New: Desk.Cases is nil; the desk reads every case (Library.All())")
	}
	base := strings.TrimRight(strings.TrimSpace(opts.BaseURL), "/")
	if base == "" {
		base = incidentlib.DefaultBaseURL
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("web.New: base URL %q is not an absolute http(s) address like https://incidents.example.org", opts.BaseURL)
	}
	s := &Site{ix: ix, vocab: ix.Vocab(), base: base, checks: opts.ChecksFor, log: opts.Logger, desk: newDesk(opts.Desk), tools: opts.Tools, nav: navOf(), sitemapMax: opts.SitemapMaxURLs}
	if s.sitemapMax <= 0 {
		s.sitemapMax = sitemapMaxURLs
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	var err error
	if s.assets, err = loadAssets(); err != nil {
		return nil, err
	}
	if s.pages, err = s.parseTemplates(); err != nil {
		return nil, err
	}
	return s, nil
}

// Lang prefixes: Korean is the default at the root, English lives under /en.
var langPrefix = map[string]string{"ko": "", "en": "/en"}

// Install registers every page route on mux. It registers nothing under
// /api/, /mcp, /healthz, /readyz or /metrics; requests there that no other
// handler claims get a plain 404 instead of an HTML page.
func (s *Site) Install(mux *http.ServeMux) {
	for _, lang := range []string{"ko", "en"} {
		p := langPrefix[lang]
		for _, pg := range sitePages {
			if pg.route == "" || (pg.desk && s.desk == nil) {
				continue
			}
			method, path, _ := strings.Cut(pg.route, " ")
			mux.Handle(method+" "+p+path, s.page(lang, pg.handler(s)))
		}
		mux.Handle("GET "+p+"/cases/{$}", redirectKeepQuery(p+"/cases"))
		mux.Handle("GET "+p+"/orgs/{$}", redirectKeepQuery(p+"/orgs"))
		// The index of topics, by vocabulary, lives at /topics beside the
		// topic pages; /vocab, its address before, still leads there.
		mux.Handle("GET "+p+"/topics/{$}", redirectKeepQuery(p+"/topics"))
		mux.Handle("GET "+p+"/vocab", redirectKeepQuery(p+"/topics"))
	}
	mux.Handle("GET /en", http.RedirectHandler("/en/", http.StatusMovedPermanently))
	mux.Handle("GET /sitemap.xml", s.page("ko", s.sitemap))
	mux.Handle("GET /sitemaps/{file}", s.page("ko", s.sitemapPart))
	mux.Handle("GET /robots.txt", s.page("ko", s.robots))
	mux.Handle("GET /static/", s.assets)
	mux.HandleFunc("/", s.fallback)
}

// handlerFunc is a page handler: it writes the page or returns an error that
// page turns into the error page.
type handlerFunc func(w http.ResponseWriter, r *http.Request, lang string) error

// page adapts a handlerFunc: security headers on every response, and one
// place where errors become pages.
func (s *Site) page(lang string, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		if err := h(w, r, lang); err != nil {
			s.serveError(w, r, lang, err)
		}
	})
}

// The policy allows only our own stylesheet and images: pages carry no
// script at all, so script-src is 'none' and an injected <script> would not
// run even if escaping ever failed.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; " +
	"script-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	h.Set("X-Frame-Options", "DENY")
}

// isMachinePath reports whether path belongs to a face other than the web
// pages (API, MCP, probes), where an HTML 404 would confuse the client.
func isMachinePath(path string) bool {
	for _, p := range []string{"/api/", "/mcp/"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	switch path {
	case "/api", "/mcp", "/healthz", "/readyz", "/metrics":
		return true
	}
	return false
}

// fallback answers every request that no route claims: the 404 page in the
// language of the path, or a plain 404 for machine paths.
func (s *Site) fallback(w http.ResponseWriter, r *http.Request) {
	if isMachinePath(r.URL.Path) {
		// The same shape as the API's errors, so clients parse one format.
		httpx.WriteError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.URL.Path)
		return
	}
	lang := "ko"
	if r.URL.Path == "/en" || strings.HasPrefix(r.URL.Path, "/en/") {
		lang = "en"
	}
	setSecurityHeaders(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.renderStatus(w, r, lang, http.StatusMethodNotAllowed, "error", s.errorData(lang, http.StatusMethodNotAllowed))
		return
	}
	s.notFound(w, r, lang)
}

func (s *Site) notFound(w http.ResponseWriter, r *http.Request, lang string) {
	s.renderStatus(w, r, lang, http.StatusNotFound, "notfound", s.errorData(lang, http.StatusNotFound))
}

// serveError maps an error to its page: unknown things are 404, bad input
// 400, anything else a 500 whose detail goes to the log, not the reader.
func (s *Site) serveError(w http.ResponseWriter, r *http.Request, lang string, err error) {
	switch {
	case errors.Is(err, incidentlib.ErrNotFound):
		s.notFound(w, r, lang)
	case errors.Is(err, incidentlib.ErrInvalid):
		s.renderStatus(w, r, lang, http.StatusBadRequest, "error", s.errorData(lang, http.StatusBadRequest))
	default:
		s.log.Error("web page failed", "method", r.Method, "path", r.URL.Path, "err", err)
		s.renderStatus(w, r, lang, http.StatusInternalServerError, "error", s.errorData(lang, http.StatusInternalServerError))
	}
}

// render writes page with status 200.
func (s *Site) render(w http.ResponseWriter, r *http.Request, lang, page string, p *pageData) error {
	return s.renderCode(w, r, lang, http.StatusOK, page, p)
}

// renderCode executes the page into a buffer first, so that a template
// error becomes a clean 500 instead of half a page.
func (s *Site) renderCode(w http.ResponseWriter, r *http.Request, lang string, code int, page string, p *pageData) error {
	set := s.pages[page][lang]
	if set == nil {
		return fmt.Errorf("no template %q for %s", page, lang)
	}
	s.fillCommon(r, lang, p)
	if p.Nav == "" {
		p.Nav = s.nav[page]
	}
	buf := pageBufs.Get().(*bytes.Buffer)
	defer putPageBuf(buf)
	buf.Reset()
	if err := set.ExecuteTemplate(buf, "base", p); err != nil {
		return fmt.Errorf("render %s/%s: %w", page, lang, err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Language", lang)
	// sitePages change when a case is added or corrected: caches may keep one
	// for a minute, which spares repeated renders without leaving a
	// correction unseen for long.
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "public, max-age=60, must-revalidate")
	}
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, err := w.Write(buf.Bytes())
		if err != nil {
			s.log.Debug("write page", "path", r.URL.Path, "err", err)
		}
	}
	return nil
}

// pageBufs holds the buffers pages are rendered into. A page is rendered
// whole before its status is written (a template error still gets its
// error page); a buffer that has grown to a page's size is kept for the
// next, instead of growing a new one from nothing for every request.
var pageBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putPageBuf(b *bytes.Buffer) {
	if b.Cap() > 4<<20 {
		return // an outsized page does not pin its buffer
	}
	pageBufs.Put(b)
}

// renderStatus renders an error page; if even that fails it falls back to
// plain text so the reader still gets the status.
func (s *Site) renderStatus(w http.ResponseWriter, r *http.Request, lang string, code int, page string, p *pageData) {
	w.Header().Set("Cache-Control", "no-store")
	if err := s.renderCode(w, r, lang, code, page, p); err != nil {
		s.log.Error("render error page", "err", err)
		http.Error(w, http.StatusText(code), code)
	}
}

// redirectKeepQuery answers 301 to path with the request's query string, for
// addresses people type with a trailing slash.
func redirectKeepQuery(path string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to := path
		if r.URL.RawQuery != "" {
			to += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, to, http.StatusMovedPermanently)
	})
}
