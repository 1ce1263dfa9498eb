package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/httpx"
	"github.com/incidentlib/incidentlib/internal/library"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// Desk turns on reader corrections and the editors' desk.
type Desk struct {
	// Corrections keeps what readers send. Required.
	Corrections incidentlib.CorrectionStore
	// Cases is what the signed-in editors read: every case, private ones
	// included (Library.All). Required. The pages, the correction form
	// among them, read the Site's public Reader.
	Cases library.Reader
	// Token is the write token; signing in at the desk takes it. Empty
	// keeps the desk closed (corrections still work).
	Token string
	// Review marks a case reviewed: the same path as POST
	// /api/cases/{id}/review.
	Review func(ctx context.Context, id, by string) error
	// Allow rate-limits corrections by client; nil allows all.
	Allow func(r *http.Request) bool
	// MinFill is the least time between showing the form and sending it;
	// quicker sends are taken for bots. Zero means 3 s.
	MinFill time.Duration
	// Keys keeps the keys that may be used once: correction forms sent
	// and desk sessions signed out. Replicas must share it (the store);
	// nil keeps them in this process.
	Keys incidentlib.KeyStore
	// Client names the client a request comes from, for the sign-in's
	// backoff; nil takes the connection's peer address.
	Client func(r *http.Request) string
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Limits on a correction, so a paste cannot fill the database.
const (
	maxWhat     = 4000
	maxSource   = 1000
	maxContact  = 200
	formMaxAge  = 2 * time.Hour
	sessionLife = 12 * time.Hour
	deskCookie  = "il_desk"
)

// correctionFields are the sections a reader can point at.
var correctionFields = []string{"title", "summary", "timeline", "symptoms", "cause", "detection", "remediation", "action_items", "lessons", "impact", "sources", "terms", "other"}

type desk struct {
	Desk
	secret []byte
	signIn *backoff
}

func newDesk(d *Desk) *desk {
	if d == nil || d.Corrections == nil {
		return nil
	}
	k := &desk{Desk: *d}
	if k.MinFill == 0 {
		k.MinFill = 3 * time.Second
	}
	if k.Now == nil {
		k.Now = time.Now
	}
	if k.Keys == nil {
		k.Keys = &memKeys{now: k.Now}
	}
	if k.Client == nil {
		k.Client = func(r *http.Request) string { return httpx.ClientAddr(r, nil) }
	}
	k.signIn = &backoff{now: k.Now, fails: map[string]*failures{}}
	// Replicas that share the token share the key, so a form served by one
	// may be sent to another; without a token the key is this process's own.
	if k.Token != "" {
		sum := sha256.Sum256([]byte("incidentlib web forms\x00" + k.Token))
		k.secret = sum[:]
	} else {
		k.secret = make([]byte, 32)
		rand.Read(k.secret)
	}
	return k
}

func (k *desk) mac(parts ...string) string {
	m := hmac.New(sha256.New, k.secret)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(m.Sum(nil))
}

// formToken binds a form to the time it was served and to its purpose
// (and, at the desk, to the session), so it cannot be forged or reused for
// another form.
func (k *desk) formToken(purpose string) string {
	ts := strconv.FormatInt(k.Now().UnixMilli(), 10)
	return ts + "." + k.mac("form", purpose, ts)
}

// checkForm returns how long ago a valid token was issued, or an error.
func (k *desk) checkForm(tok, purpose string) (time.Duration, error) {
	ts, sig, ok := strings.Cut(tok, ".")
	ms, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil || !hmac.Equal([]byte(sig), []byte(k.mac("form", purpose, ts))) {
		return 0, errForm
	}
	age := k.Now().Sub(time.UnixMilli(ms))
	if age < 0 || age > formMaxAge {
		return 0, errExpired
	}
	return age, nil
}

var (
	errForm    = errors.New("bad form token")
	errExpired = errors.New("form expired")
)

// sameOrigin refuses a POST a page of another site sent: a browser names the
// sending origin in Origin (or at least Referer).
func sameOrigin(r *http.Request, base string) bool {
	host := r.Host
	ok := func(raw string) bool {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return false
		}
		if b, err := url.Parse(base); err == nil && strings.EqualFold(u.Host, b.Host) {
			return true
		}
		return strings.EqualFold(u.Host, host)
	}
	if o := r.Header.Get("Origin"); o != "" {
		return ok(o)
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		return ok(ref)
	}
	// Neither header: not a browser, so no ambient credentials to abuse;
	// the form token still has to hold.
	return true
}

// session: the cookie is "expiry.nonce.mac"; only the server can make one,
// and signing out spends its nonce in Keys, which every replica reads, so
// a copy of the cookie is worth nothing after.
func (k *desk) newSession() string {
	exp := strconv.FormatInt(k.Now().Add(sessionLife).Unix(), 10)
	nonce := make([]byte, 16)
	rand.Read(nonce)
	n := hex.EncodeToString(nonce)
	return exp + "." + n + "." + k.mac("session", exp, n)
}

// parseSession returns the nonce and expiry of a well-formed, signed
// session cookie value that has not expired.
func (k *desk) parseSession(v string) (nonce string, exp time.Time, ok bool) {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return "", time.Time{}, false
	}
	n, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || !hmac.Equal([]byte(parts[2]), []byte(k.mac("session", parts[0], parts[1]))) || k.Now().Unix() > n {
		return "", time.Time{}, false
	}
	return parts[1], time.Unix(n, 0), true
}

func (k *desk) session(r *http.Request) (string, bool) {
	if k.Token == "" {
		return "", false
	}
	c, err := r.Cookie(deskCookie)
	if err != nil {
		return "", false
	}
	nonce, _, ok := k.parseSession(c.Value)
	if !ok {
		return "", false
	}
	// A store that cannot answer ends no session and opens none: the desk
	// is closed until it answers.
	if ended, err := k.Keys.Spent(r.Context(), "session:"+nonce); err != nil || ended {
		return "", false
	}
	return c.Value, true
}

// formKey is the key a sent form's token is spent under.
func formKey(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return "form:" + hex.EncodeToString(sum[:])
}

// backoff makes a client that gave a wrong token wait before its next try:
// 1 s after the first, doubling with each, at most maxBackoff. A right
// token clears the count. Tries while waiting are refused unread.
type backoff struct {
	mu    sync.Mutex
	now   func() time.Time
	fails map[string]*failures
}

type failures struct {
	n     int
	until time.Time
}

const maxBackoff = 15 * time.Minute

// wait returns how long the client must still wait, or 0.
func (b *backoff) wait(client string) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if f := b.fails[client]; f != nil {
		if d := f.until.Sub(b.now()); d > 0 {
			return d
		}
	}
	return 0
}

// failed counts a wrong token and returns the wait it earns.
func (b *backoff) failed(client string) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if len(b.fails) > 10000 { // forget clients that stopped long ago
		for c, f := range b.fails {
			if now.Sub(f.until) > maxBackoff {
				delete(b.fails, c)
			}
		}
	}
	f := b.fails[client]
	if f == nil {
		f = &failures{}
		b.fails[client] = f
	}
	f.n++
	d := min(time.Second<<min(f.n-1, 20), maxBackoff)
	f.until = now.Add(d)
	return d
}

func (b *backoff) succeeded(client string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.fails, client)
}

// memKeys keeps spent keys in this process, for a site without a store
// that keeps them (one process, tests).
type memKeys struct {
	mu   sync.Mutex
	now  func() time.Time
	keys map[string]time.Time
}

func (m *memKeys) Spend(_ context.Context, key string, until time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.keys == nil {
		m.keys = map[string]time.Time{}
	}
	for k, u := range m.keys {
		if !u.After(now) {
			delete(m.keys, k)
		}
	}
	if _, ok := m.keys[key]; ok {
		return false, nil
	}
	m.keys[key] = until
	return true, nil
}

func (m *memKeys) Spent(_ context.Context, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.keys[key]
	return ok && u.After(m.now()), nil
}

// correctionForm is what the reader typed, kept when the form comes back.
type correctionForm struct {
	Field, What, Source, Contact string
}

type correctData struct {
	Case     *incidentlib.Case
	Fields   []string
	Form     correctionForm
	Token    string
	Problems []string
	// Errors are the problems that belong to one input, by its name
	// (field, what, source, contact): the form shows each beside its
	// input, tied to it with aria-describedby, and the summary links it.
	Errors map[string]string
	Action string
}

// correctionInputs are the correction form's inputs, in its order.
var correctionInputs = []string{"field", "what", "source", "contact"}

// ErrorInputs are the inputs that have a problem, in the form's order.
func (d correctData) ErrorInputs() []string { return inputsWithErrors(d.Errors, correctionInputs) }

func (s *Site) correctionPage(w http.ResponseWriter, r *http.Request, lang string) error {
	c, err := s.publicCase(r)
	if err != nil {
		return err
	}
	d := correctData{Case: c, Fields: correctionFields, Token: s.desk.formToken("correct:" + c.ID), Action: langPrefix[lang] + incidentlib.CasePath(c.ID) + "/correct",
		Form: correctionForm{Field: r.URL.Query().Get("field")}}
	return s.renderForm(w, r, lang, http.StatusOK, "correct", correctTitle(lang, c), d)
}

// correctTitle is a correction form's title: the case's id and title
// name it, so that no two forms share one.
func correctTitle(lang string, c *incidentlib.Case) string {
	return locale.T(lang, "correct.title") + " — " + c.ID + " " + c.Title.In(lang)
}

func (s *Site) renderForm(w http.ResponseWriter, r *http.Request, lang string, code int, page, title string, data any) error {
	w.Header().Set("Cache-Control", "no-store")
	p := &pageData{Title: title, Description: locale.T(lang, "list.description"), Data: data, NoIndex: true}
	return s.renderCode(w, r, lang, code, page, p)
}

func (s *Site) publicCase(r *http.Request) (*incidentlib.Case, error) {
	c := s.ix.Case(strings.ToUpper(r.PathValue("id")))
	if c == nil {
		return nil, incidentlib.Errorf(incidentlib.ErrNotFound, "no case")
	}
	return c, nil
}

func (s *Site) submitCorrection(w http.ResponseWriter, r *http.Request, lang string) error {
	c, err := s.publicCase(r)
	if err != nil {
		return err
	}
	var f correctionForm
	again := func(code int, problems []string, byInput map[string]string) error {
		return s.renderForm(w, r, lang, code, "correct", correctTitle(lang, c),
			correctData{Case: c, Fields: correctionFields, Form: f, Token: s.desk.formToken("correct:" + c.ID), Action: r.URL.Path, Problems: problems, Errors: byInput})
	}
	return s.takeForm(w, r, lang, readerForm{
		purpose:   "correct:" + c.ID,
		thanks:    langPrefix[lang] + incidentlib.CasePath(c.ID) + "/correct/thanks",
		sentTwice: "correct.already_sent",
		read: func(v url.Values) {
			f = correctionForm{
				Field:   strings.TrimSpace(v.Get("field")),
				What:    strings.TrimSpace(v.Get("what")),
				Source:  strings.TrimSpace(v.Get("source")),
				Contact: strings.TrimSpace(v.Get("contact")),
			}
		},
		again: again,
		check: func() (bool, error) {
			if p := f.problems(lang); len(p.list) > 0 {
				return true, again(http.StatusBadRequest, p.list, p.byInput)
			}
			return false, nil
		},
		row: func() *incidentlib.Correction {
			return &incidentlib.Correction{CaseID: c.ID, Field: f.Field, What: f.What, Source: f.Source, Contact: f.Contact}
		},
	})
}

// problems says, in lang, what is wrong with a correction as sent: bytes
// that are not UTF-8, no field, a description or source too short or too
// long, a source address that is not http(s), a contact too long.
func (f *correctionForm) problems(lang string) formProblems {
	var p formProblems
	if validUTF8(&f.Field, &f.What, &f.Source, &f.Contact) {
		p.add("", locale.T(lang, "correct.bad_utf8"))
	}
	if !slices.Contains(correctionFields, f.Field) {
		p.add("field", locale.T(lang, "correct.need_field"))
	}
	if n := utf8.RuneCountInString(f.What); n < 10 || n > maxWhat {
		p.add("what", locale.Tf(lang, "correct.need_what", maxWhat))
	}
	if n := utf8.RuneCountInString(f.Source); n == 0 || n > maxSource {
		p.add("source", locale.Tf(lang, "correct.need_source", maxSource))
	} else if strings.Contains(f.Source, "://") {
		if u, err := url.Parse(f.Source); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.add("source", locale.T(lang, "correct.bad_source_url"))
		}
	}
	if utf8.RuneCountInString(f.Contact) > maxContact {
		p.add("contact", locale.Tf(lang, "correct.long_contact", maxContact))
	}
	return p
}

func (s *Site) correctionThanks(w http.ResponseWriter, r *http.Request, lang string) error {
	c, err := s.publicCase(r)
	if err != nil {
		return err
	}
	return s.renderForm(w, r, lang, http.StatusOK, "correct_done", locale.T(lang, "correct.thanks_title"), correctData{Case: c})
}

// The desk.

type deskData struct {
	// Corrections is one page of the corrections the filters select,
	// duplicates grouped; Unreviewed one page of the unreviewed cases
	// the search selects.
	Corrections deskPage[deskGroup]
	Submissions deskPage[deskGroup] // readers' submissions of incidents, a queue of their own
	Unreviewed  deskPage[*incidentlib.Case]
	// The filters in force: the status (open, resolved, dismissed, all),
	// a case id, the unreviewed cases' search.
	Status, CaseID, UQ string
	Statuses           []string
	Token              string
	Problems           []string
	Notice             string
	Off                bool
}

// deskPage is one page of a desk list.
type deskPage[T any] struct {
	Items            []T
	Total, From, To  int
	PrevURL, NextURL string
}

type deskCorrection struct {
	incidentlib.Correction
	Case *incidentlib.Case
}

// deskGroup is one correction, or several that say the same thing of the
// same case (the same section, words and source, as a reader who sends a
// form twice from two pages would): one item, closed together.
type deskGroup struct {
	deskCorrection         // the newest
	IDs            []int64 // every correction of the group, newest first
}

// deskPageSize is how many items a desk list shows at once.
const deskPageSize = 20

// deskReadLimit bounds what the desk reads from the store at once.
const deskReadLimit = 5000

// deskStatuses are the status filter's values; "open" is the default.
var deskStatuses = []string{incidentlib.CorrectionOpen, incidentlib.CorrectionResolved, incidentlib.CorrectionDismissed, "all"}

// deskQuery is the desk's list state from its URL.
type deskQuery struct {
	status, caseID, uq string
	page, spage, upage int
}

func readDeskQuery(r *http.Request) deskQuery {
	q := r.URL.Query()
	dq := deskQuery{status: q.Get("status"), caseID: strings.ToUpper(strings.TrimSpace(q.Get("case"))), uq: strings.TrimSpace(q.Get("uq"))}
	if !slices.Contains(deskStatuses, dq.status) {
		dq.status = incidentlib.CorrectionOpen
	}
	if !incidentlib.ValidID(dq.caseID) {
		dq.caseID = ""
	}
	if utf8.RuneCountInString(dq.uq) > 100 {
		dq.uq = string([]rune(dq.uq)[:100])
	}
	dq.page, dq.spage, dq.upage = pageNumber(q.Get("page")), pageNumber(q.Get("spage")), pageNumber(q.Get("upage"))
	return dq
}

func pageNumber(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// url is the desk's address for dq in lang: one canonical form.
func (dq deskQuery) url(lang string) string {
	v := url.Values{}
	if dq.status != incidentlib.CorrectionOpen {
		v.Set("status", dq.status)
	}
	if dq.caseID != "" {
		v.Set("case", dq.caseID)
	}
	if dq.uq != "" {
		v.Set("uq", dq.uq)
	}
	if dq.page > 1 {
		v.Set("page", strconv.Itoa(dq.page))
	}
	if dq.spage > 1 {
		v.Set("spage", strconv.Itoa(dq.spage))
	}
	if dq.upage > 1 {
		v.Set("upage", strconv.Itoa(dq.upage))
	}
	u := langPrefix[lang] + "/desk"
	if e := v.Encode(); e != "" {
		u += "?" + e
	}
	return u
}

// paginate cuts items to page n (from 1) and links its neighbours.
func paginate[T any](items []T, n int, link func(page int) string) deskPage[T] {
	p := deskPage[T]{Total: len(items)}
	pages := max(1, (len(items)+deskPageSize-1)/deskPageSize)
	n = min(n, pages)
	lo, hi := (n-1)*deskPageSize, min(n*deskPageSize, len(items))
	p.Items = items[lo:hi]
	if hi > lo {
		p.From, p.To = lo+1, hi
	}
	if n > 1 {
		p.PrevURL = link(n - 1)
	}
	if n < pages {
		p.NextURL = link(n + 1)
	}
	return p
}

// groupCorrections folds corrections that say the same thing of the same
// case into one group, in the order of their newest member.
func groupCorrections(cs []deskCorrection) []deskGroup {
	key := func(c deskCorrection) string {
		norm := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
		return c.CaseID + "\x00" + c.Field + "\x00" + c.Status + "\x00" + norm(c.What) + "\x00" + norm(c.Source) + "\x00" + norm(c.Org) + "\x00" + c.Date
	}
	var out []deskGroup
	at := map[string]int{}
	for _, c := range cs {
		k := key(c)
		if i, ok := at[k]; ok {
			out[i].IDs = append(out[i].IDs, c.ID)
			continue
		}
		at[k] = len(out)
		out = append(out, deskGroup{deskCorrection: c, IDs: []int64{c.ID}})
	}
	return out
}

// matchesCase is whether a case's id, organisation or title (in either
// language) holds the desk search's words.
func matchesCase(c *incidentlib.Case, uq string) bool {
	if uq == "" {
		return true
	}
	hay := strings.ToLower(c.ID + " " + c.Org + " " + c.Title.KO + " " + c.Title.EN)
	for _, w := range strings.Fields(strings.ToLower(uq)) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

func (s *Site) deskLogin(w http.ResponseWriter, r *http.Request, lang string) error {
	if _, ok := s.desk.session(r); ok {
		http.Redirect(w, r, langPrefix[lang]+"/desk", http.StatusSeeOther)
		return nil
	}
	return s.renderForm(w, r, lang, http.StatusOK, "desk_login", locale.T(lang, "desk.login_title"), deskData{Token: s.desk.formToken("login"), Off: s.desk.Token == ""})
}

func (s *Site) deskSignIn(w http.ResponseWriter, r *http.Request, lang string) error {
	r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
	r.ParseForm()
	fail := func(code int, msg string) error {
		return s.renderForm(w, r, lang, code, "desk_login", locale.T(lang, "desk.login_title"), deskData{Token: s.desk.formToken("login"), Problems: []string{msg}, Off: s.desk.Token == ""})
	}
	if s.desk.Token == "" {
		return fail(http.StatusForbidden, locale.T(lang, "desk.off"))
	}
	if !sameOrigin(r, s.base) {
		return fail(http.StatusForbidden, locale.T(lang, "correct.cross_site"))
	}
	if _, err := s.desk.checkForm(r.PostForm.Get("t"), "login"); err != nil {
		return fail(http.StatusForbidden, locale.T(lang, "correct.bad_token"))
	}
	client := s.desk.Client(r)
	if d := s.desk.signIn.wait(client); d > 0 {
		secs := int((d + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		return fail(http.StatusTooManyRequests, locale.Tf(lang, "desk.slow_down", secs))
	}
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("token")), []byte(s.desk.Token)) != 1 {
		d := s.desk.signIn.failed(client)
		w.Header().Set("Retry-After", strconv.Itoa(int((d+time.Second-1)/time.Second)))
		return fail(http.StatusUnauthorized, locale.T(lang, "desk.wrong_token"))
	}
	s.desk.signIn.succeeded(client)
	http.SetCookie(w, &http.Cookie{Name: deskCookie, Value: s.desk.newSession(), Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || strings.HasPrefix(s.base, "https://"), MaxAge: int(sessionLife / time.Second)})
	http.Redirect(w, r, langPrefix[lang]+"/desk", http.StatusSeeOther)
	return nil
}

func (s *Site) deskSignOut(w http.ResponseWriter, r *http.Request, lang string) error {
	// The session ends on the server, for every replica, not only in this
	// browser.
	if c, err := r.Cookie(deskCookie); err == nil {
		if nonce, exp, ok := s.desk.parseSession(c.Value); ok {
			if _, err := s.desk.Keys.Spend(r.Context(), "session:"+nonce, exp.Add(time.Minute)); err != nil {
				return err
			}
		}
	}
	http.SetCookie(w, &http.Cookie{Name: deskCookie, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: -1,
		Secure: r.TLS != nil || strings.HasPrefix(s.base, "https://")})
	http.Redirect(w, r, langPrefix[lang]+"/desk/login", http.StatusSeeOther)
	return nil
}

// signedIn wraps a desk page: no session, no page. A GET is sent to the
// sign-in page; anything else is refused.
func (s *Site) signedIn(h func(w http.ResponseWriter, r *http.Request, lang, sess string) error) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, lang string) error {
		sess, ok := s.desk.session(r)
		if !ok {
			w.Header().Set("Cache-Control", "no-store")
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, langPrefix[lang]+"/desk/login", http.StatusSeeOther)
				return nil
			}
			s.renderStatus(w, r, lang, http.StatusForbidden, "error", &pageData{Title: locale.T(lang, "desk.forbidden"), NoIndex: true, Data: errorData{http.StatusForbidden, locale.T(lang, "desk.forbidden"), locale.T(lang, "desk.forbidden_body")}})
			return nil
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
			r.ParseForm()
			if !sameOrigin(r, s.base) {
				return s.deskAgain(w, r, lang, sess, http.StatusForbidden, locale.T(lang, "correct.cross_site"))
			}
			if _, err := s.desk.checkForm(r.PostForm.Get("t"), "desk:"+sess); err != nil {
				return s.deskAgain(w, r, lang, sess, http.StatusForbidden, locale.T(lang, "correct.bad_token"))
			}
		}
		return h(w, r, lang, sess)
	}
}

// deskAgain renders the desk with a message: a problem (code >= 400) or a
// notice of what was just done.
func (s *Site) deskAgain(w http.ResponseWriter, r *http.Request, lang, sess string, code int, msg string) error {
	d := deskData{Token: s.desk.formToken("desk:" + sess)}
	if code >= 400 && msg != "" {
		d.Problems = []string{msg}
	} else {
		d.Notice = msg
	}
	dq := readDeskQuery(r)
	d.Status, d.CaseID, d.UQ, d.Statuses = dq.status, dq.caseID, dq.uq, deskStatuses
	status := dq.status
	if status == "all" {
		status = ""
	}
	all, err := s.desk.Corrections.Corrections(r.Context(), status, deskReadLimit)
	if err != nil {
		return err
	}
	var picked, submitted []deskCorrection
	for _, c := range all {
		switch {
		case c.Field == incidentlib.SubmissionField:
			submitted = append(submitted, deskCorrection{Correction: c})
		case dq.caseID == "" || c.CaseID == dq.caseID:
			picked = append(picked, deskCorrection{Correction: c, Case: s.desk.Cases.Case(c.CaseID)})
		}
	}
	d.Corrections = paginate(groupCorrections(picked), dq.page, func(n int) string { o := dq; o.page = n; return o.url(lang) })
	d.Submissions = paginate(groupCorrections(submitted), dq.spage, func(n int) string { o := dq; o.spage = n; return o.url(lang) })
	var unreviewed []*incidentlib.Case
	for _, c := range s.desk.Cases.Cases() {
		if !c.Reviewed() && matchesCase(c, dq.uq) {
			unreviewed = append(unreviewed, c)
		}
	}
	d.Unreviewed = paginate(unreviewed, dq.upage, func(n int) string { o := dq; o.upage = n; return o.url(lang) })
	return s.renderForm(w, r, lang, code, "desk", locale.T(lang, "desk.title"), d)
}

func (s *Site) deskClose(w http.ResponseWriter, r *http.Request, lang, sess string) error {
	id, err := strconv.ParseInt(r.PathValue("cid"), 10, 64)
	if err != nil {
		return incidentlib.Errorf(incidentlib.ErrNotFound, "no correction")
	}
	status := map[string]string{"resolve": incidentlib.CorrectionResolved, "dismiss": incidentlib.CorrectionDismissed}[r.PostForm.Get("action")]
	note := strings.TrimSpace(r.PostForm.Get("note"))
	if status == "" {
		return s.deskAgain(w, r, lang, sess, http.StatusBadRequest, locale.T(lang, "desk.bad_action"))
	}
	if utf8.RuneCountInString(note) > maxWhat {
		return s.deskAgain(w, r, lang, sess, http.StatusBadRequest, locale.Tf(lang, "desk.long_note", maxWhat))
	}
	switch err := s.desk.Corrections.CloseCorrection(r.Context(), id, status, note); {
	case errors.Is(err, incidentlib.ErrNotFound):
		return s.deskAgain(w, r, lang, sess, http.StatusNotFound, locale.T(lang, "desk.no_correction"))
	case errors.Is(err, incidentlib.ErrConflict):
		return s.deskAgain(w, r, lang, sess, http.StatusConflict, locale.T(lang, "desk.already_closed"))
	case err != nil:
		return err
	}
	// A group of duplicates is closed together: its other members come as
	// "also" (each still must be open).
	also := r.PostForm["also"]
	also = also[:min(len(also), 100)]
	for _, v := range also {
		other, err := strconv.ParseInt(v, 10, 64)
		if err != nil || other == id {
			continue
		}
		if err := s.desk.Corrections.CloseCorrection(r.Context(), other, status, note); err != nil && !errors.Is(err, incidentlib.ErrConflict) && !errors.Is(err, incidentlib.ErrNotFound) {
			return err
		}
	}
	http.Redirect(w, r, langPrefix[lang]+"/desk?done="+status, http.StatusSeeOther)
	return nil
}

func (s *Site) deskReview(w http.ResponseWriter, r *http.Request, lang, sess string) error {
	id := strings.ToUpper(r.PathValue("id"))
	by := strings.TrimSpace(r.PostForm.Get("by"))
	if by == "" || utf8.RuneCountInString(by) > 100 {
		return s.deskAgain(w, r, lang, sess, http.StatusBadRequest, locale.T(lang, "desk.need_reviewer"))
	}
	if s.desk.Review == nil {
		return s.deskAgain(w, r, lang, sess, http.StatusServiceUnavailable, locale.T(lang, "correct.unavailable"))
	}
	if err := s.desk.Review(r.Context(), id, by); err != nil {
		if errors.Is(err, incidentlib.ErrNotFound) {
			return s.deskAgain(w, r, lang, sess, http.StatusNotFound, locale.T(lang, "desk.no_case"))
		}
		if errors.Is(err, incidentlib.ErrInvalid) {
			return s.deskAgain(w, r, lang, sess, http.StatusBadRequest, err.Error())
		}
		return err
	}
	http.Redirect(w, r, langPrefix[lang]+"/desk?done=reviewed", http.StatusSeeOther)
	return nil
}

// deskHomeDone shows the desk, with a notice after a redirect from an action.
func (s *Site) deskHomeDone(w http.ResponseWriter, r *http.Request, lang, sess string) error {
	msg := ""
	switch r.URL.Query().Get("done") {
	case incidentlib.CorrectionResolved:
		msg = locale.T(lang, "desk.done_resolved")
	case incidentlib.CorrectionDismissed:
		msg = locale.T(lang, "desk.done_dismissed")
	case "reviewed":
		msg = locale.T(lang, "desk.done_reviewed")
	}
	return s.deskAgain(w, r, lang, sess, http.StatusOK, msg)
}
