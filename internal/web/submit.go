package web

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// A reader may submit an incident the library lacks: the public write-up's
// address, the organisation, the date and a note. The form has the guards
// of the correction form (a signed token used once, the same origin, the
// least fill time, the hidden field bots fill, the rate limit), and what it
// keeps goes to the desk's queue of submissions, never to a public page.

// Limits on a submission.
const (
	maxOrg  = 200
	maxNote = 4000
)

// submissionDate is a year, a month or a day: 2024, 2024-03, 2024-03-05.
var submissionDate = regexp.MustCompile(`^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$`)

// submissionForm is what the reader typed, kept when the form comes back.
type submissionForm struct {
	URL, Org, Date, Note, Contact string
}

type submitData struct {
	Form     submissionForm
	Token    string
	Problems []string
	Errors   map[string]string // by input: url, org, date, note, contact
	// Known is the case that already cites the write-up, if one does.
	Known  *incidentlib.Case
	Action string
}

// ErrorInputs are the inputs that have a problem, in the form's order.
func (d submitData) ErrorInputs() []string {
	var out []string
	for _, in := range []string{"url", "org", "date", "note", "contact"} {
		if _, ok := d.Errors[in]; ok {
			out = append(out, in)
		}
	}
	return out
}

func (s *Site) submitPage(w http.ResponseWriter, r *http.Request, lang string) error {
	return s.renderForm(w, r, lang, http.StatusOK, "submit", locale.T(lang, "submit.title"),
		submitData{Token: s.desk.formToken("submit"), Action: langPrefix[lang] + "/submit"})
}

func (s *Site) submitThanks(w http.ResponseWriter, r *http.Request, lang string) error {
	return s.renderForm(w, r, lang, http.StatusOK, "submit_done", locale.T(lang, "submit.thanks_title"), submitData{})
}

func (s *Site) submitIncident(w http.ResponseWriter, r *http.Request, lang string) error {
	action := langPrefix[lang] + "/submit"
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		return s.renderForm(w, r, lang, http.StatusRequestEntityTooLarge, "submit", locale.T(lang, "submit.title"),
			submitData{Token: s.desk.formToken("submit"), Action: action, Problems: []string{locale.T(lang, "correct.too_large")}})
	}
	f := submissionForm{
		URL:     strings.TrimSpace(r.PostForm.Get("url")),
		Org:     strings.TrimSpace(r.PostForm.Get("org")),
		Date:    strings.TrimSpace(r.PostForm.Get("date")),
		Note:    strings.TrimSpace(r.PostForm.Get("note")),
		Contact: strings.TrimSpace(r.PostForm.Get("contact")),
	}
	again := func(code int, problems []string, byInput map[string]string) error {
		return s.renderForm(w, r, lang, code, "submit", locale.T(lang, "submit.title"),
			submitData{Form: f, Token: s.desk.formToken("submit"), Action: action, Problems: problems, Errors: byInput})
	}
	say := func(code int, key string) error { return again(code, []string{locale.T(lang, key)}, nil) }
	if !sameOrigin(r, s.base) {
		return say(http.StatusForbidden, "correct.cross_site")
	}
	age, err := s.desk.checkForm(r.PostForm.Get("t"), "submit")
	switch {
	case errors.Is(err, errExpired):
		return say(http.StatusBadRequest, "correct.expired")
	case err != nil:
		return say(http.StatusForbidden, "correct.bad_token")
	}
	thanks := langPrefix[lang] + "/submit/thanks"
	if r.PostForm.Get("website") != "" { // the hidden field: a bot
		http.Redirect(w, r, thanks, http.StatusSeeOther)
		return nil
	}
	if age < s.desk.MinFill {
		return say(http.StatusBadRequest, "correct.too_fast")
	}
	if problems, byInput := f.problems(lang); len(problems) > 0 {
		return again(http.StatusBadRequest, problems, byInput)
	}
	// A write-up the library already holds: say which case, keep nothing.
	if c := s.caseCiting(f.URL); c != nil {
		return s.renderForm(w, r, lang, http.StatusConflict, "submit", locale.T(lang, "submit.title"),
			submitData{Form: f, Token: s.desk.formToken("submit"), Action: action, Known: c})
	}
	if s.desk.Allow != nil && !s.desk.Allow(r) {
		w.Header().Set("Retry-After", "600")
		return say(http.StatusTooManyRequests, "correct.rate_limited")
	}
	tok := r.PostForm.Get("t")
	fresh, err := s.desk.Keys.Spend(r.Context(), formKey(tok), s.desk.Now().Add(formMaxAge-age+time.Minute))
	if err != nil {
		return say(http.StatusServiceUnavailable, "correct.unavailable")
	}
	if !fresh {
		return say(http.StatusConflict, "submit.already_sent")
	}
	if _, err := s.desk.Corrections.AddCorrection(r.Context(), &incidentlib.Correction{
		Field: incidentlib.SubmissionField, What: f.Note, Source: f.URL, Org: f.Org, Date: f.Date, Contact: f.Contact, Lang: lang,
	}); err != nil {
		if errors.Is(err, incidentlib.ErrUnavailable) {
			return say(http.StatusServiceUnavailable, "correct.unavailable")
		}
		return err
	}
	http.Redirect(w, r, thanks, http.StatusSeeOther)
	return nil
}

// caseCiting is the public case whose sources include the write-up at
// raw (compared without scheme, "www.", a trailing slash or a fragment),
// or nil.
func (s *Site) caseCiting(raw string) *incidentlib.Case {
	key := sourceKey(raw)
	for _, c := range s.ix.Cases() {
		for _, src := range c.Sources {
			if sourceKey(src.URL) == key {
				return c
			}
		}
	}
	return nil
}

func sourceKey(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	host := strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	return host + strings.TrimSuffix(u.EscapedPath(), "/") + "?" + u.RawQuery
}

// problems says, in lang, what is wrong with a submission as sent, each
// problem also by its input.
func (f *submissionForm) problems(lang string) (problems []string, byInput map[string]string) {
	byInput = map[string]string{}
	add := func(input, msg string) {
		problems = append(problems, msg)
		if input != "" {
			byInput[input] = strings.TrimSpace(byInput[input] + " " + msg)
		}
	}
	bad := false
	for _, p := range []*string{&f.URL, &f.Org, &f.Date, &f.Note, &f.Contact} {
		if !utf8.ValidString(*p) {
			*p, bad = strings.ToValidUTF8(*p, "\uFFFD"), true
		}
	}
	if bad {
		add("", locale.T(lang, "correct.bad_utf8"))
	}
	if u, err := url.Parse(f.URL); f.URL == "" || utf8.RuneCountInString(f.URL) > maxSource || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		add("url", locale.Tf(lang, "submit.need_url", maxSource))
	}
	if n := utf8.RuneCountInString(f.Org); n == 0 || n > maxOrg {
		add("org", locale.Tf(lang, "submit.need_org", maxOrg))
	}
	if f.Date != "" && !submissionDate.MatchString(f.Date) {
		add("date", locale.T(lang, "submit.bad_date"))
	}
	if utf8.RuneCountInString(f.Note) > maxNote {
		add("note", locale.Tf(lang, "submit.long_note", maxNote))
	}
	if utf8.RuneCountInString(f.Contact) > maxContact {
		add("contact", locale.Tf(lang, "correct.long_contact", maxContact))
	}
	return problems, byInput
}
