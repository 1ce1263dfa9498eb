package web_test

import (
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/web"
)

const base = "https://incidents.example.org"

// MaxPageBytes is the size budget of one HTML page before compression.
const MaxPageBytes = 100 * 1024

var (
	loadOnce sync.Once
	loaded   *corpus.Corpus
	loadErr  error
	ixOnce   sync.Once
	sharedIx *search.Index
	ixErr    error
)

func testCorpus(t *testing.T) *corpus.Corpus {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = corpus.LoadEmbedded() })
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

// sharedIndex is the real embedded corpus, indexed once for the tests that
// only read it.
func sharedIndex(t *testing.T) *search.Index {
	t.Helper()
	c := testCorpus(t)
	ixOnce.Do(func() { sharedIx, ixErr = search.New(c.Vocab, c.Cases) })
	if ixErr != nil {
		t.Fatal(ixErr)
	}
	return sharedIx
}

func newMux(t *testing.T, ix *search.Index, opts web.Options) *http.ServeMux {
	t.Helper()
	if opts.BaseURL == "" {
		opts.BaseURL = base
	}
	s, err := web.New(ix.Public(), opts)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	s.Install(mux)
	return mux
}

type response struct {
	code   int
	header http.Header
	body   string
}

func get(t *testing.T, h http.Handler, target string) response {
	t.Helper()
	return do(t, h, http.MethodGet, target, nil)
}

func do(t *testing.T, h http.Handler, method, target string, hdr http.Header) response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return response{rec.Code, rec.Result().Header, string(b)}
}

// checkHTML asserts what every HTML page must have.
func checkHTML(t *testing.T, target string, r response, lang string) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("%s: Content-Type %q", target, ct)
	}
	csp := r.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'none'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("%s: Content-Security-Policy %q", target, csp)
	}
	// The table of every incident grows with the corpus; its rows have
	// their own budget (TestIncidentsTable).
	if len(r.body) > MaxPageBytes && !isIncidentsTable(target) {
		t.Errorf("%s: page is %d bytes, over the %d budget", target, len(r.body), MaxPageBytes)
	}
	if !strings.Contains(r.body, `<html lang="`+lang+`">`) {
		t.Errorf("%s: not marked lang=%s", target, lang)
	}
	for _, want := range []string{`hreflang="ko"`, `hreflang="en"`, `class="lang-switch"`, `<main id="main"`, `<nav class="site-nav" aria-label=`, `<header class="site-header">`, `<footer class="site-footer">`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("%s: page lacks %s", target, want)
		}
	}
	// The one script element a page may carry is a JSON-LD description,
	// which is data and never runs.
	if strings.Count(r.body, "<script") != strings.Count(r.body, `<script type="application/ld+json">`) {
		t.Errorf("%s: page carries a script element", target)
	}
	// A key that no language defines shows as itself: "list.heading".
	if k := untranslatedKey(r.body); k != "" {
		t.Errorf("%s: untranslated string key %q", target, k)
	}
}

// isIncidentsTable is whether target is the all-incidents page.
func isIncidentsTable(target string) bool {
	p, _, _ := strings.Cut(target, "?")
	return p == "/incidents" || p == "/en/incidents"
}

// links returns the values of the href and src attributes of body, in
// order (a scan with the strings package: the crawl reads every page).
func links(body string) []string {
	var out []string
	for rest := body; ; {
		i := strings.Index(rest, `="`)
		if i < 0 {
			return out
		}
		name := rest[:i]
		rest = rest[i+2:]
		j := strings.IndexByte(rest, '"')
		if j < 0 {
			return out
		}
		if (strings.HasSuffix(name, "href") || strings.HasSuffix(name, "src")) && j > 0 {
			out = append(out, rest[:j])
		}
		rest = rest[j+1:]
	}
}

// keyPrefixes are the first parts of the catalogue's keys.
var keyPrefixes = []string{"nav", "list", "case", "home", "topic", "stats", "api", "error", "vocab", "sort", "facet", "search", "footer", "cite", "casenav", "orgs", "org", "submit", "correct", "desk"}

// untranslatedKey returns the first text of body, between > and <, that is
// a catalogue key as a missing word shows (list.heading); "" if none. It
// scans with the strings package rather than a regular expression: the
// crawl calls it on every page, under -race.
func untranslatedKey(body string) string {
	for rest := body; ; {
		i := strings.IndexByte(rest, '>')
		if i < 0 {
			return ""
		}
		rest = rest[i+1:]
		j := strings.IndexByte(rest, '<')
		if j < 0 {
			return ""
		}
		text := rest[:j]
		if k := strings.LastIndexByte(text, '>'); k >= 0 {
			text = text[k+1:] // "a > list.heading": the key follows the last >
		}
		text = strings.TrimSpace(text)
		rest = rest[j:]
		prefix, tail, ok := strings.Cut(text, ".")
		if !ok || tail == "" || !slices.Contains(keyPrefixes, prefix) {
			continue
		}
		if strings.Trim(tail, "abcdefghijklmnopqrstuvwxyz_.") == "" {
			return text
		}
	}
}

var titleRe = regexp.MustCompile(`<title>([^<]*)</title>`)

// listQuery is the raw query of a link to the case list, and whether the
// link is one.
func listQuery(link string) (string, bool) {
	l := strings.TrimPrefix(html.UnescapeString(link), base)
	for _, prefix := range []string{"/cases?", "/en/cases?"} {
		if q, ok := strings.CutPrefix(l, prefix); ok {
			q, _, _ = strings.Cut(q, "#")
			return q, true
		}
	}
	return "", false
}

// canonicalQuery is a list's query in the one form the site writes:
// parameters by name, each parameter's values sorted, spaces as +.
func canonicalQuery(q string) string {
	v, err := url.ParseQuery(q)
	if err != nil {
		return "unparseable"
	}
	for _, vals := range v {
		slices.Sort(vals)
	}
	return v.Encode()
}

var jsonLDRe = regexp.MustCompile(`(?s)<script type="application/ld\+json">.*?</script>`)

// TestRoutes requests every route in both languages over the real corpus
// and checks status, type, language and a piece of content each.
func TestRoutes(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	tests := []struct {
		path string
		code int
		lang string // "" for non-HTML answers
		want []string
	}{
		{"/", 200, "ko", []string{"남의 장애에서 먼저 배우기", `action="/cases"`, "새로 정리한 사례", "자주 나오는 주제"}},
		{"/en/", 200, "en", []string{"Learn from other people", `action="/en/cases"`, "Newest cases", "Frequent topics"}},
		{"/cases", 200, "ko", []string{"중 1~20번째", "이 ", "건에서 가장 많이 나오는 구성 요소:", "좁혀 보기"}},
		{"/en/cases", 200, "en", []string{"1–20 of", "Components that come up most in these", "Narrow down"}},
		{"/cases?q=conntrack", 200, "ko", []string{"<mark>conntrack</mark>", "IL-0049"}},
		{"/en/cases?q=conntrack", 200, "en", []string{"<mark>conntrack</mark>", "IL-0049"}},
		{"/cases?component=coredns", 200, "ko", []string{"적용한 조건", "구성 요소: CoreDNS"}},
		{"/en/cases?components=coredns&page=1", 200, "en", []string{"Active filters", "Component: CoreDNS"}},
		{"/cases/IL-0049", 200, "ko", []string{"IL-0049", "Preply", "발생일", "내 클러스터에도 있는지 확인하기", "AI 도구와 스크립트용", base + "/api/cases/IL-0049"}},
		{"/en/cases/IL-0049", 200, "en", []string{"The CoreDNS autoscaler removed a pod", "incident date", "For AI tools and scripts", base + "/api/cases/IL-0049/similar"}},
		{"/topics/conntrack", 200, "ko", []string{"conntrack 테이블", "이 주제의 사례", "IL-0049", "<svg"}},
		{"/en/topics/conntrack", 200, "en", []string{"Cases on this topic", "IL-0049"}},
		{"/topics/root_cause:dns-network", 200, "ko", []string{"DNS·네트워크"}},
		{"/en/topics/root_cause:dns-network", 200, "en", []string{"IL-0049"}},
		{"/topics", 200, "ko", []string{"주제", `id="components"`, "/topics/conntrack"}},
		{"/en/topics", 200, "en", []string{"Topics", `href="/en/topics/conntrack"`}},
		{"/stats", 200, "ko", []string{"연도별 사례 수", "원인별 사례 수", "가장 많이 나오는 구성 요소", "구성 요소 × 원인", `role="img"`}},
		{"/en/stats", 200, "en", []string{"Cases by year", "Cases by root cause", "Components × root cause"}},
		{"/docs/api", 200, "ko", []string{"claude mcp add --transport http incidentlib " + base + "/mcp", "[mcp_servers.incidentlib]", `url = "` + base + `/mcp"`, "curl -s"}},
		{"/en/docs/api", 200, "en", []string{"claude mcp add --transport http incidentlib " + base + "/mcp", "Codex"}},
		{"/feed.atom", 200, "", []string{`<feed xmlns="http://www.w3.org/2005/Atom"`, `xml:lang="ko"`}},
		{"/en/feed.atom", 200, "", []string{`xml:lang="en"`, base + "/en/cases/"}},
		{"/sitemap.xml", 200, "", []string{"<urlset", base + "/cases/IL-0049", base + "/en/cases/IL-0049"}},
		{"/robots.txt", 200, "", []string{"Sitemap: " + base + "/sitemap.xml"}},
		{"/no-such-page", 404, "ko", []string{"찾는 페이지가 없습니다"}},
		{"/en/no-such-page", 404, "en", []string{"Page not found"}},
		{"/cases/IL-9999", 404, "ko", []string{"찾는 페이지가 없습니다"}},
		{"/en/cases/IL-9999", 404, "en", []string{"Page not found"}},
		{"/topics/no-such-term", 404, "ko", []string{"찾는 페이지가 없습니다"}},
		{"/en/topics/no-such-term", 404, "en", []string{"Page not found"}},
		{"/static/no-such-file.css", 404, "", nil},
		{"/api/no-such-endpoint", 404, "", []string{`"code":"not_found"`}},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.path, "/"), func(t *testing.T) {
			t.Parallel()
			r := get(t, mux, tt.path)
			if r.code != tt.code {
				t.Fatalf("GET %s = %d, want %d", tt.path, r.code, tt.code)
			}
			if tt.lang != "" {
				checkHTML(t, tt.path, r, tt.lang)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("GET %s lacks %q", tt.path, w)
				}
			}
		})
	}
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	for path, want := range map[string]string{
		"/en":               "/en/",
		"/cases/il-0049":    "/cases/IL-0049",
		"/en/cases/il-0049": "/en/cases/IL-0049",
		"/cases/":           "/cases",
		"/en/cases/?q=dns":  "/en/cases?q=dns",
	} {
		r := get(t, mux, path)
		if r.code != http.StatusMovedPermanently || r.header.Get("Location") != want {
			t.Errorf("GET %s = %d → %q, want 301 → %q", path, r.code, r.header.Get("Location"), want)
		}
	}
}

func TestMethods(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	r := do(t, mux, http.MethodHead, "/cases/IL-0049", nil)
	if r.code != 200 || r.body != "" || r.header.Get("Content-Security-Policy") == "" {
		t.Errorf("HEAD = %d with %d bytes, CSP %q; want 200, empty, with CSP", r.code, len(r.body), r.header.Get("Content-Security-Policy"))
	}
	r = do(t, mux, http.MethodPost, "/cases", nil)
	if r.code != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /cases = %d, Allow %q; want 405 with Allow", r.code, r.header.Get("Allow"))
	}
}

// TestCasePage checks the case page against seeds/000: every section in
// the seed's order, the facts in the page's language with "–" where
// unknown, and the durations.
func TestCasePage(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	for lang, want := range map[string][]string{
		"ko": {"IL-0049", "Preply", "2020-02-28", "(발생일)", "쿠버네티스", "<h1", "2020년 2월 28일",
			"심각도", "영향 범위", "영향 사용자", "지역", "감지까지", "복구까지",
			">증상<", ">원인<", "DNS·네트워크", ">촉발<", ">감지<", ">조치<", ">후속 조치<", ">교훈<", ">출처<",
			"https://medium.com/preply-engineering/dns-postmortem-e169efd45afd", ">관련 사례<",
			"내 클러스터에도 있는지 확인하기", "AI 도구와 스크립트용", "이 사례의 JSON", "가장 비슷한 사례들", "MCP 서버"},
		"en": {"IL-0049", "Preply", "2020-02-28", "(incident date)", "Kubernetes", "<h1", "On 28 February 2020",
			"Severity", "Scope", "Users affected", "Region", "Time to detect", "Time to resolve",
			">Symptoms<", ">Cause<", ">Trigger<", ">Detection<", ">Remediation<", ">Action items<", ">Lessons<", ">Sources<",
			">Related cases<", "Check whether your cluster has it too", "For AI tools and scripts"},
	} {
		path := map[string]string{"ko": "/cases/IL-0049", "en": "/en/cases/IL-0049"}[lang]
		r := get(t, mux, path)
		checkHTML(t, path, r, lang)
		at := 0
		for _, w := range want {
			i := strings.Index(r.body[at:], w)
			if i < 0 {
				t.Errorf("%s: %q missing after byte %d (out of order or absent)", path, w, at)
				continue
			}
			at += i + len(w)
		}
	}
	// The facts in the page's language: the impact as the case gives it in
	// that language, "–" where the write-up does not say, the durations in
	// the page's units.
	factsOf := func(path string) (string, []string) {
		r := get(t, mux, path)
		facts := regexp.MustCompile(`(?s)<dl class="facts">(.*?)</dl>`).FindStringSubmatch(r.body)
		if facts == nil {
			t.Fatalf("%s: no facts list", path)
		}
		var got []string
		for _, m := range regexp.MustCompile(`<dd[^>]*>([^<]*)</dd>`).FindAllStringSubmatch(facts[1], -1) {
			got = append(got, m[1])
		}
		return facts[1], got
	}
	il49 := testCorpus(t).Case("IL-0049")
	for path, want := range map[string][]string{
		"/cases/IL-0049":    {"–", il49.Impact.Scope.KO, "–", "–", "4분", "26분"},
		"/en/cases/IL-0049": {"–", il49.Impact.Scope.EN, "–", "–", "4m", "26m"},
	} {
		if _, got := factsOf(path); !slices.Equal(got, want) {
			t.Errorf("%s: facts = %q\nwant    %q", path, got, want)
		}
	}
	if il49.Impact.Scope.KO == il49.Impact.Scope.EN || !strings.Contains(il49.Impact.Scope.KO, "이벤트 15000건") {
		t.Errorf("IL-0049's Korean scope is %q, not a Korean text of its own", il49.Impact.Scope.KO)
	}
	// A Korean fact is not marked as English; an English one on a Korean
	// page (a case stored before impact had both languages) would be.
	if dl, _ := factsOf("/cases/IL-0049"); strings.Contains(dl, `<dd lang="en">`) {
		t.Errorf("a Korean fact on the Korean page is marked lang=en: %s", dl)
	}
	r := get(t, mux, "/cases/IL-0049")
	// The related cases carry their reasons.
	if !regexp.MustCompile(`class="reason">(같은 원인|공통|같은 증상|같은 기여 요인|비슷한 서술)`).MatchString(r.body) {
		t.Error("related cases show no reason")
	}
	// The fenced log line keeps its own line and its spacing.
	if !strings.Contains(r.body, `<pre class="literal"><code>E0228 20:13:53.795782       1 proxier.go:610]`) {
		t.Error("the quoted kube-proxy log line is not set as a literal block")
	}
	// The timeline shows the times as the write-up gives them, in order.
	tl := regexp.MustCompile(`(?s)<ol class="timeline">(.*?)</ol>`).FindStringSubmatch(r.body)
	if tl == nil || !strings.Contains(tl[1], "<time>22:13 EET</time>") || strings.Index(tl[1], "22:13 EET") > strings.Index(tl[1], "22:40 EET") {
		t.Error("the case page shows no timeline, or not in order")
	}
	// Sources show their titles, not bare addresses.
	if !strings.Contains(r.body, `lang="en">DNS issues in Kubernetes. Public postmortem #1</a>`) {
		t.Error("the source is shown as a bare URL")
	}
}

// TestCasePageEnglishOnlyImpact: an impact fact with no Korean text (a case
// stored before impact had both languages) shows in English on the Korean
// page, marked lang=en for screen readers.
func TestCasePageEnglishOnlyImpact(t *testing.T) {
	t.Parallel()
	ix := withExtraCases(t, func(c *incidentlib.Case) {
		c.Impact.Scope = incidentlib.Text{EN: "Only the English scope"}
	})
	mux := newMux(t, ix, web.Options{})
	r := get(t, mux, "/cases/IL-9990")
	if !strings.Contains(r.body, `<dd lang="en">Only the English scope</dd>`) {
		t.Error("the English-only scope is not shown on the Korean page, marked lang=en")
	}
}

// withExtraCases indexes the corpus plus cases made from copies of real
// ones, for behaviour the corpus alone cannot show.
func withExtraCases(t *testing.T, edit ...func(c *incidentlib.Case)) *search.Index {
	t.Helper()
	c := testCorpus(t)
	cases := append([]*incidentlib.Case{}, c.Cases...)
	src := c.Case("IL-0049")
	for i, e := range edit {
		cp := *src
		cp.ID = fmt.Sprintf("IL-99%02d", 90+i)
		cp.Related = nil
		e(&cp)
		cases = append(cases, &cp)
	}
	ix, err := search.New(c.Vocab, cases)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// TestPrivateCasesNeverShown puts a private case in the index and looks for
// it on every page that lists cases.
func TestPrivateCasesNeverShown(t *testing.T) {
	t.Parallel()
	ix := withExtraCases(t, func(c *incidentlib.Case) {
		c.Private = true
		c.Date = "2099-01-01" // newest of all, so any list would show it first
		c.Title = incidentlib.Text{EN: "Zanzibarquux secret outage", KO: "잔지바르쿡스 비밀 장애"}
	})
	mux := newMux(t, ix, web.Options{})
	if r := get(t, mux, "/cases/IL-9990"); r.code != 404 {
		t.Errorf("private case page answered %d, want 404", r.code)
	}
	for _, p := range []string{"/", "/en/", "/cases", "/cases?q=Zanzibarquux", "/en/cases?q=Zanzibarquux", "/topics/conntrack",
		"/topics/dns-network", "/stats", "/feed.atom", "/en/feed.atom", "/sitemap.xml", "/cases/IL-0049"} {
		r := get(t, mux, p)
		// The search pages echo the query, so look for the title, not the word.
		if strings.Contains(r.body, "IL-9990") || strings.Contains(r.body, "Zanzibarquux secret") || strings.Contains(r.body, "잔지바르쿡스") {
			t.Errorf("%s shows the private case", p)
		}
	}
	r := get(t, mux, "/cases?q=Zanzibarquux")
	if !strings.Contains(r.body, "맞는 사례가 없습니다") {
		t.Error("a search for the private case's words finds something")
	}
}

func TestReviewMark(t *testing.T) {
	t.Parallel()
	at, by := "2026-02-01T09:00:00Z", "Kim Editor"
	ix := withExtraCases(t, func(c *incidentlib.Case) {
		c.Review.ReviewedAt, c.Review.ReviewedBy = &at, &by
	}, func(c *incidentlib.Case) {
		c.Review.ReviewedAt, c.Review.ReviewedBy = nil, nil
	})
	mux := newMux(t, ix, web.Options{})
	reviewed := get(t, mux, "/cases/IL-9990")
	if strings.Contains(reviewed.body, "아직 검토하지 않은 사례입니다") {
		t.Error("a reviewed case shows the not-reviewed mark")
	}
	if !strings.Contains(reviewed.body, "검토: Kim Editor (2026-02-01)") {
		t.Error("a reviewed case does not say who reviewed it")
	}
	unreviewed := get(t, mux, "/cases/IL-9991")
	if !strings.Contains(unreviewed.body, `class="unreviewed"`) || !strings.Contains(unreviewed.body, "아직 검토하지 않은 사례입니다") {
		t.Error("an unreviewed case lacks the not-reviewed mark")
	}
	if en := get(t, mux, "/en/cases/IL-9991"); !strings.Contains(en.body, "Not yet reviewed") {
		t.Error("the English page lacks the not-reviewed mark")
	}
}

func TestKubegapChecks(t *testing.T) {
	t.Parallel()
	ix := sharedIndex(t)
	var asked []string
	var mu sync.Mutex
	checks := func(id string) []web.CheckRef {
		mu.Lock()
		asked = append(asked, id)
		mu.Unlock()
		if id != "IL-0049" {
			return nil
		}
		return []web.CheckRef{{ID: "KG-DNS-001", Severity: "high", Title: incidentlib.Text{KO: "CoreDNS 자동 확장기 설정 점검", EN: "CoreDNS autoscaler settings"}}}
	}
	with := newMux(t, ix, web.Options{ChecksFor: checks})
	r := get(t, with, "/cases/IL-0049")
	for _, w := range []string{"KG-DNS-001", ">높음<", "CoreDNS 자동 확장기 설정 점검", "kubegap scan", "kubegap explain KG-DNS-001"} {
		if !strings.Contains(r.body, w) {
			t.Errorf("case page with a citing check lacks %q", w)
		}
	}
	if en := get(t, with, "/en/cases/IL-0049"); !strings.Contains(en.body, "CoreDNS autoscaler settings") {
		t.Error("the English page does not show the check's English title")
	}
	if r := get(t, with, "/topics/conntrack"); !strings.Contains(r.body, "KG-DNS-001") {
		t.Error("the topic page of a cited case's component does not list the check")
	}
	if r := get(t, with, "/cases/IL-0461"); !strings.Contains(r.body, "아직 이 사례를 근거로 삼는 kubegap 점검 항목이 없습니다") {
		t.Error("a case no check cites does not say so")
	}
	mu.Lock()
	if !slices.Contains(asked, "IL-0049") {
		t.Error("ChecksFor was never asked about IL-0049")
	}
	mu.Unlock()
	without := newMux(t, ix, web.Options{})
	if r := get(t, without, "/cases/IL-0049"); !strings.Contains(r.body, "아직 이 사례를 근거로 삼는 kubegap 점검 항목이 없습니다") || strings.Contains(r.body, "kubegap explain") {
		t.Error("without ChecksFor the page must say that no check cites the case")
	}
}

// TestBadInput: bad parameters give a page that names them, with status
// 400, never a 500; the rest of the request still runs.
func TestBadInput(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	tests := []struct {
		path string
		want []string
	}{
		{"/cases?component=no-such-part", []string{"‘no-such-part’ 는 구성 요소 목록에 없는 값이라 빼고 찾았습니다", "중 1~20번째"}},
		{"/en/cases?symptom=nope&q=dns", []string{"‘nope’ is not a Symptom term", "<mark>"}},
		{"/cases?root_cause=dns-network&root_cause=bogus", []string{"‘bogus’", "원인: DNS·네트워크"}},
		{"/cases?org=no-such-org", []string{"‘no-such-org’ 라는 조직의 사례는 없습니다"}},
		{"/cases?sort=sideways", []string{"정렬 ‘sideways’ 는 지원하지 않습니다"}},
		{"/cases?year_from=twenty", []string{"year_from 값 ‘twenty’ 는 연도가 아닙니다"}},
		{"/cases?year_from=2024&year_to=2019", []string{"시작 연도 2024 가 끝 연도 2019 보다 늦어"}},
		{"/cases?reviewed=maybe", []string{"reviewed 값 ‘maybe’"}},
		{"/en/cases?reviewed=maybe", []string{"reviewed ‘maybe’ must be true or false"}},
		{"/cases?sort=sideways", []string{"relevance, date, -date 중 하나를"}},
		{"/cases?q=%FF", []string{"q 값이 올바른 UTF-8 이 아니어서"}},
		{"/en/cases?q=%FF", []string{"q is not valid UTF-8, so it was left out"}},
		{"/cases?page=0", []string{"‘0’ 페이지는 없어서"}},
		{"/cases?page=-3", []string{"‘-3’ 페이지는"}},
		{"/cases?page=9223372036854775807", []string{"‘9223372036854775807’ 페이지는"}},
		{"/cases?page=461168601842738791", []string{"‘461168601842738791’ 페이지는"}},
		{"/cases?component=%3Cscript%3Ealert(1)%3C%2Fscript%3E", []string{"&lt;script&gt;alert(1)&lt;/script&gt;"}},
	}
	for _, tt := range tests {
		r := get(t, mux, tt.path)
		if r.code != http.StatusBadRequest {
			t.Errorf("GET %s = %d, want 400", tt.path, r.code)
		}
		lang := "ko"
		if strings.HasPrefix(tt.path, "/en/") {
			lang = "en"
		}
		checkHTML(t, tt.path, r, lang)
		if !strings.Contains(r.body, `class="notice notice-error" role="alert"`) {
			t.Errorf("GET %s: no message box", tt.path)
		}
		for _, w := range tt.want {
			if !strings.Contains(r.body, w) {
				t.Errorf("GET %s lacks %q", tt.path, w)
			}
		}
		// The words are the catalogue's, never the parser's English.
		if strings.Contains(r.body, "is not valid UTF-8;") || strings.Contains(r.body, "is not supported; use relevance") || strings.Contains(r.body, "parameter &#34;") {
			t.Errorf("GET %s shows the parameter parser's own message", tt.path)
		}
	}
	// A huge bad request gets a page of bounded size: values are cut and
	// only the first messages are shown.
	var many strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&many, ",bad%d", i)
	}
	long := "/cases?component=" + strings.Repeat("x", 2000) + many.String()
	if r := get(t, mux, long); r.code != http.StatusBadRequest || len(r.body) > 100<<10 || !strings.Contains(r.body, "xxxx…") || !strings.Contains(r.body, "개 더 있어") {
		t.Errorf("a 25 KB bad filter gives %d, a %d-byte page", r.code, len(r.body))
	}
	// The home page's example searches land on the words they show.
	for _, path := range []string{"/", "/en/"} {
		home := get(t, mux, path)
		if strings.Contains(home.body, "%25") || strings.Contains(home.body, "q=DNS+errors") {
			t.Errorf("%s: an example link is encoded twice", path)
		}
	}
	// A page past the end is not an error: it says there is nothing there.
	if r := get(t, mux, "/cases?page=400"); r.code != 200 || !strings.Contains(r.body, "이 페이지에는 사례가 없습니다") || !strings.Contains(r.body, `href="/cases"`) {
		t.Errorf("a page past the end = %d, or it does not say so and link to the first page", r.code)
	}
}

// TestLongQueryDescribesCloseMatches: a pasted line matches most cases by
// some word; the page says how many match closely and describes those.
func TestLongQueryDescribesCloseMatches(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	q := "Failed to delete kube-system/kube-dns:dns endpoint connections, error: error deleting conntrack entries for UDP peer"
	body := get(t, mux, "/cases?q="+url.QueryEscape(q)).body
	// The note names the results and how many of them are close; the
	// page's count and its top-components line count the same results.
	var total, close string
	if m := regexp.MustCompile(`<p class="match-note">검색어를 낱말 \d+개로 읽었습니다. 아래 (\d+)건 가운데 그 절반 이상이 들어 있는 사례는 (\d+)건`).FindStringSubmatch(body); m != nil {
		total, close = m[1], m[2]
	} else if m := regexp.MustCompile(`<p class="match-note">검색어를 낱말 \d+개로 읽었습니다. 아래 (\d+)건은 모두 그 절반 이상을`).FindStringSubmatch(body); m != nil {
		total, close = m[1], m[1]
	} else {
		t.Fatalf("no close-match note on a long query:\n%.3000s", body)
	}
	if c, _ := strconv.Atoi(close); c == 0 {
		t.Errorf("the note says %s cases are close", close)
	}
	if count := regexp.MustCompile(`<span class="count-big">(\d+)건</span>`).FindStringSubmatch(body); count == nil || count[1] != total {
		t.Errorf("the page counts %v, the note %s results", count, total)
	}
	top := regexp.MustCompile(`이 (\d+)건에서 가장 많이 나오는 구성 요소`).FindStringSubmatch(body)
	if top == nil || top[1] != total {
		t.Errorf("the top-components line counts %v, the results are %s", top, total)
	}
	if short := get(t, mux, "/cases?q=conntrack").body; strings.Contains(short, `class="match-note"`) {
		t.Error("a one-word query gets the long-query note")
	}
}

// TestStatsMatrix: the matrix's row labels are whole where they fit, its
// table has no empty header, and it says it scrolls on narrow screens.
func TestStatsMatrix(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	for _, path := range []string{"/stats", "/en/stats"} {
		body := get(t, mux, path).body
		if strings.Contains(body, "<th scope=\"col\"></th>") {
			t.Errorf("%s: a table has an empty header cell", path)
		}
		if !strings.Contains(body, `class="scroll-hint"`) {
			t.Errorf("%s: the wide matrix has no scroll hint", path)
		}
		labels := regexp.MustCompile(`<text class="chart-label" x="\d+" y="\d+" text-anchor="end"><title>([^<]+)</title>([^<]+)</text>`).FindAllStringSubmatch(body, -1)
		if len(labels) == 0 {
			t.Fatalf("%s: no matrix row labels", path)
		}
		for _, m := range labels {
			if utf8.RuneCountInString(m[1]) <= 30 && m[1] != m[2] {
				t.Errorf("%s: row label %q is cut to %q", path, m[1], m[2])
			}
		}
	}
}

// TestSnippetsArePlain: snippets show no Markdown (list markers,
// backticks), and a card whose snippet comes from the symptoms does not
// repeat them in its symptoms row.
func TestSnippetsArePlain(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	snipRE := regexp.MustCompile(`(?s)<p class="snippet" data-from="(\w+)">(.*?)</p>\s*<dl class="card-sections">(.*?)</dl>`)
	fromSymptoms := 0
	for _, q := range []string{"conntrack", "kube-proxy", "OOMKilled", "CoreDNS timeout", "etcd", "certificate expired", "롤아웃 중 DNS 오류"} {
		body := get(t, mux, "/cases?q="+url.QueryEscape(q)).body
		cards := snipRE.FindAllStringSubmatch(body, -1)
		if len(cards) == 0 {
			t.Fatalf("%q: no cards with snippets", q)
		}
		for _, m := range cards {
			text := regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[2], "")
			if strings.Contains(text, "`") || strings.HasPrefix(strings.TrimSpace(text), "- ") || strings.Contains(text, "\n- ") || strings.Contains(text, "```") {
				t.Errorf("%q: a snippet shows Markdown: %q", q, text)
			}
			if m[1] == "symptoms" {
				fromSymptoms++
				if strings.Contains(m[3], "<dt>증상</dt>") {
					t.Errorf("%q: a card repeats the symptoms its snippet shows", q)
				}
			}
		}
	}
	t.Logf("%d snippets came from the symptoms", fromSymptoms)
}

// TestQueryEscaped: HTML in a query comes back as text everywhere it is
// echoed: the input, the title and the paging links.
func TestQueryEscaped(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	payload := `<script>alert("x")</script><img src=x onerror=alert(1)>`
	for _, p := range []string{"/cases?q=", "/en/cases?q=", "/cases?sort=date&q="} {
		r := get(t, mux, p+url.QueryEscape(payload))
		if r.code != 200 {
			t.Fatalf("GET %s = %d", p, r.code)
		}
		if strings.Contains(r.body, "<script>") || strings.Contains(r.body, "<img src=x") || strings.Contains(r.body, "onerror=alert") && !strings.Contains(r.body, "onerror=alert(1)&gt;") {
			t.Errorf("%s: the query reached the page unescaped", p)
		}
		if !strings.Contains(r.body, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
			t.Errorf("%s: the escaped query is not shown back to the reader", p)
		}
	}
	// A query that is a case id still works through the escaping.
	if r := get(t, mux, "/cases?q=IL-0049"); !strings.Contains(r.body, `href="/cases/IL-0049"`) {
		t.Error("a case id as query does not find the case")
	}
}

func TestListPaging(t *testing.T) {
	t.Parallel()
	ix := sharedIndex(t)
	mux := newMux(t, ix, web.Options{})
	n := len(ix.Public().Cases())
	if n <= 20 {
		t.Skipf("only %d cases; paging needs more than 20", n)
	}
	r := get(t, mux, "/cases?page=2")
	want := fmt.Sprintf("%d건 중 21~%d번째", n, min(40, n))
	if !strings.Contains(r.body, want) {
		t.Errorf("page 2 lacks %q", want)
	}
	if !strings.Contains(r.body, `rel="prev"`) || !strings.Contains(r.body, `href="/cases"`) {
		t.Error("page 2 has no link back to page 1")
	}
	if cards := strings.Count(r.body, `<li class="card">`); cards != min(20, n-20) {
		t.Errorf("page 2 shows %d cards", cards)
	}
	// Removing the only filter leads back to the unfiltered list.
	r = get(t, mux, "/cases?component=coredns&q=dns")
	if !strings.Contains(r.body, `href="/cases?q=dns"`) {
		t.Error("the active filter has no link that removes it")
	}
}

func TestFeed(t *testing.T) {
	t.Parallel()
	ix := sharedIndex(t)
	mux := newMux(t, ix, web.Options{})
	for _, lang := range []string{"ko", "en"} {
		path := map[string]string{"ko": "/feed.atom", "en": "/en/feed.atom"}[lang]
		r := get(t, mux, path)
		if ct := r.header.Get("Content-Type"); ct != "application/atom+xml; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", path, ct)
		}
		var f struct {
			ID      string `xml:"id"`
			Updated string `xml:"updated"`
			Entries []struct {
				Title   string `xml:"title"`
				ID      string `xml:"id"`
				Updated string `xml:"updated"`
				Link    struct {
					Href string `xml:"href,attr"`
				} `xml:"link"`
				Summary string `xml:"summary"`
			} `xml:"entry"`
		}
		if err := xml.Unmarshal([]byte(r.body), &f); err != nil {
			t.Fatalf("%s is not XML: %v", path, err)
		}
		cases := ix.Public().Cases()
		if len(f.Entries) != min(web.FeedSize, len(cases)) {
			t.Fatalf("%s has %d entries", path, len(f.Entries))
		}
		newest := cases[0]
		prefix := map[string]string{"ko": "", "en": "/en"}[lang]
		if e := f.Entries[0]; e.Link.Href != base+prefix+"/cases/"+newest.ID || !strings.HasPrefix(e.Title, newest.ID+" "+newest.Title.In(lang)) {
			t.Errorf("%s: first entry %q → %s, want the newest case %s", path, e.Title, e.Link.Href, newest.ID)
		}
		for _, e := range f.Entries {
			if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`).MatchString(e.Updated) || e.Summary == "" || !strings.HasPrefix(e.ID, base+"/cases/IL-") {
				t.Errorf("%s: bad entry %q: updated %q, id %q", path, e.Title, e.Updated, e.ID)
			}
		}
		if f.Updated == "" {
			t.Errorf("%s: no updated time", path)
		}
	}
}

func TestSitemap(t *testing.T) {
	t.Parallel()
	ix := sharedIndex(t)
	mux := newMux(t, ix, web.Options{})
	r := get(t, mux, "/sitemap.xml")
	var us struct {
		URLs []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal([]byte(r.body), &us); err != nil {
		t.Fatal(err)
	}
	locs := map[string]bool{}
	for _, u := range us.URLs {
		locs[u.Loc] = true
	}
	for _, c := range ix.Public().Cases() {
		for _, p := range []string{"/cases/", "/en/cases/"} {
			if !locs[base+p+c.ID] {
				t.Errorf("sitemap lacks %s%s%s", base, p, c.ID)
			}
		}
	}
	for _, p := range []string{"/", "/en/", "/stats", "/en/topics", "/incidents", "/en/incidents", "/topics/conntrack", "/en/docs/api"} {
		if !locs[base+p] {
			t.Errorf("sitemap lacks %s", p)
		}
	}
	// That every address in the sitemap answers 200 is checked by TestCrawl,
	// which has fetched most of them already.
}

// TestSitemapSplits: past the most URLs one sitemap file may list,
// /sitemap.xml is an index of files that together list every URL once;
// robots.txt names the sitemap.
func TestSitemapSplits(t *testing.T) {
	t.Parallel()
	whole := sitemapPaths(t, newMux(t, sharedIndex(t), web.Options{}))
	const max = 300
	if len(whole) <= max {
		t.Fatalf("the sitemap lists %d URLs; the test needs more than %d", len(whole), max)
	}
	mux := newMux(t, sharedIndex(t), web.Options{SitemapMaxURLs: max})
	var ix struct {
		XMLName  xml.Name
		Sitemaps []struct {
			Loc string `xml:"loc"`
		} `xml:"sitemap"`
	}
	if err := xml.Unmarshal([]byte(get(t, mux, "/sitemap.xml").body), &ix); err != nil {
		t.Fatal(err)
	}
	if ix.XMLName.Local != "sitemapindex" || len(ix.Sitemaps) != (len(whole)+max-1)/max {
		t.Fatalf("a split sitemap: <%s> with %d files for %d URLs", ix.XMLName.Local, len(ix.Sitemaps), len(whole))
	}
	var parts []string
	for _, sm := range ix.Sitemaps {
		r := get(t, mux, strings.TrimPrefix(sm.Loc, base))
		var us struct {
			URLs []struct {
				Loc string `xml:"loc"`
			} `xml:"url"`
		}
		if err := xml.Unmarshal([]byte(r.body), &us); r.code != 200 || err != nil || len(us.URLs) > max || len(us.URLs) == 0 {
			t.Fatalf("%s: %d, %d URLs, %v", sm.Loc, r.code, len(us.URLs), err)
		}
		for _, u := range us.URLs {
			parts = append(parts, strings.TrimPrefix(u.Loc, base))
		}
	}
	if !slices.Equal(parts, whole) {
		t.Errorf("the split files list %d URLs, the whole sitemap %d, or in another order", len(parts), len(whole))
	}
	for _, p := range []string{"/sitemaps/0.xml", "/sitemaps/99.xml", "/sitemaps/01.xml", "/sitemaps/x.xml"} {
		if r := get(t, mux, p); r.code != 404 {
			t.Errorf("%s: %d, want 404", p, r.code)
		}
	}
	if r := get(t, newMux(t, sharedIndex(t), web.Options{}), "/sitemaps/1.xml"); r.code != 404 {
		t.Errorf("an unsplit sitemap's /sitemaps/1.xml: %d, want 404", r.code)
	}
}

// sitemapPaths returns the paths that the sitemap lists.
// TestSitemapFollowsWrites: the sitemap's URLs are built once and kept
// while the index is unchanged; a case written or deleted shows at once,
// in the whole sitemap and in the files of a split one, and a private
// case never does.
func TestSitemapFollowsWrites(t *testing.T) {
	t.Parallel()
	ix := withExtraCases(t)
	whole, split := newMux(t, ix, web.Options{}), newMux(t, ix, web.Options{SitemapMaxURLs: 300})
	splitPaths := func() []string {
		var out []string
		for n := 1; ; n++ {
			r := get(t, split, fmt.Sprintf("/sitemaps/%d.xml", n))
			if r.code == 404 {
				return out
			}
			for _, m := range regexp.MustCompile(`<loc>([^<]+)</loc>`).FindAllStringSubmatch(r.body, -1) {
				out = append(out, strings.TrimPrefix(m[1], base))
			}
		}
	}
	has := func(paths []string, p string) bool { return slices.Contains(paths, p) }
	before, beforeSplit := sitemapPaths(t, whole), splitPaths()
	if has(before, "/cases/IL-9998") || has(beforeSplit, "/cases/IL-9998") {
		t.Fatal("IL-9998 is in the sitemap before it is written")
	}
	cp := *ix.Public().Case("IL-0049")
	cp.ID, cp.Related = "IL-9998", nil
	if err := ix.Upsert(&cp); err != nil {
		t.Fatal(err)
	}
	if !has(sitemapPaths(t, whole), "/cases/IL-9998") || !has(splitPaths(), "/en/cases/IL-9998") {
		t.Error("a case written after the sitemap was first built is not in it")
	}
	priv := cp
	priv.ID, priv.Private = "IL-9997", true
	if err := ix.Upsert(&priv); err != nil {
		t.Fatal(err)
	}
	if has(sitemapPaths(t, whole), "/cases/IL-9997") || has(splitPaths(), "/cases/IL-9997") {
		t.Error("a private case is in the sitemap")
	}
	if err := ix.Delete("IL-9998"); err != nil {
		t.Fatal(err)
	}
	if has(sitemapPaths(t, whole), "/cases/IL-9998") || has(splitPaths(), "/cases/IL-9998") {
		t.Error("a deleted case is still in the sitemap")
	}
	if got := sitemapPaths(t, whole); !slices.Equal(got, before) {
		t.Errorf("after the write and the delete the sitemap lists %d URLs, before %d", len(got), len(before))
	}
}

func sitemapPaths(t *testing.T, mux http.Handler) []string {
	t.Helper()
	r := get(t, mux, "/sitemap.xml")
	var us struct {
		URLs []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal([]byte(r.body), &us); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range us.URLs {
		out = append(out, strings.TrimPrefix(u.Loc, base))
	}
	return out
}

func TestStaticAssets(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	page := get(t, mux, "/")
	m := regexp.MustCompile(`href="(/static/style\.[0-9a-f]{10}\.css)"`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatal("the page links no fingerprinted stylesheet")
	}
	r := get(t, mux, m[1])
	if r.code != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/css") {
		t.Fatalf("GET %s = %d %q", m[1], r.code, r.header.Get("Content-Type"))
	}
	if cc := r.header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
		t.Errorf("fingerprinted asset Cache-Control %q", cc)
	}
	etag := r.header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	if r := do(t, mux, http.MethodGet, m[1], http.Header{"If-None-Match": {etag}}); r.code != http.StatusNotModified || r.body != "" {
		t.Errorf("conditional GET = %d with %d bytes, want 304 and no body", r.code, len(r.body))
	}
	plain := get(t, mux, "/static/style.css")
	if plain.code != 200 || plain.body != r.body || !strings.Contains(plain.header.Get("Cache-Control"), "must-revalidate") {
		t.Errorf("the plain asset name = %d, Cache-Control %q", plain.code, plain.header.Get("Cache-Control"))
	}
	if plain.header.Get("ETag") != etag {
		t.Error("plain and fingerprinted names carry different ETags")
	}
}

// TestLanguageLinks: every page points at itself in the other language,
// with the query kept, and hreflang alternates are absolute.
func TestLanguageLinks(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	for path, want := range map[string]string{
		"/":                        `class="lang-switch" href="/en/"`,
		"/en/":                     `class="lang-switch" href="/"`,
		"/cases?q=dns":             `class="lang-switch" href="/en/cases?q=dns"`,
		"/en/cases/IL-0049":        `class="lang-switch" href="/cases/IL-0049"`,
		"/topics/conntrack":        `class="lang-switch" href="/en/topics/conntrack"`,
		"/en/no-such-page":         `class="lang-switch" href="/no-such-page"`,
		"/stats":                   `class="lang-switch" href="/en/stats"`,
		"/en/docs/api":             `class="lang-switch" href="/docs/api"`,
		"/topics":                  `class="lang-switch" href="/en/topics"`,
		"/en/topics/dns-network":   `<link rel="alternate" hreflang="ko" href="` + base + `/topics/dns-network">`,
		"/topics/dns-network":      `<link rel="alternate" hreflang="en" href="` + base + `/en/topics/dns-network">`,
		"/cases/IL-0049":           `<link rel="canonical" href="` + base + `/cases/IL-0049">`,
		"/en/cases?component=etcd": `<link rel="alternate" hreflang="x-default" href="` + base + `/cases?component=etcd">`,
	} {
		r := get(t, mux, path)
		if !strings.Contains(r.body, want) {
			t.Errorf("%s lacks %s", path, want)
		}
	}
}

func TestNewRejectsBadBaseURL(t *testing.T) {
	t.Parallel()
	ix := sharedIndex(t)
	for _, bad := range []string{"incidents.example.org", "ftp://x", "http://"} {
		if _, err := web.New(ix.Public(), web.Options{BaseURL: bad}); err == nil {
			t.Errorf("New accepted base URL %q", bad)
		}
	}
	if _, err := web.New(nil, web.Options{}); err == nil {
		t.Error("New accepted a nil index")
	}
	s, err := web.New(ix.Public(), web.Options{BaseURL: "https://x.example/"})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	s.Install(mux)
	if r := get(t, mux, "/docs/api"); !strings.Contains(r.body, "https://x.example/mcp") || strings.Contains(r.body, "https://x.example//mcp") {
		t.Error("the trailing slash of the base URL is not trimmed")
	}
	d, _ := web.New(ix.Public(), web.Options{})
	mux = http.NewServeMux()
	d.Install(mux)
	if r := get(t, mux, "/docs/api"); !strings.Contains(r.body, incidentlib.DefaultBaseURL+"/mcp") {
		t.Error("an empty base URL does not default to " + incidentlib.DefaultBaseURL)
	}
}

// TestCrawl follows every internal link from both home pages, the way a
// crawler would, and checks that each page answers 200, stays under the
// size budget and carries the security header. List pages with queries are
// requested but not followed, so the facet combinations do not explode.
func TestCrawl(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	seen := map[string]bool{"/": true, "/en/": true}
	level := []string{"/", "/en/"}
	pages := 0
	answered := map[string]bool{}   // the crawled addresses that answered 200
	titles := map[string][]string{} // the indexed pages by their titles
	// Text in the other language not marked with its lang, on every page
	// reached (unmarked, TestOtherLanguageMarked).
	var unmarkedTexts []string
	// One level of the link graph at a time, fetched by several goroutines:
	// the site must answer concurrent readers, and -race watches it do so.
	for len(level) > 0 {
		var mu sync.Mutex
		var next []string
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for _, p := range level {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				r := get(t, mux, p)
				if r.code != 200 {
					t.Errorf("GET %s = %d", p, r.code)
					return
				}
				mu.Lock()
				answered[p] = true
				mu.Unlock()
				if !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
					return
				}
				lang := "ko"
				if strings.HasPrefix(p, "/en/") {
					lang = "en"
				}
				checkHTML(t, p, r, lang)
				marks := unmarked(r.body, lang)
				var found []string
				if !strings.Contains(p, "?") {
					found = links(r.body)
				}
				for _, l := range links(r.body) {
					if q, ok := listQuery(l); ok && q != canonicalQuery(q) {
						t.Errorf("%s links a list as %s, not in the one canonical form ?%s", p, l, canonicalQuery(q))
					}
				}
				title := ""
				if !strings.Contains(r.body, `<meta name="robots" content="noindex`) {
					if m := titleRe.FindStringSubmatch(r.body); m != nil {
						title = m[1]
					}
				}
				mu.Lock()
				if title != "" {
					titles[title] = append(titles[title], p)
				}
				for _, m := range marks {
					unmarkedTexts = append(unmarkedTexts, p+": "+m)
				}
				pages++
				next = append(next, found...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		level = nil
		for _, u := range next {
			u = strings.TrimPrefix(html.UnescapeString(u), base)
			if !strings.HasPrefix(u, "/") || strings.HasPrefix(u, "//") {
				continue // external
			}
			if i := strings.Index(u, "#"); i >= 0 {
				u = u[:i]
			}
			// The API and MCP are other packages' routes.
			if strings.HasPrefix(u, "/api/") || u == "/mcp" || u == "" || seen[u] {
				continue
			}
			seen[u] = true
			level = append(level, u)
		}
	}
	if pages < 400 {
		t.Errorf("the crawl reached only %d pages", pages)
	}
	// No two pages a search engine may index share a title.
	for title, ps := range titles {
		if len(ps) > 1 {
			slices.Sort(ps)
			t.Errorf("%d indexed pages are titled %q: %v", len(ps), title, ps[:min(len(ps), 4)])
		}
	}
	// The organisation pages, their feeds and the citations are linked
	// from the pages, in both languages.
	for _, p := range []string{"/orgs", "/en/orgs", "/orgs/preply", "/en/orgs/preply", "/orgs/preply/feed.atom",
		"/en/orgs/wellcome-collection/feed.atom", "/cases/IL-0049/cite.json", "/en/cases/IL-0049/cite.json"} {
		if !answered[p] {
			t.Errorf("the crawl never reached %s", p)
		}
	}
	// Every address in the sitemap answers 200: those the crawl reached
	// did; the others are fetched now.
	listed, fetched := sitemapPaths(t, mux), 0
	if len(listed) < 400 {
		t.Errorf("the sitemap lists only %d addresses", len(listed))
	}
	for _, p := range listed {
		if answered[p] {
			continue
		}
		fetched++
		r := get(t, mux, p)
		if r.code != 200 {
			t.Errorf("sitemap lists %s, which answers %d", p, r.code)
		}
		if strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
			lang := "ko"
			if strings.HasPrefix(p, "/en/") {
				lang = "en"
			}
			for _, m := range unmarked(r.body, lang) {
				unmarkedTexts = append(unmarkedTexts, p+": "+m)
			}
		}
	}
	slices.Sort(unmarkedTexts)
	for i, u := range unmarkedTexts {
		if i == 40 {
			t.Errorf("… and %d more texts in the other language without their lang", len(unmarkedTexts)-40)
			break
		}
		t.Error(u)
	}
	// Every case page was read in both languages, by the crawl or from
	// the sitemap.
	for _, c := range sharedIndex(t).Public().Cases() {
		for _, p := range []string{"/cases/" + c.ID, "/en/cases/" + c.ID} {
			if !answered[p] && !slices.Contains(listed, p) {
				t.Errorf("neither the crawl nor the sitemap reached %s", p)
			}
		}
	}
	t.Logf("crawled %d pages, %d addresses; %d of the sitemap's %d addresses fetched apart", pages, len(seen), fetched, len(listed))
}

// TestCrawlScanners holds the crawl's string scanners to the regular
// expressions they replace.
func TestCrawlScanners(t *testing.T) {
	body := `<a href="/cases?q=a&amp;b">x</a><img src="/s.svg" alt=""><link rel="x" hreflang="en" href="/en/"><p data-x="y">list.heading</p><span> case.title_x </span><i>nav.</i><b>api.x1</b>`
	hrefRe := regexp.MustCompile(`(?:href|src)="([^"]+)"`)
	var want []string
	for _, m := range hrefRe.FindAllStringSubmatch(body, -1) {
		want = append(want, m[1])
	}
	if got := links(body); !slices.Equal(got, want) {
		t.Errorf("links = %q, want %q", got, want)
	}
	keyRe := regexp.MustCompile(`>\s*((?:nav|list|case|home|topic|stats|api|error|vocab|sort|facet|search|footer|cite|casenav|orgs|org)\.[a-z_.]+)\s*<`)
	for _, b := range []string{body, `<p>case.title_x</p>`, `<p>nav.</p><b>api.x1</b>`, `<p>Listed.here</p>`, `<p>a > list.heading <b>`} {
		want := ""
		if m := keyRe.FindStringSubmatch(b); m != nil {
			want = m[1]
		}
		if got := untranslatedKey(b); got != want {
			t.Errorf("untranslatedKey(%q) = %q, want %q", b, got, want)
		}
	}
}
