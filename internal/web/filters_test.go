package web_test

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/web"
)

// chipLinks are the remove links of the active filters' chips, by their
// visible words.
func chipLinks(t *testing.T, body string) map[string]string {
	t.Helper()
	out := map[string]string{}
	re := regexp.MustCompile(`<a class="chip chip-active" href="([^"]+)"><span class="visually-hidden">[^<]*</span>([^<]+) <span aria-hidden="true">×</span></a>`)
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		out[html.UnescapeString(m[2])] = html.UnescapeString(m[1])
	}
	return out
}

// TestFiltersStay: every filter in force, the years and the review filter
// included, shows as a chip that removes it alone; removing another chip,
// paging, sorting and a new search keep it.
func TestFiltersStay(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	const list = "/cases?domain=dns&root_cause=config-change&year_from=2024"
	r := get(t, mux, list)
	chips := chipLinks(t, r.body)
	year, ok := chips["연도: 2024년부터"]
	if !ok {
		t.Fatalf("%s: no chip for the year; chips %v", list, chips)
	}
	if strings.Contains(year, "year_from") || !strings.Contains(year, "domain=dns") || !strings.Contains(year, "root_cause=config-change") {
		t.Errorf("the year's chip does not remove the year alone: %s", year)
	}
	for words, link := range chips {
		if words != "연도: 2024년부터" && !strings.Contains(link, "year_from=2024") {
			t.Errorf("removing %q drops the year: %s", words, link)
		}
	}
	// The search and sort form keeps every filter, the year too.
	for _, want := range []string{`<input type="hidden" name="year_from" value="2024">`, `<input type="hidden" name="domain" value="dns">`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("%s: the form does not keep %s", list, want)
		}
	}
	// The title names the filters, so two filtered lists never share one.
	title := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(r.body)
	if title == nil || !strings.Contains(title[1], "연도: 2024년부터") || !strings.Contains(title[1], "분야: ") {
		t.Errorf("%s: title %q does not name its filters", list, title)
	}

	// Both ends, the review filter, paging: all kept by the links.
	const both = "/en/cases?year_from=2019&year_to=2023&reviewed=false&sort=date"
	r = get(t, mux, both)
	chips = chipLinks(t, r.body)
	if _, ok := chips["Years: 2019–2023"]; !ok {
		t.Errorf("%s: no chip for the year range; chips %v", both, chips)
	}
	if link, ok := chips["Review: unreviewed cases"]; !ok || !strings.Contains(link, "year_from=2019") || !strings.Contains(link, "sort=date") || strings.Contains(link, "reviewed") {
		t.Errorf("%s: the review chip is missing or does not remove it alone: %q", both, link)
	}
	if n := strings.Count(r.body, `<li class="card">`); n == 0 {
		t.Fatalf("%s: no results", both)
	}
	for _, m := range regexp.MustCompile(`href="(/en/cases\?[^"]*page=\d+[^"]*)"`).FindAllStringSubmatch(r.body, -1) {
		link := html.UnescapeString(m[1])
		for _, want := range []string{"year_from=2019", "year_to=2023", "reviewed=false", "sort=date"} {
			if !strings.Contains(link, want) {
				t.Errorf("the page link %s drops %s", link, want)
			}
		}
	}
}

// TestListLinksCanonical: one list has one address, whatever the order of
// its filters' values, and the home page links a search with the list's
// own encoding.
func TestListLinksCanonical(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	removeCause := func(target string) string {
		t.Helper()
		link, ok := chipLinks(t, get(t, mux, target).body)["원인: 설정 변경"]
		if !ok {
			t.Fatalf("%s: no chip for the root cause", target)
		}
		return link
	}
	a := removeCause("/cases?q=dns+timeout&domain=dns&domain=kubernetes&root_cause=config-change")
	b := removeCause("/cases?root_cause=config-change&domain=kubernetes&q=dns%20timeout&domain=dns")
	if a != b || a != "/cases?domain=dns&domain=kubernetes&q=dns+timeout" {
		t.Errorf("one list, two addresses: %q and %q", a, b)
	}
	home := get(t, mux, "/").body
	for _, m := range regexp.MustCompile(`href="(/cases\?q=[^"]+)"`).FindAllStringSubmatch(home, -1) {
		if strings.Contains(m[1], "%20") {
			t.Errorf("the home page links a search as %s; the list writes spaces as +", m[1])
		}
	}
	if !strings.Contains(home, `href="/cases?q=conntrack"`) {
		t.Error("the home page lacks its conntrack search")
	}
}

// TestFacetLinksNoFollow: on a list that is already filtered (or
// searched), the links that add a filter carry rel="nofollow", so that a
// crawler does not walk every combination; on the plain list they do not.
func TestFacetLinksNoFollow(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	facet := regexp.MustCompile(`<li><a href="/cases\?[^"]*"( rel="nofollow")?>[^<]+</a> <span class="count">`)
	plain := facet.FindAllStringSubmatch(get(t, mux, "/cases").body, -1)
	filtered := facet.FindAllStringSubmatch(get(t, mux, "/cases?domain=dns").body, -1)
	if len(plain) == 0 || len(filtered) == 0 {
		t.Fatalf("no facet links: %d on /cases, %d on /cases?domain=dns", len(plain), len(filtered))
	}
	for _, m := range plain {
		if m[1] != "" {
			t.Errorf("/cases: a single-filter link is nofollow: %s", m[0])
		}
	}
	for _, m := range filtered {
		if m[1] == "" {
			t.Errorf("/cases?domain=dns: a link that adds a second filter is followed: %s", m[0])
		}
	}
}

// TestAPIDocsLinkOpenAPI: the API page links the OpenAPI document it names.
func TestAPIDocsLinkOpenAPI(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	for _, p := range []string{"/docs/api", "/en/docs/api"} {
		if body := get(t, mux, p).body; !strings.Contains(body, `<a href="`+base+`/api/openapi.json">`) {
			t.Errorf("%s does not link the OpenAPI document", p)
		}
	}
}

// TestStatsCharts: every chart of the stats page has a heading, and no
// two year labels of the by-year chart come closer than a label's width.
func TestStatsCharts(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	for _, p := range []string{"/stats", "/en/stats"} {
		body := get(t, mux, p).body
		figures := strings.Count(body, `<figure class="chart`)
		if heads := strings.Count(body, `<h2 class="chart-title">`); figures == 0 || heads != figures {
			t.Errorf("%s: %d charts, %d chart headings", p, figures, heads)
		}
		var xs []float64
		for _, m := range regexp.MustCompile(`<text class="chart-label" x="([0-9.]+)" y="\d+" text-anchor="middle">(\d{4})</text>`).FindAllStringSubmatch(body, -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			xs = append(xs, x)
		}
		if len(xs) < 2 {
			t.Fatalf("%s: %d year labels", p, len(xs))
		}
		for i := 1; i < len(xs); i++ {
			// Four digits at the chart's 12 px are about 28 px wide.
			if xs[i]-xs[i-1] < 30 {
				t.Errorf("%s: year labels %d and %d are %.1f px apart and overlap", p, i-1, i, xs[i]-xs[i-1])
			}
		}
	}
}

// TestSourceTitleLanguage: a source's own title is marked with its own
// language when it is not the page's: a Korean title on an English page is
// lang="ko", an English one on a Korean page lang="en", and a title in the
// page's language carries no lang.
func TestSourceTitleLanguage(t *testing.T) {
	t.Parallel()
	// IL-0049 as it is (English source titles), and a copy whose first
	// source has a Korean title.
	ix := withExtraCases(t, func(c *incidentlib.Case) {
		c.Sources = append([]incidentlib.Source{}, c.Sources...)
		c.Sources[0].Title = "DNS 장애 사후 분석"
	})
	mux := newMux(t, ix, web.Options{})
	koCase, enCase := "IL-9990", "IL-0049"
	link := regexp.MustCompile(`<a class="ext" href="[^"]*" rel="noopener"( lang="(\w+)")?>([^<]*)</a>`)
	check := func(path string) {
		t.Helper()
		pageLang := "ko"
		if strings.HasPrefix(path, "/en/") {
			pageLang = "en"
		}
		n := 0
		for _, m := range link.FindAllStringSubmatch(get(t, mux, path).body, -1) {
			title := html.UnescapeString(m[3])
			if strings.HasPrefix(title, "http") {
				continue // a further-reading address, not a title
			}
			want := "en"
			if strings.ContainsFunc(title, func(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }) {
				want = "ko"
			}
			if want == pageLang {
				want = ""
			}
			if m[2] != want {
				t.Errorf("%s: source %q is marked lang=%q, want %q", path, title, m[2], want)
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s: no source links", path)
		}
	}
	for _, id := range []string{koCase, enCase} {
		check("/cases/" + id)
		check("/en/cases/" + id)
	}
}
