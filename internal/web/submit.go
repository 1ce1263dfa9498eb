package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
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

// submissionInputs are the submission form's inputs, in its order.
var submissionInputs = []string{"url", "org", "date", "note", "contact"}

// ErrorInputs are the inputs that have a problem, in the form's order.
func (d submitData) ErrorInputs() []string { return inputsWithErrors(d.Errors, submissionInputs) }

func (s *Site) submitPage(w http.ResponseWriter, r *http.Request, lang string) error {
	return s.renderForm(w, r, lang, http.StatusOK, "submit", locale.T(lang, "submit.title"),
		submitData{Token: s.desk.formToken("submit"), Action: langPrefix[lang] + "/submit"})
}

func (s *Site) submitThanks(w http.ResponseWriter, r *http.Request, lang string) error {
	return s.renderForm(w, r, lang, http.StatusOK, "submit_done", locale.T(lang, "submit.thanks_title"), submitData{})
}

func (s *Site) submitIncident(w http.ResponseWriter, r *http.Request, lang string) error {
	action := langPrefix[lang] + "/submit"
	var f submissionForm
	form := func(code int, d submitData) error {
		d.Form, d.Token, d.Action = f, s.desk.formToken("submit"), action
		return s.renderForm(w, r, lang, code, "submit", locale.T(lang, "submit.title"), d)
	}
	again := func(code int, problems []string, byInput map[string]string) error {
		return form(code, submitData{Problems: problems, Errors: byInput})
	}
	return s.takeForm(w, r, lang, readerForm{
		purpose:   "submit",
		thanks:    langPrefix[lang] + "/submit/thanks",
		sentTwice: "submit.already_sent",
		read: func(v url.Values) {
			f = submissionForm{
				URL:     strings.TrimSpace(v.Get("url")),
				Org:     strings.TrimSpace(v.Get("org")),
				Date:    strings.TrimSpace(v.Get("date")),
				Note:    strings.TrimSpace(v.Get("note")),
				Contact: strings.TrimSpace(v.Get("contact")),
			}
		},
		again: again,
		check: func() (bool, error) {
			if p := f.problems(lang); len(p.list) > 0 {
				return true, again(http.StatusBadRequest, p.list, p.byInput)
			}
			// A write-up the library already holds: say which case, keep nothing.
			if c := s.caseCiting(f.URL); c != nil {
				return true, form(http.StatusConflict, submitData{Known: c})
			}
			return false, nil
		},
		row: func() *incidentlib.Correction {
			return &incidentlib.Correction{Field: incidentlib.SubmissionField, What: f.Note, Source: f.URL, Org: f.Org, Date: f.Date, Contact: f.Contact}
		},
	})
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
func (f *submissionForm) problems(lang string) formProblems {
	var p formProblems
	if validUTF8(&f.URL, &f.Org, &f.Date, &f.Note, &f.Contact) {
		p.add("", locale.T(lang, "correct.bad_utf8"))
	}
	if u, err := url.Parse(f.URL); f.URL == "" || utf8.RuneCountInString(f.URL) > maxSource || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.add("url", locale.Tf(lang, "submit.need_url", maxSource))
	}
	if n := utf8.RuneCountInString(f.Org); n == 0 || n > maxOrg {
		p.add("org", locale.Tf(lang, "submit.need_org", maxOrg))
	}
	if f.Date != "" && !submissionDate.MatchString(f.Date) {
		p.add("date", locale.T(lang, "submit.bad_date"))
	}
	if utf8.RuneCountInString(f.Note) > maxNote {
		p.add("note", locale.Tf(lang, "submit.long_note", maxNote))
	}
	if utf8.RuneCountInString(f.Contact) > maxContact {
		p.add("contact", locale.Tf(lang, "correct.long_contact", maxContact))
	}
	return p
}
