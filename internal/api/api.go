package api

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/library"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/view"
)

// MaxBody is the largest request body a write accepts.
const MaxBody = 1 << 20

// API serves /api/.
type API struct {
	public  library.Reader // what a request without the token reads
	all     library.Reader // with the token: private cases too
	write   library.Writer
	baseURL string
	token   string // empty: writes are disabled
	log     *slog.Logger
	now     func() time.Time
	bodies  bodies // encoded public cases
}

// New returns the API: a request without the write token reads public,
// one with it reads all (Library.Public and Library.All); writes go to w.
// token guards writes and private reads; without one, writes answer 401
// with a message that says how to enable them, and all is never read.
func New(public, all library.Reader, w library.Writer, baseURL, token string, log *slog.Logger) *API {
	if public.Private() {
		panic("api.New: the first Reader must be the public one (Library.Public)")
	}
	return &API{public: public, all: all, write: w, baseURL: strings.TrimRight(baseURL, "/"), token: token, log: log, now: time.Now, bodies: newBodies()}
}

// handler serves a request whose query string p holds, read through the
// parameter table for its route.
type handler func(w http.ResponseWriter, r *http.Request, p search.Parsed) error

// Mux is where Install registers the routes; *http.ServeMux is one, and a
// test may record what is registered.
type Mux interface {
	Handle(pattern string, h http.Handler)
}

// Route is one route of the API: its pattern, the read (or write) whose
// parameters it takes from the one parameter table, and whether it needs
// the write token. Every request's query string is read once, before its
// handler, through search.Parse for Params; the OpenAPI document lists the
// same parameters from the same table (withParams).
type Route struct {
	Pattern string
	Params  search.Route
	Write   bool
	handler func(*API) handler
}

// Routes is every route of the API.
var Routes = []Route{
	{"GET /api/cases", search.RouteSearch, false, func(a *API) handler { return a.listCases }},
	{"GET /api/cases/{id}", search.RouteCase, false, func(a *API) handler { return a.getCase }},
	{"PUT /api/cases/{id}", search.RoutePut, true, func(a *API) handler { return a.putCase }},
	{"DELETE /api/cases/{id}", search.RouteNone, true, func(a *API) handler { return a.deleteCase }},
	{"POST /api/cases/{id}/review", search.RouteNone, true, func(a *API) handler { return a.review }},
	{"GET /api/cases/{id}/similar", search.RouteSimilar, false, func(a *API) handler { return a.similar }},
	{"GET /api/topics", search.RouteLists, false, func(a *API) handler { return a.topics }},
	{"GET /api/topics/{term}", search.RouteTopic, false, func(a *API) handler { return a.topic }},
	{"GET /api/vocab", search.RouteLists, false, func(a *API) handler { return a.vocab }},
	{"GET /api/stats", search.RouteLists, false, func(a *API) handler { return a.stats }},
	{"GET /api/openapi.json", search.RouteNone, false, func(a *API) handler { return a.openapi }},
}

// Install registers the API on mux.
func (a *API) Install(mux Mux) {
	allowed := map[string][]string{}
	for _, rt := range Routes {
		method, path, _ := strings.Cut(rt.Pattern, " ")
		allowed[path] = append(allowed[path], method)
		mux.Handle(rt.Pattern, a.wrap(rt))
	}
	for path, methods := range allowed {
		sort.Strings(methods)
		allow := strings.Join(append(methods, "OPTIONS"), ", ")
		if contains(methods, "GET") {
			allow = strings.Join(append(methods, "HEAD", "OPTIONS"), ", ")
		}
		mux.Handle("OPTIONS "+path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Allow", allow)
			// Reads are open to every origin; a preflight must say so too, or
			// a browser drops a GET that carries If-None-Match.
			h.Set("Access-Control-Allow-Origin", "*")
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "If-None-Match, Content-Type, Accept, Accept-Language")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
		}))
		// Any other method on a known path: a JSON 405.
		mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			WriteErrorCode(w, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s is not allowed on %s; allowed: %s", r.Method, path, allow))
		}))
	}
	mux.Handle("/api/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteErrorCode(w, http.StatusNotFound, "not_found", fmt.Sprintf("no API route %s; /api/openapi.json lists them", r.URL.Path))
	}))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (a *API) wrap(rt Route) http.Handler {
	fn := rt.handler(a)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			SetCORS(h)
		}
		// The same URL answers differently with the token (private cases):
		// such an answer is never stored by a shared cache.
		h.Add("Vary", "Authorization")
		if a.authorized(r) {
			h.Set("Cache-Control", "private, no-store")
		}
		if err := a.serve(w, r, rt, fn); err != nil {
			WriteError(w, r, a.log, err)
		}
	})
}

// serve checks the token of a write first (a request without it learns
// nothing else), then reads the parameters, then runs the handler.
func (a *API) serve(w http.ResponseWriter, r *http.Request, rt Route, fn handler) error {
	if rt.Write {
		if err := a.requireToken(r); err != nil {
			return err
		}
	}
	p, err := parse(r, rt.Params)
	if err != nil {
		return err
	}
	return fn(w, r, p)
}

// authorized reports whether the request carries the write token.
func (a *API) authorized(r *http.Request) bool {
	if a.token == "" {
		return false
	}
	// The scheme name is case-insensitive (RFC 9110, section 11.1).
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(a.token)) == 1
}

// reader is what the request may read: every case with the write token,
// the public ones without. Each read takes it once, so no handler decides
// visibility itself.
func (a *API) reader(r *http.Request) library.Reader {
	if a.authorized(r) {
		return a.all
	}
	return a.public
}

func (a *API) requireToken(r *http.Request) error {
	if a.token == "" {
		return incidentlib.Errorf(incidentlib.ErrUnauthorized, "writes are disabled on this server; start it with INCIDENTLIB_TOKEN or INCIDENTLIB_TOKEN_FILE set")
	}
	if !a.authorized(r) {
		return incidentlib.Errorf(incidentlib.ErrUnauthorized, "this write needs the header Authorization: Bearer TOKEN")
	}
	return nil
}

func caseID(r *http.Request) (string, error) {
	id := strings.ToUpper(r.PathValue("id"))
	if !incidentlib.ValidID(id) {
		return "", incidentlib.Errorf(incidentlib.ErrInvalid, "%q is not a case id; ids look like IL-0049 (IL- and four digits, or more without a leading zero)", truncate(r.PathValue("id"), 40))
	}
	return id, nil
}

func truncate(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// visible returns the case when the request may see it.
func (a *API) visible(r *http.Request, id string) (*incidentlib.Case, error) {
	c := a.reader(r).Case(id)
	if c == nil {
		return nil, incidentlib.Errorf(incidentlib.ErrNotFound, "no case %s", id)
	}
	return c, nil
}

func (a *API) withURL(c *incidentlib.Case) *incidentlib.Case { return view.WithURL(c, a.baseURL) }

// parse reads the request's query string through the one parameter table
// for route: the first bad parameter is the error, with what is allowed.
func parse(r *http.Request, route search.Route) (search.Parsed, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return search.Parsed{}, incidentlib.Errorf(incidentlib.ErrInvalid, "the query string is malformed: %v", err)
	}
	p, probs := search.Parse(q, search.FaceAPI, route, 0)
	if len(probs) > 0 {
		return p, incidentlib.Errorf(incidentlib.ErrInvalid, "%s", probs[0].Error())
	}
	return p, nil
}

func (a *API) listCases(w http.ResponseWriter, r *http.Request, p search.Parsed) error {
	fields, err := fieldsOf(p, itemFields)
	if err != nil {
		return err
	}
	sq := p.Query
	sq.Lang = p.Lang()
	// The counts by term cost most of an answer's size; they come when
	// asked for.
	sq.NoFacets = !p.Facets
	res, err := a.reader(r).Search(sq)
	if err != nil {
		return err
	}
	out, err := keepFields(view.NewSearchResponse(res, a.baseURL), fields, "items")
	if err != nil {
		return err
	}
	WriteJSON(w, r, http.StatusOK, out)
	return nil
}

// oneLanguage returns v's JSON with every text in lang only: each object
// whose keys are exactly en and ko keeps the one asked for. It is what
// ?lang= does on the routes that otherwise answer in both languages. The
// facts of a case's impact (scope, users, region) become plain strings in
// lang, as the seed's case gives them. Everything else is copied as it
// is, in its order: the answer in one language has the keys of the answer
// in both, in the same order.
func oneLanguage(v any, lang string) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := encodeJSON(&buf, v); err != nil {
		return nil, err
	}
	return appendOneLanguage(nil, bytes.TrimSpace(buf.Bytes()), lang)
}

// appendOneLanguage appends the JSON value raw to dst with its texts in
// lang (oneLanguage).
func appendOneLanguage(dst, raw []byte, lang string) ([]byte, error) {
	if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
		return append(dst, raw...), nil
	}
	parts, err := split(raw)
	if err != nil {
		return nil, err
	}
	if raw[0] == '[' {
		dst = append(dst, '[')
		for i, p := range parts {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendOneLanguage(dst, p.value, lang); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	if v, ok := textIn(parts, lang); ok {
		dst = append(dst, '{')
		dst = strconv.AppendQuote(dst, lang)
		dst = append(dst, ':')
		return append(append(dst, v...), '}'), nil
	}
	dst = append(dst, '{')
	for i, p := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, p.key...), ':')
		if string(p.key) == `"impact"` {
			dst, err = appendImpact(dst, p.value, lang)
		} else {
			dst, err = appendOneLanguage(dst, p.value, lang)
		}
		if err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendImpact appends a case's impact with its facts as plain strings in
// lang.
func appendImpact(dst, raw []byte, lang string) ([]byte, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return appendOneLanguage(dst, raw, lang)
	}
	parts, err := split(raw)
	if err != nil {
		return nil, err
	}
	dst = append(dst, '{')
	for i, p := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, p.key...), ':')
		switch string(p.key) {
		case `"scope"`, `"users"`, `"region"`:
			if len(p.value) > 0 && p.value[0] == '{' {
				fact, err := split(p.value)
				if err != nil {
					return nil, err
				}
				if s, ok := textIn(fact, lang); ok && len(s) > 0 && s[0] == '"' {
					dst = append(dst, s...)
					continue
				}
			}
		}
		if dst, err = appendOneLanguage(dst, p.value, lang); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// member is one member of a JSON object (key as written, quotes and all)
// or one element of an array (no key).
type member struct {
	key, value []byte
}

// split reads the members of the object, or the elements of the array,
// raw holds, as they are written.
func split(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	open, err := dec.Token()
	if err != nil {
		return nil, err
	}
	object := open == json.Delim('{')
	var out []member
	for dec.More() {
		var m member
		if object {
			from := dec.InputOffset()
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			m.key = bytes.TrimLeft(raw[from:dec.InputOffset()], ", \t\r\n")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		m.value = v
		out = append(out, m)
	}
	return out, nil
}

// textIn is the value for lang of an object whose keys are exactly en and
// ko (an incidentlib.Text).
func textIn(parts []member, lang string) ([]byte, bool) {
	if len(parts) != 2 {
		return nil, false
	}
	var en, ko []byte
	for _, p := range parts {
		switch string(p.key) {
		case `"en"`:
			en = p.value
		case `"ko"`:
			ko = p.value
		}
	}
	if en == nil || ko == nil {
		return nil, false
	}
	if lang == "en" {
		return en, true
	}
	return ko, true
}

// writeIn answers v, in one language when the request names one.
func writeIn(w http.ResponseWriter, r *http.Request, p search.Parsed, v any) error {
	if p.Query.Lang == "" {
		WriteJSON(w, r, http.StatusOK, v)
		return nil
	}
	one, err := oneLanguage(v, p.Query.Lang)
	if err != nil {
		return err
	}
	WriteJSON(w, r, http.StatusOK, one)
	return nil
}

func (a *API) getCase(w http.ResponseWriter, r *http.Request, q search.Parsed) error {
	fields, err := fieldsOf(q, caseFields)
	if err != nil {
		return err
	}
	id, err := caseID(r)
	if err != nil {
		return err
	}
	c, err := a.visible(r, id)
	if err != nil {
		return err
	}
	if c.Private {
		w.Header().Set("Cache-Control", "private, no-store")
	} else if len(fields) == 0 && q.Query.Lang == "" {
		// The whole case in both languages, the common read: its JSON
		// and ETag are kept per case (cases are never changed in place).
		e, err := a.bodies.get(c, func() (any, error) { return a.withURL(c), nil })
		if err != nil {
			return err
		}
		writeEncoded(w, r, http.StatusOK, e.body, e.etag)
		return nil
	}
	out, err := keepFields(a.withURL(c), fields, "")
	if err != nil {
		return err
	}
	return writeIn(w, r, q, out)
}

// SimilarResponse is the answer of /api/cases/{id}/similar.
type SimilarResponse struct {
	ID    string             `json:"id"`
	Items []view.SimilarItem `json:"items"`
}

func (a *API) similar(w http.ResponseWriter, r *http.Request, q search.Parsed) error {
	id, err := caseID(r)
	if err != nil {
		return err
	}
	if _, err := a.visible(r, id); err != nil {
		return err
	}
	off := q.Query.Offset
	sims, err := a.reader(r).SimilarTo(id, min(off+q.Limit(), search.MaxLimit))
	if err != nil {
		return err
	}
	sims = sims[min(off, len(sims)):]
	return writeIn(w, r, q, SimilarResponse{ID: id, Items: view.NewSimilarItems(sims)})
}

// TopicSummary is one entry of /api/topics.
type TopicSummary struct {
	Vocab string           `json:"vocab"`
	ID    string           `json:"id"`
	Label incidentlib.Text `json:"label"`
	Count int              `json:"count"`
}

func (a *API) topics(w http.ResponseWriter, r *http.Request, q search.Parsed) error {
	rd := a.reader(r)
	counts := rd.TermCounts()
	items := []TopicSummary{}
	for _, f := range search.FilterFields {
		for _, t := range rd.Vocab().Lists[f] {
			items = append(items, TopicSummary{Vocab: f, ID: t.ID, Label: t.Label, Count: counts[f][t.ID]})
		}
	}
	return writeIn(w, r, q, map[string]any{"items": items})
}

func (a *API) topic(w http.ResponseWriter, r *http.Request, q search.Parsed) error {
	tp, err := a.reader(r).Topic(r.PathValue("term"), q.Lang())
	if err != nil {
		return err
	}
	return writeIn(w, r, q, view.NewTopicResponse(tp).Page(q.Query.Offset, q.Limit()))
}

func (a *API) vocab(w http.ResponseWriter, r *http.Request, q search.Parsed) error {
	out := map[string][]incidentlib.Term{}
	for _, name := range incidentlib.VocabNames {
		out[name] = a.public.Vocab().Lists[name]
	}
	return writeIn(w, r, q, out)
}

func (a *API) stats(w http.ResponseWriter, r *http.Request, q search.Parsed) error {
	rd := a.reader(r)
	return writeIn(w, r, q, view.ComputeStats(rd.Cases(), rd.Vocab()))
}

func (a *API) openapi(w http.ResponseWriter, r *http.Request, _ search.Parsed) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	doc := strings.ReplaceAll(string(OpenAPI()), "{{BASE_URL}}", a.baseURL)
	WriteJSON(w, r, http.StatusOK, json.RawMessage(doc))
	return nil
}

func decodeBody(r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return incidentlib.Errorf(incidentlib.ErrInvalid, "the body must be JSON (Content-Type: application/json), not %s", truncate(ct, 40))
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errTooLarge
		}
		if errors.Is(err, io.EOF) {
			return incidentlib.Errorf(incidentlib.ErrInvalid, "the body is empty; send the case as JSON")
		}
		return incidentlib.Errorf(incidentlib.ErrInvalid, "the body is not valid JSON for this route: %s", truncate(err.Error(), 200))
	}
	if dec.More() {
		return incidentlib.Errorf(incidentlib.ErrInvalid, "the body holds more than one JSON value")
	}
	return nil
}

// errTooLarge is answered 413 (see statusOf).
var errTooLarge = errors.New("the request body is too large")

func (a *API) putCase(w http.ResponseWriter, r *http.Request, q search.Parsed) error {
	id, err := caseID(r)
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	var c incidentlib.Case
	if err := decodeBody(r, &c); err != nil {
		return err
	}
	if c.ID != id {
		return incidentlib.Errorf(incidentlib.ErrInvalid, "the body's id %q differs from the path's %s", truncate(c.ID, 20), id)
	}
	c.Private = q.Private
	created, err := a.write.Put(r.Context(), &c)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		w.Header().Set("Location", "/api/cases/"+id)
	}
	w.Header().Set("Cache-Control", "no-store")
	WriteJSON(w, r, status, a.withURL(&c))
	return nil
}

func (a *API) deleteCase(w http.ResponseWriter, r *http.Request, _ search.Parsed) error {
	id, err := caseID(r)
	if err != nil {
		return err
	}
	if err := a.write.Delete(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ReviewRequest is the body of a review.
type ReviewRequest struct {
	ReviewedBy string `json:"reviewed_by"`
}

func (a *API) review(w http.ResponseWriter, r *http.Request, _ search.Parsed) error {
	id, err := caseID(r)
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	var req ReviewRequest
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	c, err := a.write.MarkReviewed(r.Context(), id, req.ReviewedBy, a.now())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	WriteJSON(w, r, http.StatusOK, a.withURL(c))
	return nil
}
