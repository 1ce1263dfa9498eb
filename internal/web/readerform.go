package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// Readers send two forms, a correction of a case and a submission of an
// incident the library lacks. Both go through takeForm, which holds their
// guards in one order, and both keep a row of the desk's queue.

// readerForm is one of the forms readers send: what takeForm needs to
// guard it and keep it.
type readerForm struct {
	// purpose is what the form's token is signed for.
	purpose string
	// thanks is the page shown after sending; a bot is sent there too.
	thanks string
	// sentTwice is the words for a form whose token was spent already.
	sentTwice string
	// read takes the form's fields from the parsed form.
	read func(url.Values)
	// again shows the form again, with what was sent, the problems, and
	// the problems that belong to one input by its name.
	again func(code int, problems []string, byInput map[string]string) error
	// check is the form's own checks (its fields). It either passes
	// (answered false) or has answered the request itself.
	check func() (answered bool, err error)
	// row is what the form keeps on the desk.
	row func() *incidentlib.Correction
}

// maxFormBytes bounds the body of a reader's form.
const maxFormBytes = 64 << 10

// takeForm guards a reader's form and keeps it. The guards run in one
// order for every form: the body's size, the same origin, the signed
// token (its purpose and age), the hidden field that bots fill (answered
// with the thanks a person gets, and nothing kept), the least fill time,
// the form's own checks, the rate limit, and the token's single use (a
// second click or a replay keeps nothing more). Each refusal shows the
// form again with what the reader typed and why.
func (s *Site) takeForm(w http.ResponseWriter, r *http.Request, lang string, f readerForm) error {
	say := func(code int, key string) error { return f.again(code, []string{locale.T(lang, key)}, nil) }
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return say(http.StatusRequestEntityTooLarge, "correct.too_large")
	}
	f.read(r.PostForm)
	if !sameOrigin(r, s.base) {
		return say(http.StatusForbidden, "correct.cross_site")
	}
	tok := r.PostForm.Get("t")
	age, err := s.desk.checkForm(tok, f.purpose)
	switch {
	case errors.Is(err, errExpired):
		return say(http.StatusBadRequest, "correct.expired")
	case err != nil:
		return say(http.StatusForbidden, "correct.bad_token")
	}
	if r.PostForm.Get("website") != "" {
		http.Redirect(w, r, f.thanks, http.StatusSeeOther)
		return nil
	}
	if age < s.desk.MinFill {
		return say(http.StatusBadRequest, "correct.too_fast")
	}
	if answered, err := f.check(); answered {
		return err
	}
	if s.desk.Allow != nil && !s.desk.Allow(r) {
		w.Header().Set("Retry-After", "600")
		return say(http.StatusTooManyRequests, "correct.rate_limited")
	}
	fresh, err := s.desk.Keys.Spend(r.Context(), formKey(tok), s.desk.Now().Add(formMaxAge-age+time.Minute))
	if err != nil {
		return say(http.StatusServiceUnavailable, "correct.unavailable")
	}
	if !fresh {
		return say(http.StatusConflict, f.sentTwice)
	}
	row := f.row()
	row.Lang = lang
	if _, err := s.desk.Corrections.AddCorrection(r.Context(), row); err != nil {
		if errors.Is(err, incidentlib.ErrUnavailable) {
			return say(http.StatusServiceUnavailable, "correct.unavailable")
		}
		return err
	}
	http.Redirect(w, r, f.thanks, http.StatusSeeOther)
	return nil
}

// formProblems collects what is wrong with a sent form: every problem in
// order for the summary, and those that belong to one input by its name,
// for the message beside it.
type formProblems struct {
	list    []string
	byInput map[string]string
}

// add records msg, of input (or of the whole form, for "").
func (p *formProblems) add(input, msg string) {
	p.list = append(p.list, msg)
	if input == "" {
		return
	}
	if p.byInput == nil {
		p.byInput = map[string]string{}
	}
	p.byInput[input] = strings.TrimSpace(p.byInput[input] + " " + msg)
}

// validUTF8 replaces the bytes that are not UTF-8 in every field with
// U+FFFD (text pasted in another encoding is refused rather than stored,
// and the form shows it again that way) and reports whether there were any.
func validUTF8(fields ...*string) bool {
	bad := false
	for _, p := range fields {
		if !utf8.ValidString(*p) {
			*p, bad = strings.ToValidUTF8(*p, "\uFFFD"), true
		}
	}
	return bad
}

// inputsWithErrors are the inputs, in the form's order, that have a
// problem in errs.
func inputsWithErrors(errs map[string]string, order []string) []string {
	var out []string
	for _, in := range order {
		if _, ok := errs[in]; ok {
			out = append(out, in)
		}
	}
	return out
}
