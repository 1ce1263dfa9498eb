package browsertest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/web"
)

// requiredEnv makes missing prerequisites a failure instead of a skip; the
// CI script sets it so the browser tests can never silently not run.
const requiredEnv = "INCIDENTLIB_BROWSER_TESTS"

// env is what the browser tests need from the machine.
type env struct {
	chromium  string
	axe       string // the source of axe.min.js
	artefacts string // where screenshots go
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// needBrowser finds Chromium, and axe-core when wantAxe, or skips (fails
// when required).
func needBrowser(t *testing.T, wantAxe bool) env {
	t.Helper()
	required := os.Getenv(requiredEnv) == "1"
	missing := func(what string) {
		if required {
			t.Fatalf("%s=1 but %s", requiredEnv, what)
		}
		t.Skipf("skipping the browser test: %s. Run `bash .ci/web.sh`, or install chromium, run `npm ci` at the repository root and set %s=1", what, requiredEnv)
	}
	root := repoRoot(t)
	var e env
	for _, p := range []string{os.Getenv("INCIDENTLIB_CHROMIUM"), "/usr/bin/chromium"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			e.chromium = p
			break
		}
	}
	if e.chromium == "" {
		if p, err := exec.LookPath("chromium"); err == nil {
			e.chromium = p
		}
	}
	if e.chromium == "" {
		missing("chromium is not installed (apt-get install chromium)")
	}
	if wantAxe {
		axe, err := os.ReadFile(filepath.Join(root, "node_modules", "axe-core", "axe.min.js"))
		if err != nil {
			missing("node_modules/axe-core/axe.min.js is missing (npm ci)")
		}
		e.axe = string(axe)
	}
	e.artefacts = filepath.Join(root, "test-artefacts", "browser")
	if err := os.MkdirAll(e.artefacts, 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

// site is the one site every test of the package reads: it is read-only,
// and building it (the corpus and its index, under -race) costs seconds of
// processor time that five tests would spend again.
var site struct {
	once sync.Once
	ts   *httptest.Server
	c    *corpus.Corpus
	err  error
}

// startSite serves the real site over the real embedded corpus. The base URL
// is the test server's own address, so canonical and hreflang links are
// internal links that the crawl checks too.
func startSite(t *testing.T) (*httptest.Server, *corpus.Corpus) {
	t.Helper()
	site.once.Do(func() { site.ts, site.c, site.err = newSite() })
	if site.err != nil {
		t.Fatal(site.err)
	}
	return site.ts, site.c
}

func newSite() (*httptest.Server, *corpus.Corpus, error) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		return nil, nil, err
	}
	ix, err := search.New(c.Vocab, c.Cases)
	if err != nil {
		return nil, nil, err
	}
	ts := httptest.NewUnstartedServer(nil)
	s, err := web.New(ix.Public(), web.Options{BaseURL: "http://" + ts.Listener.Addr().String()})
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	s.Install(mux)
	ts.Config.Handler = mux
	ts.Start()
	return ts, c, nil
}

// problems collects what the browser reports while the test runs: console
// errors, uncaught exceptions, failed requests and error responses.
type problems struct {
	mu   sync.Mutex
	list []string
}

func (p *problems) add(format string, args ...any) {
	p.mu.Lock()
	p.list = append(p.list, fmt.Sprintf(format, args...))
	p.mu.Unlock()
}

// take returns and clears what was collected.
func (p *problems) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.list
	p.list = nil
	return out
}

func (p *problems) listen(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range ev.Args {
				parts = append(parts, string(a.Value)+a.Description)
			}
			p.add("console.%s: %s", ev.Type, strings.Join(parts, " "))
		}
	case *runtime.EventExceptionThrown:
		p.add("uncaught exception: %s", ev.ExceptionDetails.Text)
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError {
			p.add("browser log error (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
		}
	case *network.EventLoadingFailed:
		p.add("request failed: %s (%s, blocked: %s)", ev.ErrorText, ev.Type, ev.BlockedReason)
	case *network.EventResponseReceived:
		if ev.Response.Status >= 400 {
			p.add("HTTP %d for %s", ev.Response.Status, ev.Response.URL)
		}
	}
}

// browser starts Chromium with the flags the CI machines need and a fresh
// profile, and returns a context for one tab.
func browser(t *testing.T, e env, p *problems) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(e.chromium),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	// Start the browser without a timeout: a timeout on the first Run
	// would bound the browser's whole life.
	if err := chromedp.Listen(ctx, p.listen); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// run runs one action with a time limit and fails the test on error.
func run[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// navigate loads url and waits for the load event.
func navigate(t *testing.T, ctx context.Context, u string) {
	t.Helper()
	run(t, ctx, "navigate to "+u, chromedp.Navigate(u))
}

// clickThrough clicks the first element matching sel and waits for the
// page it leads to.
func clickThrough(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	run(t, ctx, "click "+sel, chromedp.WaitEvent(page.LoadEventFired, nil,
		chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)))
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	return run(t, ctx, "evaluate "+firstLine(js), chromedp.Evaluate[T](js))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// screenshots saves the page at desktop and phone widths, checks that the
// phone layout never scrolls sideways, and restores the desktop viewport.
func screenshots(t *testing.T, ctx context.Context, e env, name string) {
	t.Helper()
	for _, v := range []struct {
		width, height int64
		mobile        bool
	}{{1280, 900, false}, {375, 812, true}, {360, 740, true}} {
		opts := []chromedp.EmulateViewportOption{}
		if v.mobile {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulatePortrait)
		}
		run(t, ctx, "set viewport", chromedp.EmulateViewport(v.width, v.height, opts...))
		overflow := eval[int](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`)
		if overflow > 0 {
			t.Errorf("%s at %d px: the page is %d px wider than the screen", name, v.width, overflow)
		}
		if v.width == 360 {
			continue // checked for overflow only; 375 is the phone screenshot
		}
		png := run(t, ctx, "screenshot", chromedp.FullScreenshot(100))
		file := filepath.Join(e.artefacts, fmt.Sprintf("%s-%d.png", name, v.width))
		if err := os.WriteFile(file, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, ctx, "reset viewport", chromedp.EmulateViewport(1280, 900))
}

// links returns every link and resource address on the page.
func links(t *testing.T, ctx context.Context) []string {
	return eval[[]string](t, ctx, `[...document.querySelectorAll('a[href], link[href], img[src]')].map(e => e.href || e.src)`)
}

// checkClean fails the step when the browser reported any problem.
func checkClean(t *testing.T, p *problems, step string) {
	t.Helper()
	for _, msg := range p.take() {
		t.Errorf("%s: %s", step, msg)
	}
}

// TestReaderJourney walks the path a reader takes: home, a search for
// conntrack, a case, one of its related cases, that case's root-cause topic,
// and the same topic in English. Every step asserts what the page shows,
// takes screenshots, and fails on any console error or failed request.
// Afterwards every internal link seen on the way must answer 200.
func TestReaderJourney(t *testing.T) {
	e := needBrowser(t, false)
	ts, c := startSite(t)
	p := &problems{}
	ctx := browser(t, e, p)
	seen := map[string]bool{}
	collect := func() {
		for _, l := range links(t, ctx) {
			seen[l] = true
		}
	}

	// 1. Home.
	navigate(t, ctx, ts.URL+"/")
	if h1 := run(t, ctx, "home h1", chromedp.Text(chromedp.CSS("h1"), chromedp.NodeVisible)); h1 != locale.T("ko", "home.heading") {
		t.Errorf("home h1 = %q, want %q", h1, locale.T("ko", "home.heading"))
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.home-newest .caseline').length`); n != 8 {
		t.Errorf("home shows %d newest cases, want 8", n)
	}
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "ko" {
		t.Errorf("home lang = %q, want ko", lang)
	}
	collect()
	screenshots(t, ctx, e, "1-home")
	// Keyboard: the first Tab reaches the skip link, and it leads to main.
	run(t, ctx, "press Tab", chromedp.KeyEvent("\t"))
	if focused := eval[string](t, ctx, `document.activeElement.className + ' ' + document.activeElement.getAttribute('href')`); focused != "skip #main" {
		t.Errorf("the first Tab focuses %q, want the skip link to #main", focused)
	}
	checkClean(t, p, "home")

	// 2. Search for conntrack through the form, as a reader would.
	run(t, ctx, "type the query", chromedp.SendKeys(chromedp.CSS("#q"), "conntrack", chromedp.NodeVisible))
	clickThrough(t, ctx, "form.search button[type=submit]")
	loc := run(t, ctx, "location", chromedp.Location())
	if u, _ := url.Parse(loc); u == nil || u.Path != "/cases" || u.Query().Get("q") != "conntrack" {
		t.Fatalf("search went to %s, want /cases?q=conntrack", loc)
	}
	summary := run(t, ctx, "result summary", chromedp.Text(chromedp.CSS(".results-summary")))
	if !regexp.MustCompile(`^\d+건 중 1~\d+번째$`).MatchString(strings.TrimSpace(summary)) {
		t.Errorf("result summary = %q, want “N건 중 1~M번째”", summary)
	}
	marks := eval[[]string](t, ctx, `[...document.querySelectorAll('.card .snippet mark')].map(m => m.textContent.toLowerCase())`)
	if !slices.Contains(marks, "conntrack") {
		t.Errorf("no snippet marks conntrack; marks: %q", marks)
	}
	if top := run(t, ctx, "top components", chromedp.Text(chromedp.CSS(".top-components"))); !strings.Contains(top, "가장 많이 나오는 구성 요소") {
		t.Errorf("top components line = %q", top)
	}
	labels := eval[[]string](t, ctx, `[...document.querySelector('.card').querySelectorAll('dt')].map(d => d.textContent.trim())`)
	want := []string{"증상", "촉발", "원인", "구성 요소", "기여 요인", "감지", "조치", "후속 조치", "교훈"}
	if eval[string](t, ctx, `document.querySelector('.card .snippet').dataset.from`) == "symptoms" {
		want = want[1:] // the snippet already shows the symptoms
	}
	if !slices.Equal(labels, want) {
		t.Errorf("card sections = %q, want %q", labels, want)
	}
	collect()
	screenshots(t, ctx, e, "2-search")
	checkClean(t, p, "search")

	// 3. The first result.
	firstID := run(t, ctx, "first result id", chromedp.Text(chromedp.CSS(".card-title .case-id")))
	clickThrough(t, ctx, ".card-title a")
	caseID := run(t, ctx, "case id", chromedp.Text(chromedp.CSS(".case-meta .case-id"), chromedp.NodeVisible))
	if caseID != firstID {
		t.Errorf("case page shows %s, want the first result %s", caseID, firstID)
	}
	headings := eval[[]string](t, ctx, `[...document.querySelectorAll('article.case h2')].map(h => h.textContent.trim())`)
	// The case's sections with a place of their own, in the table's order
	// (an empty timeline or optional prose section has none), then the
	// page's own.
	var wantH []string
	if k := c.Case(caseID); k != nil {
		for _, s := range incidentlib.Sections {
			words := s.Words
			switch s.Layout {
			case incidentlib.LayoutTimeline:
				if len(k.Timeline.Events) == 0 {
					continue
				}
			case incidentlib.LayoutCause:
				words = "cause"
			case incidentlib.LayoutProse:
				if t := s.Text(k); s.Chips == "" && t.EN == "" && t.KO == "" {
					continue
				}
			case incidentlib.LayoutItems, incidentlib.LayoutSources:
			default:
				continue
			}
			wantH = append(wantH, locale.T("ko", words))
		}
	}
	wantH = append(wantH, "관련 사례", "내 클러스터에도 있는지 확인하기", "AI 도구와 스크립트용", locale.T("ko", "cite.heading"), locale.T("ko", "casenav.label"))
	if !slices.Contains(wantH, "증상") || !slices.Contains(wantH, "교훈") || !slices.Contains(wantH, "원인") {
		t.Errorf("the sections table gives the case page the headings %q", wantH)
	}
	if !slices.Equal(headings, wantH) {
		t.Errorf("case sections = %q, want %q", headings, wantH)
	}
	facts := eval[[]string](t, ctx, `[...document.querySelectorAll('.facts dt')].map(d => d.textContent.trim())`)
	if wantF := []string{"심각도", "영향 범위", "영향 사용자", "지역", "감지까지", "복구까지"}; !slices.Equal(facts, wantF) {
		t.Errorf("case facts = %q, want %q", facts, wantF)
	}
	if ai := run(t, ctx, "ai section", chromedp.Text(chromedp.CSS("section.ai"))); !strings.Contains(ai, "/api/cases/"+caseID) || !strings.Contains(ai, "/mcp") {
		t.Errorf("AI section lacks the case's API URL or the MCP endpoint: %q", ai)
	}
	collect()
	screenshots(t, ctx, e, "3-case")
	checkClean(t, p, "case "+caseID)

	// 4. Its first related case.
	reason := run(t, ctx, "related reason", chromedp.Text(chromedp.CSS(".related .reason")))
	if strings.TrimSpace(reason) == "" {
		t.Error("the first related case gives no reason")
	}
	relatedID := run(t, ctx, "related id", chromedp.Text(chromedp.CSS(".related a .case-id")))
	clickThrough(t, ctx, ".related a")
	got := run(t, ctx, "related case id", chromedp.Text(chromedp.CSS(".case-meta .case-id"), chromedp.NodeVisible))
	if got != relatedID || got == caseID {
		t.Errorf("related case page shows %s, want %s (not %s)", got, relatedID, caseID)
	}
	collect()
	screenshots(t, ctx, e, "4-related")
	checkClean(t, p, "related case "+got)

	// 5. The related case's root-cause topic.
	causeLabel := run(t, ctx, "root cause label", chromedp.Text(chromedp.CSS(".cause-terms .chip-strong")))
	clickThrough(t, ctx, ".cause-terms .chip-strong")
	if h1 := run(t, ctx, "topic h1", chromedp.Text(chromedp.CSS("h1"), chromedp.NodeVisible)); h1 != causeLabel {
		t.Errorf("topic h1 = %q, want %q", h1, causeLabel)
	}
	topicCases := eval[[]string](t, ctx, `[...document.querySelectorAll('.caselist .case-id')].map(e => e.textContent)`)
	if !slices.Contains(topicCases, got) {
		t.Errorf("topic %q does not list %s, whose root cause it is; it lists %q", causeLabel, got, topicCases)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('figure svg[role=img] rect').length`); n == 0 {
		t.Error("the topic page has no year chart")
	}
	topicPath := eval[string](t, ctx, `location.pathname`)
	collect()
	screenshots(t, ctx, e, "5-topic")
	checkClean(t, p, "topic")

	// 6. Switch to English.
	clickThrough(t, ctx, ".lang-switch")
	if path := eval[string](t, ctx, `location.pathname`); path != "/en"+topicPath {
		t.Errorf("language switch went to %s, want /en%s", path, topicPath)
	}
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "en" {
		t.Errorf("English page lang = %q", lang)
	}
	h1 := run(t, ctx, "English topic h1", chromedp.Text(chromedp.CSS("h1"), chromedp.NodeVisible))
	var wantEN string
	for _, term := range c.Vocab.Lists["root_cause"] {
		if term.Label.KO == causeLabel {
			wantEN = term.Label.EN
		}
	}
	if wantEN == "" || h1 != wantEN {
		t.Errorf("English topic h1 = %q, want the English label %q of %q", h1, wantEN, causeLabel)
	}
	if nav := run(t, ctx, "English nav", chromedp.Text(chromedp.CSS(".site-nav"))); !strings.Contains(nav, "Cases") || !strings.Contains(nav, "Statistics") {
		t.Errorf("English nav = %q", nav)
	}
	if sw := run(t, ctx, "switch back", chromedp.Text(chromedp.CSS(".lang-switch"))); !strings.Contains(sw, "한국어") {
		t.Errorf("English page offers no way back to Korean: %q", sw)
	}
	collect()
	screenshots(t, ctx, e, "6-topic-en")
	checkClean(t, p, "English topic")

	// Other pages worth looking at, for the screenshots and the crawl.
	for _, pg := range []struct {
		name, path string
		status     int
	}{
		{"7-stats", "/stats", 200}, {"8-vocab", "/topics", 200}, {"9-api", "/docs/api", 200},
		{"10-case-en", "/en/cases/IL-0049", 200}, {"11-list", "/cases", 200},
		{"12-not-found", "/cases/IL-9999", 404}, {"13-bad-filter", "/en/cases?component=nope", 400},
	} {
		resp := run(t, ctx, "navigate "+pg.path, chromedp.NavigateResponse(ts.URL+pg.path))
		if int(resp.Status) != pg.status {
			t.Errorf("%s answered %d, want %d", pg.path, resp.Status, pg.status)
		}
		// An error page links to itself (canonical, language switch), which
		// answers its error again; its other links are on the pages above.
		if pg.status == 200 {
			collect()
		}
		screenshots(t, ctx, e, pg.name)
		for _, msg := range p.take() {
			if pg.status >= 400 && expectedFailure(msg, pg.status) {
				continue
			}
			t.Errorf("%s: %s", pg.path, msg)
		}
	}

	crawl(t, ts, seen)
}

// crawl requests every internal address seen on the visited pages and
// fails on any that does not answer 200. The JSON API and MCP are served by
// other packages in the real server and are not part of this test server,
// so their links are checked by those packages' tests instead.
func crawl(t *testing.T, ts *httptest.Server, seen map[string]bool) {
	t.Helper()
	base, _ := url.Parse(ts.URL)
	var internal []string
	for l := range seen {
		u, err := url.Parse(l)
		if err != nil {
			t.Errorf("bad link %q: %v", l, err)
			continue
		}
		if u.Host != base.Host {
			continue
		}
		if strings.HasPrefix(u.Path, "/api/") || u.Path == "/mcp" {
			continue
		}
		u.Fragment = ""
		internal = append(internal, u.String())
	}
	sort.Strings(internal)
	internal = slices.Compact(internal)
	if len(internal) < 50 {
		t.Errorf("the crawl found only %d internal links; the pages should hold far more", len(internal))
	}
	client := ts.Client()
	for _, u := range internal {
		resp, err := client.Get(u)
		if err != nil {
			t.Errorf("GET %s: %v", u, err)
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("broken internal link: GET %s = %d", u, resp.StatusCode)
		}
	}
	t.Logf("crawled %d internal links", len(internal))
}

// expectedFailure reports whether msg is only the browser noting the
// status of a page that is meant to answer it (the 404 and 400 pages):
// the response itself and the console line Chromium writes for it.
func expectedFailure(msg string, status int) bool {
	return strings.HasPrefix(msg, fmt.Sprintf("HTTP %d for ", status)) ||
		strings.Contains(msg, fmt.Sprintf("Failed to load resource: the server responded with a status of %d", status))
}

// axeResult is what the page script returns for one violation.
type axeResult struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// TestAccessibility runs axe-core on the main pages in both languages and
// fails on any serious or critical violation.
func TestAccessibility(t *testing.T) {
	e := needBrowser(t, true)
	ts, _ := startSite(t)
	p := &problems{}
	ctx := browser(t, e, p)
	pages := []struct {
		path   string
		status int
	}{
		{"/", 200}, {"/cases", 200}, {"/cases?q=conntrack", 200}, {"/cases?component=coredns&q=dns", 200},
		{"/cases/IL-0049", 200}, {"/topics/conntrack", 200}, {"/topics", 200}, {"/en/topics", 200}, {"/incidents", 200}, {"/en/incidents", 200}, {"/cases?domain=dns&root_cause=config-change&year_from=2024", 200}, {"/stats", 200},
		{"/docs/api", 200}, {"/no-such-page", 404},
		{"/en/", 200}, {"/en/cases?q=conntrack", 200}, {"/en/cases/IL-0049", 200}, {"/en/stats", 200},
		{"/cases?component=no-such-term", 400},
		{"/orgs", 200}, {"/orgs/wellcome-collection", 200}, {"/en/orgs", 200}, {"/en/orgs/preply", 200},
		{"/orgs/no-such-org", 404}, {"/en/orgs/no-such-org", 404},
	}
	// At phone width wide blocks scroll: they must be reachable by keyboard.
	for _, path := range []string{"/docs/api", "/stats", "/en/stats", "/cases/IL-0049", "/en/cases/IL-0049", "/orgs", "/en/orgs/wellcome-collection", "/incidents", "/en/incidents"} {
		pages = append(pages, struct {
			path   string
			status int
		}{path + "#phone", 200})
	}
	for _, pg := range pages {
		if phone := strings.HasSuffix(pg.path, "#phone"); phone {
			run(t, ctx, "phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		} else {
			run(t, ctx, "desktop viewport", chromedp.EmulateViewport(1280, 900))
		}
		resp := run(t, ctx, "navigate "+pg.path, chromedp.NavigateResponse(ts.URL+pg.path))
		if int(resp.Status) != pg.status {
			t.Errorf("%s answered %d, want %d", pg.path, resp.Status, pg.status)
		}
		run(t, ctx, "inject axe", chromedp.Evaluate[chromedp.Void](e.axe))
		js := `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
			id: v.id, impact: v.impact || '', help: v.help,
			nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))})))`
		vs := run(t, ctx, "run axe on "+pg.path, chromedp.Evaluate[[]axeResult](js, chromedp.EvalAwaitPromise))
		for _, v := range vs {
			msg := fmt.Sprintf("%s: axe %s (%s): %s at %s", pg.path, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, ", "))
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Error(msg)
			} else {
				t.Log(msg)
			}
		}
		for _, msg := range p.take() {
			if pg.status >= 400 && expectedFailure(msg, pg.status) {
				continue
			}
			t.Errorf("%s: %s", pg.path, msg)
		}
	}
}
