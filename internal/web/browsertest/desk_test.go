package browsertest

import (
	"context"
	"fmt"
	"os"

	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/server"
	"github.com/incidentlib/incidentlib/internal/store/sqlite"
)

const deskToken = "browser-desk-token"

// startServer serves the whole server (pages, API, desk) on a real SQLite
// file, as `incidentlib serve` does.
func startServer(t *testing.T) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "browser.db"))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	cfg := server.DefaultConfig()
	cfg.Token = deskToken
	cfg.RateLimit = 0
	cfg.FormMinFill = 200 * time.Millisecond
	cfg.BaseURL = "http://" + ts.Listener.Addr().String()
	srv, err := server.New(ctx, cfg, st, c, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return ts
}

// TestCorrectionAndDesk is what a reader and an editor do in a real
// browser, without a line of script on the pages: the case page with its
// timeline, the correction form (a mistake kept, then sent), the
// confirmation, the desk's sign-in, resolving the correction, marking a case
// reviewed, and signing out. Every page is checked with axe and
// photographed at desktop and phone widths.
func TestCorrectionAndDesk(t *testing.T) {
	e := needBrowser(t, true)
	ts := startServer(t)
	p := &problems{}
	ctx := browser(t, e, p)
	axeCheck := func(where string) {
		t.Helper()
		run(t, ctx, "inject axe", chromedp.Evaluate[chromedp.Void](e.axe))
		js := `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
			id: v.id, impact: v.impact || '', help: v.help,
			nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))})))`
		for _, v := range run(t, ctx, "axe "+where, chromedp.Evaluate[[]axeResult](js, chromedp.EvalAwaitPromise)) {
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Errorf("%s: axe %s (%s): %s at %s", where, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, ", "))
			}
		}
	}

	// The case page shows the timeline in the reader's language.
	navigate(t, ctx, ts.URL+"/cases/IL-0049")
	times := eval[[]string](t, ctx, `[...document.querySelectorAll('ol.timeline time')].map(x => x.textContent.trim())`)
	if len(times) < 3 || times[0] != "22:13 EET" {
		t.Errorf("timeline times = %q, want them from 22:13 EET on", times)
	}
	if txt := eval[string](t, ctx, `document.querySelector('ol.timeline li span').textContent`); !hasHangul(txt) {
		t.Errorf("the Korean page's timeline is not in Korean: %q", txt)
	}
	// Sources by their titles, each with its publisher and site; no bare URL.
	srcs := eval[[]string](t, ctx, `[...document.querySelector('ul.sources').querySelectorAll('li > a.ext')].map(a => a.textContent.trim())`)
	if len(srcs) == 0 {
		t.Error("the case page lists no sources")
	}
	for _, s := range srcs {
		if strings.HasPrefix(s, "http") {
			t.Errorf("a source is shown as a bare address: %q", s)
		}
	}
	if m := run(t, ctx, "source meta", chromedp.Text(chromedp.CSS("ul.sources li .meta"))); !strings.Contains(m, "Preply") || !strings.Contains(m, "medium.com") {
		t.Errorf("the first source's publisher or site is missing: %q", m)
	}
	axeCheck("case page")
	screenshots(t, ctx, e, "7-case-timeline")
	navigate(t, ctx, ts.URL+"/en/cases/IL-0049")
	if txt := eval[string](t, ctx, `document.querySelector('ol.timeline li span').textContent`); hasHangul(txt) {
		t.Errorf("the English page's timeline is in Korean: %q", txt)
	}
	checkClean(t, p, "case timeline")

	// The correction form, reached from the case page.
	navigate(t, ctx, ts.URL+"/cases/IL-0049")
	clickThrough(t, ctx, `.case-correct a`)
	if h := run(t, ctx, "form heading", chromedp.Text(chromedp.CSS("h1"))); h != "이 사례 고치기" {
		t.Fatalf("the correction link leads to %q", h)
	}
	axeCheck("correction form")
	screenshots(t, ctx, e, "8-correction-form")
	// A mistake: too short. The page says so and keeps the source typed.
	const source = "https://medium.com/preply-engineering/dns-postmortem-e169efd45afd"
	time.Sleep(250 * time.Millisecond)
	run(t, ctx, "field", chromedp.SetValue(chromedp.CSS(`#c-field`), "timeline"))
	run(t, ctx, "what", chromedp.SetValue(chromedp.CSS(`#c-what`), "short"))
	run(t, ctx, "source", chromedp.SetValue(chromedp.CSS(`#c-source`), source))
	// The browser's own checks would stop a too-short text; turn them off
	// to see the server's answer, as a reader of an old browser would.
	run(t, ctx, "novalidate", chromedp.Evaluate[chromedp.Void](`document.querySelector('form.stack-form').noValidate = true`))
	clickThrough(t, ctx, `form.stack-form button[type=submit]`)
	if msg := run(t, ctx, "error box", chromedp.Text(chromedp.CSS(".notice-error"))); !strings.Contains(msg, "10자 이상") {
		t.Errorf("the server's message for a short text = %q", msg)
	}
	if v := eval[string](t, ctx, `document.querySelector('#c-source').value`); v != source {
		t.Errorf("the source typed was lost: %q", v)
	}
	screenshots(t, ctx, e, "9-correction-error")
	p.take() // the 400 above was the point of the step
	time.Sleep(250 * time.Millisecond)
	run(t, ctx, "fill again", chromedp.SetValue(chromedp.CSS(`#c-what`), "The revert happened at 22:39 EET; the case gives 22:40 for it."))
	clickThrough(t, ctx, `form.stack-form button[type=submit]`)
	if ok := run(t, ctx, "confirmation", chromedp.Text(chromedp.CSS(".notice-ok"))); !strings.Contains(ok, "받았습니다") {
		t.Fatalf("no confirmation: %q", ok)
	}
	axeCheck("confirmation")
	screenshots(t, ctx, e, "10-correction-thanks")
	checkClean(t, p, "correction")

	// Submitting an incident the library lacks, from the case list.
	navigate(t, ctx, ts.URL+"/cases")
	clickThrough(t, ctx, `.page-links a[href="/submit"]`)
	if h := run(t, ctx, "submit heading", chromedp.Text(chromedp.CSS("h1"))); h != "없는 장애 알리기" {
		t.Fatalf("the submission link leads to %q", h)
	}
	axeCheck("submission form")
	screenshots(t, ctx, e, "13-submission-form")
	time.Sleep(250 * time.Millisecond)
	run(t, ctx, "url", chromedp.SetValue(chromedp.CSS(`#s-url`), "https://status.example.org/incidents/7"))
	run(t, ctx, "org", chromedp.SetValue(chromedp.CSS(`#s-org`), "Example Browser Corp"))
	run(t, ctx, "date", chromedp.SetValue(chromedp.CSS(`#s-date`), "2024-03-05"))
	run(t, ctx, "note", chromedp.SetValue(chromedp.CSS(`#s-note`), "Their resolvers failed for an hour."))
	clickThrough(t, ctx, `form.stack-form button[type=submit]`)
	if ok := run(t, ctx, "submission confirmation", chromedp.Text(chromedp.CSS(".notice-ok"))); !strings.Contains(ok, "받았습니다") {
		t.Fatalf("no confirmation of the submission: %q", ok)
	}
	axeCheck("submission thanks")
	checkClean(t, p, "submission")

	// The desk: nothing without signing in.
	navigate(t, ctx, ts.URL+"/desk")
	if u := eval[string](t, ctx, `location.pathname`); u != "/desk/login" {
		t.Fatalf("the desk without a session shows %s", u)
	}
	axeCheck("desk sign-in")
	screenshots(t, ctx, e, "11-desk-login")
	run(t, ctx, "token", chromedp.SetValue(chromedp.CSS(`#d-token`), deskToken))
	clickThrough(t, ctx, `form.stack-form button[type=submit]`)
	if h := run(t, ctx, "desk heading", chromedp.Text(chromedp.CSS("h1"))); h != "편집 데스크" {
		t.Fatalf("signing in leads to %q", h)
	}
	// The session cookie is out of scripts' reach.
	if c := eval[string](t, ctx, `document.cookie`); strings.Contains(c, "il_desk") {
		t.Errorf("the session cookie is readable from scripts: %q", c)
	}
	if w := run(t, ctx, "correction", chromedp.Text(chromedp.CSS(".desk-item .pre"))); !strings.Contains(w, "22:39 EET") {
		t.Errorf("the desk does not list the correction: %q", w)
	}
	// The reader wrote in English: on the Korean desk the text is marked so.
	if l := eval[string](t, ctx, `document.querySelector('.desk-item .pre').lang`); l != "en" {
		t.Errorf("the reader's English text on the Korean desk is marked lang=%q, want en", l)
	}
	if sub := run(t, ctx, "submissions", chromedp.Text(chromedp.CSS(`section[aria-labelledby=desk-submissions]`))); !strings.Contains(sub, "Example Browser Corp") || !strings.Contains(sub, "2024-03-05") {
		t.Errorf("the desk's submissions queue lacks the submission: %q", sub)
	}
	// The reader's source is a link a crawler and the linked site learn
	// nothing from.
	if rel := eval[string](t, ctx, `(document.querySelector('.desk-item .desk-fields a[href^="https://medium.com/"]') || {}).rel || ''`); rel != "nofollow noopener noreferrer" {
		t.Errorf("the reader's source is not a link with rel=nofollow noopener: %q", rel)
	}
	// The unreviewed cases come a page at a time, with a pager.
	if n := eval[int](t, ctx, `document.querySelectorAll('.desk-cases > li').length`); n == 0 || n > 20 {
		t.Errorf("the desk lists %d unreviewed cases on its first page, want 1 to 20", n)
	}
	if eval[int](t, ctx, `document.querySelectorAll('section[aria-labelledby=desk-unreviewed] .pager a[rel=next]').length`) != 1 {
		t.Error("the unreviewed cases have no next page link")
	}
	axeCheck("desk")
	viewShots(t, ctx, e, "12-desk")
	// The unreviewed cases, one page of twenty with the pager below them.
	shot(t, ctx, e, `section[aria-labelledby=desk-unreviewed]`, "12-desk-unreviewed-paged")
	run(t, ctx, "note", chromedp.SetValue(chromedp.CSS(`.desk-item textarea`), "Timeline fixed in the case file."))
	clickThrough(t, ctx, `.desk-item button[value=resolve]`)
	if n := run(t, ctx, "notice", chromedp.Text(chromedp.CSS(".notice-ok"))); !strings.Contains(n, "반영함으로 닫았습니다") {
		t.Errorf("after resolving: %q", n)
	}
	// The open list no longer shows it; the resolved one does, with its note.
	if n := eval[int](t, ctx, `document.querySelectorAll('section[aria-labelledby=desk-corrections] .desk-item').length`); n != 0 {
		t.Errorf("the open list still shows %d corrections", n)
	}
	run(t, ctx, "status", chromedp.SetValue(chromedp.CSS(`#desk-status`), "resolved"))
	clickThrough(t, ctx, `form.desk-filter button`)
	if closed := run(t, ctx, "closed", chromedp.Text(chromedp.CSS(".desk-closed"))); !strings.Contains(closed, "Timeline fixed") {
		t.Errorf("the closed correction lacks its note: %q", closed)
	}
	// Find the case among the unreviewed ones by its id, then mark it.
	run(t, ctx, "find case", chromedp.SetValue(chromedp.CSS(`#desk-uq`), "IL-0049"))
	clickThrough(t, ctx, `form.desk-filter[role=search] button`)
	if n := eval[int](t, ctx, `document.querySelectorAll('.desk-cases > li').length`); n != 1 {
		t.Errorf("searching the unreviewed cases for IL-0049 lists %d", n)
	}
	run(t, ctx, "reviewer", chromedp.SetValue(chromedp.CSS(`#by-IL-0049`), "Browser Editor"))
	clickThrough(t, ctx, `form[action="/desk/cases/IL-0049/review"] button`)
	if n := run(t, ctx, "notice", chromedp.Text(chromedp.CSS(".notice-ok"))); !strings.Contains(n, "검토함으로 표시했습니다") {
		t.Errorf("after reviewing: %q", n)
	}
	// Pages may be cached for a minute; ask past the cache.
	navigate(t, ctx, ts.URL+"/cases/IL-0049?after=review")
	if eval[int](t, ctx, `document.querySelectorAll('.unreviewed').length`) != 0 {
		t.Error("the case still says it is unreviewed")
	}
	// The desk, its filtered lists and the submission form in both
	// languages at desktop and phone widths: axe finds nothing, and the
	// phone layout never scrolls sideways.
	for _, w := range widths {
		setWidth(t, ctx, w.width, w.height, w.mobile)
		for _, path := range []string{"/desk", "/en/desk", "/desk?status=all&case=IL-0049", "/en/desk?status=resolved", "/en/desk?uq=IL-0049", "/submit", "/en/submit", "/en/cases/IL-0049/correct"} {
			navigate(t, ctx, ts.URL+path)
			if o := eval[int](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); o > 0 {
				t.Errorf("%s at %s px: the page is %d px wider than the screen", path, w.name, o)
			}
			axeCheck(path + " at " + w.name + " px")
		}
	}
	setWidth(t, ctx, 1280, 900, false)
	navigate(t, ctx, ts.URL+"/en/submit")
	if h := run(t, ctx, "English submit heading", chromedp.Text(chromedp.CSS("h1"))); h != "Submit an incident" {
		t.Errorf("the English submission form is headed %q", h)
	}
	checkClean(t, p, "desk in both languages")

	// The same walk in English, on a phone (the Korean one ran at
	// 1280 px): a correction (a mistake, then sent), a submission, and
	// both on the English desk, where the correction is resolved.
	setWidth(t, ctx, 390, 844, true)
	navigate(t, ctx, ts.URL+"/en/cases/IL-0268")
	clickThrough(t, ctx, `.case-correct a`)
	if h := run(t, ctx, "English form heading", chromedp.Text(chromedp.CSS("h1"))); h != "Suggest a correction" {
		t.Fatalf("the English correction link leads to %q", h)
	}
	time.Sleep(250 * time.Millisecond)
	run(t, ctx, "English field", chromedp.SetValue(chromedp.CSS(`#c-field`), "impact"))
	run(t, ctx, "English what", chromedp.SetValue(chromedp.CSS(`#c-what`), "short"))
	run(t, ctx, "English source", chromedp.SetValue(chromedp.CSS(`#c-source`), "https://adguard-dns.io/en/blog/"))
	run(t, ctx, "English novalidate", chromedp.Evaluate[chromedp.Void](`document.querySelector('form.stack-form').noValidate = true`))
	clickThrough(t, ctx, `form.stack-form button[type=submit]`)
	if msg := run(t, ctx, "English error box", chromedp.Text(chromedp.CSS(".notice-error"))); !strings.Contains(msg, "10 to 4000 characters") {
		t.Errorf("the English message for a short text = %q", msg)
	}
	if d := eval[string](t, ctx, `document.querySelector('#c-what').getAttribute('aria-describedby') || ''`); d == "" {
		t.Error("the English form's error is not tied to its input")
	}
	p.take() // the 400 was the point of the step
	time.Sleep(250 * time.Millisecond)
	run(t, ctx, "English fill again", chromedp.SetValue(chromedp.CSS(`#c-what`), "The impact section names the wrong region for the English reader."))
	clickThrough(t, ctx, `form.stack-form button[type=submit]`)
	if ok := run(t, ctx, "English confirmation", chromedp.Text(chromedp.CSS(".notice-ok"))); !strings.Contains(ok, "Received. An editor will check it") {
		t.Fatalf("no English confirmation: %q", ok)
	}
	navigate(t, ctx, ts.URL+"/en/cases")
	clickThrough(t, ctx, `.page-links a[href="/en/submit"]`)
	if h := run(t, ctx, "English submit heading", chromedp.Text(chromedp.CSS("h1"))); h != "Submit an incident" {
		t.Fatalf("the English submission link leads to %q", h)
	}
	time.Sleep(250 * time.Millisecond)
	run(t, ctx, "English url", chromedp.SetValue(chromedp.CSS(`#s-url`), "https://status.example.net/incidents/42"))
	run(t, ctx, "English org", chromedp.SetValue(chromedp.CSS(`#s-org`), "Example English Corp"))
	run(t, ctx, "English date", chromedp.SetValue(chromedp.CSS(`#s-date`), "2023-11"))
	clickThrough(t, ctx, `form.stack-form button[type=submit]`)
	if ok := run(t, ctx, "English submission confirmation", chromedp.Text(chromedp.CSS(".notice-ok"))); !strings.Contains(ok, "Received. An editor will read the write-up") {
		t.Fatalf("no English confirmation of the submission: %q", ok)
	}
	navigate(t, ctx, ts.URL+"/en/desk")
	if h := run(t, ctx, "English desk heading", chromedp.Text(chromedp.CSS("h1"))); h != "Editors' desk" {
		t.Fatalf("the English desk is headed %q", h)
	}
	if w := run(t, ctx, "English correction", chromedp.Text(chromedp.CSS(`section[aria-labelledby=desk-corrections] .desk-item .pre`))); !strings.Contains(w, "wrong region") {
		t.Errorf("the English desk does not list the English correction: %q", w)
	}
	if sub := run(t, ctx, "English submissions", chromedp.Text(chromedp.CSS(`section[aria-labelledby=desk-submissions]`))); !strings.Contains(sub, "Example English Corp") || !strings.Contains(sub, "2023-11") {
		t.Errorf("the English desk's submissions lack the English submission: %q", sub)
	}
	if l := eval[string](t, ctx, `document.querySelector('section[aria-labelledby=desk-corrections] .desk-item .pre').lang`); l != "" {
		t.Errorf("the reader's English text on the English desk is marked lang=%q, want none", l)
	}
	axeCheck("English desk with items")
	run(t, ctx, "English note", chromedp.SetValue(chromedp.CSS(`section[aria-labelledby=desk-corrections] .desk-item textarea`), "Region corrected."))
	clickThrough(t, ctx, `section[aria-labelledby=desk-corrections] .desk-item button[value=resolve]`)
	if n := run(t, ctx, "English notice", chromedp.Text(chromedp.CSS(".notice-ok"))); !strings.Contains(n, "The correction is resolved.") {
		t.Errorf("after resolving on the English desk: %q", n)
	}
	if u := eval[string](t, ctx, `location.pathname`); u != "/en/desk" {
		t.Errorf("resolving on the English desk leads to %s", u)
	}
	if o := eval[int](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); o > 0 {
		t.Errorf("the English desk at 390 px is %d px wider than the screen", o)
	}
	checkClean(t, p, "the walk in English")
	setWidth(t, ctx, 1280, 900, false)

	// Sign out: the desk is closed again.
	navigate(t, ctx, ts.URL+"/desk")
	clickThrough(t, ctx, `.desk-head button`)
	navigate(t, ctx, ts.URL+"/desk")
	if u := eval[string](t, ctx, `location.pathname`); u != "/desk/login" {
		t.Errorf("after signing out the desk shows %s", u)
	}
	checkClean(t, p, "desk")
	t.Logf("screenshots in %s", e.artefacts)

}

func hasHangul(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 })
}

// viewShots saves what the first screen shows at desktop and phone widths
// (for pages too long to photograph whole), after the same overflow check
// as screenshots.
func viewShots(t *testing.T, ctx context.Context, e env, name string) {
	t.Helper()
	for _, v := range []struct {
		width, height int64
		mobile        bool
	}{{1280, 900, false}, {375, 812, true}} {
		opts := []chromedp.EmulateViewportOption{}
		if v.mobile {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulatePortrait)
		}
		run(t, ctx, "set viewport", chromedp.EmulateViewport(v.width, v.height, opts...))
		if overflow := eval[int](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); overflow > 0 {
			t.Errorf("%s at %d px: the page is %d px wider than the screen", name, v.width, overflow)
		}
		png := run(t, ctx, "screenshot", chromedp.CaptureScreenshot())
		if err := os.WriteFile(filepath.Join(e.artefacts, fmt.Sprintf("%s-%d.png", name, v.width)), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, ctx, "reset viewport", chromedp.EmulateViewport(1280, 900))
}
