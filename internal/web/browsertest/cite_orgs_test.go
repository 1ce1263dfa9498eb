package browsertest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/web"
)

// axeClean runs axe-core on the current page and fails on any serious or
// critical violation.
func axeClean(t *testing.T, ctx context.Context, e env, where string) {
	t.Helper()
	run(t, ctx, "inject axe", chromedp.Evaluate[chromedp.Void](e.axe))
	js := `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
		id: v.id, impact: v.impact || '', help: v.help,
		nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))})))`
	for _, v := range run(t, ctx, "axe "+where, chromedp.Evaluate[[]axeResult](js, chromedp.EvalAwaitPromise)) {
		msg := fmt.Sprintf("%s: axe %s (%s): %s at %s", where, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, ", "))
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
}

// noOverflow fails when the page scrolls sideways at the current width.
func noOverflow(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	if o := eval[int](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); o > 0 {
		t.Errorf("%s: the page is %d px wider than the screen", where, o)
	}
}

// shot saves a screenshot of the element sel (or of the whole page when sel
// is empty) as name.png under the artefacts.
func shot(t *testing.T, ctx context.Context, e env, sel, name string) {
	t.Helper()
	var png []byte
	if sel == "" {
		png = run(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	} else {
		png = run(t, ctx, "screenshot "+name, chromedp.Screenshot(chromedp.CSS(sel), chromedp.NodeVisible))
	}
	if err := os.WriteFile(filepath.Join(e.artefacts, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fetchStatus requests u outside the browser (the pages' CSP lets no
// script fetch) and returns its status and Content-Type.
func fetchStatus(t *testing.T, ts *httptest.Server, u string) (int, string, string) {
	t.Helper()
	resp, err := ts.Client().Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

var widths = []struct {
	name          string
	width, height int64
	mobile        bool
}{{"1280", 1280, 900, false}, {"390", 390, 844, true}}

func setWidth(t *testing.T, ctx context.Context, w int64, h int64, mobile bool) {
	t.Helper()
	opts := []chromedp.EmulateViewportOption{}
	if mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulatePortrait)
	}
	run(t, ctx, "set viewport", chromedp.EmulateViewport(w, h, opts...))
}

// TestCiteNeighboursAndOrgs walks a case page's cite block, its
// previous/next links and its organisation's page, and the organisation
// index, in both languages at desktop and phone widths, with axe on each
// page and screenshots of the cite block and an organisation page.
func TestCiteNeighboursAndOrgs(t *testing.T) {
	e := needBrowser(t, true)
	ts, c := startSite(t)
	p := &problems{}
	ctx := browser(t, e, p)

	// The public cases oldest first: the order rel=prev/next walks.
	var chrono []*incidentlib.Case
	for _, k := range c.Cases {
		if !k.Private {
			chrono = append(chrono, k)
		}
	}
	slices.SortFunc(chrono, func(a, b *incidentlib.Case) int {
		if a.Date != b.Date {
			return strings.Compare(a.Date, b.Date)
		}
		return incidentlib.CompareIDs(a.ID, b.ID)
	})
	i49 := slices.IndexFunc(chrono, func(k *incidentlib.Case) bool { return k.ID == "IL-0049" })
	if i49 <= 0 || i49 >= len(chrono)-1 {
		t.Fatalf("IL-0049 is at %d of %d in date order; the test needs a case on both sides", i49, len(chrono))
	}
	il49 := chrono[i49]
	byIDs := slices.Clone(chrono)
	slices.SortFunc(byIDs, func(a, b *incidentlib.Case) int { return incidentlib.CompareIDs(a.ID, b.ID) })
	j49 := slices.IndexFunc(byIDs, func(k *incidentlib.Case) bool { return k.ID == "IL-0049" })
	if j49 <= 0 || j49 >= len(byIDs)-1 {
		t.Fatalf("IL-0049 is at %d of %d in id order", j49, len(byIDs))
	}
	orgs := map[string]int{}
	for _, k := range chrono {
		orgs[k.OrgSlug]++
	}

	for _, lang := range []string{"ko", "en"} {
		prefix := map[string]string{"ko": "", "en": "/en"}[lang]
		for _, w := range widths {
			where := func(s string) string { return fmt.Sprintf("%s at %s px (%s)", s, w.name, lang) }
			setWidth(t, ctx, w.width, w.height, w.mobile)

			// The cite block.
			casePath := prefix + "/cases/IL-0049"
			navigate(t, ctx, ts.URL+casePath)
			if got := eval[string](t, ctx, `document.documentElement.lang`); got != lang {
				t.Errorf("%s: lang %q", casePath, got)
			}
			// The facts in the reader's language: the impact in it, the
			// durations in its units (4분, not 4m, on the Korean page).
			facts := eval[[]string](t, ctx, `[...document.querySelectorAll('.facts dd')].map(d => d.textContent.trim())`)
			wantFacts := map[string][]string{"ko": {"–", il49.Impact.Scope.KO, "–", "–", "4분", "26분"}, "en": {"–", il49.Impact.Scope.EN, "–", "–", "4m", "26m"}}[lang]
			if !slices.Equal(facts, wantFacts) {
				t.Errorf("%s: facts %q, want %q", where(casePath), facts, wantFacts)
			}
			heading := run(t, ctx, "cite heading", chromedp.Text(chromedp.CSS("#s-cite"), chromedp.NodeVisible))
			if heading != locale.T(lang, "cite.heading") {
				t.Errorf("%s: cite heading %q", where(casePath), heading)
			}
			text := run(t, ctx, "cite text", chromedp.Text(chromedp.CSS("#cite .cite-text"), chromedp.NodeVisible))
			pageURL := ts.URL + casePath
			for _, want := range []string{"IL-0049: " + il49.Title.In(lang), il49.UpdatedAt[:10], pageURL} {
				if !strings.Contains(text, want) {
					t.Errorf("%s: plain citation %q lacks %q", where(casePath), text, want)
				}
			}
			bib := eval[string](t, ctx, `document.querySelector('#cite .cite-bibtex').textContent`)
			if !strings.HasPrefix(bib, "@misc{incidentlib-IL-0049,\n") || !strings.Contains(bib, "url          = {"+pageURL+"}") ||
				!strings.Contains(bib, "note         = {"+locale.Tf(lang, "cite.note", il49.UpdatedAt[:10])+"}") || strings.Contains(bib, "urldate =") {
				t.Errorf("%s: BibTeX %q", where(casePath), bib)
			}
			// The BibTeX wraps rather than scrolling off a phone.
			if o := eval[int](t, ctx, `(b => b.scrollWidth - b.clientWidth)(document.querySelector('#cite .cite-bibtex'))`); o > 0 {
				t.Errorf("%s: the BibTeX block is %d px wider than its box", where(casePath), o)
			}
			href := eval[string](t, ctx, `document.querySelector('#cite .cite-csl a').href`)
			if href != ts.URL+casePath+"/cite.json" {
				t.Errorf("%s: CSL-JSON link %q", where(casePath), href)
			}
			if code, ct, body := fetchStatus(t, ts, href); code != 200 || ct != web.CSLType || !strings.Contains(body, `"URL": "`+pageURL+`"`) {
				t.Errorf("%s: CSL-JSON answers %d %q %q", where(casePath), code, ct, body)
			}
			for _, prop := range []string{"og:title", "og:description", "og:url", "og:type", "og:locale"} {
				if v := eval[string](t, ctx, `(m => m ? m.content : '')(document.querySelector('meta[property="`+prop+`"]'))`); v == "" {
					t.Errorf("%s: no %s", where(casePath), prop)
				}
			}
			if n := eval[int](t, ctx, `JSON.parse(document.querySelector('script[type="application/ld+json"]').textContent).identifier === 'IL-0049' ? 1 : 0`); n != 1 {
				t.Errorf("%s: the JSON-LD does not describe IL-0049", where(casePath))
			}
			noOverflow(t, ctx, where(casePath))
			axeClean(t, ctx, e, where(casePath))
			run(t, ctx, "scroll to the cite block", chromedp.ScrollIntoView(chromedp.CSS("#cite")))
			shot(t, ctx, e, "#cite", fmt.Sprintf("cite-%s-%s", lang, w.name))
			checkClean(t, p, where(casePath))

			// Previous and next by date, as a reader clicks them.
			if n := eval[int](t, ctx, `document.querySelectorAll('a[rel~=prev]').length * 10 + document.querySelectorAll('a[rel~=next]').length`); n != 11 {
				t.Errorf("%s: %d prev and %d next links, want one of each", where(casePath), n/10, n%10)
			}
			clickThrough(t, ctx, "a[rel=next]")
			if id := run(t, ctx, "case id", chromedp.Text(chromedp.CSS(".case-meta .case-id"), chromedp.NodeVisible)); id != chrono[i49+1].ID {
				t.Errorf("%s: rel=next led to %s, want %s (the next by date)", where(casePath), id, chrono[i49+1].ID)
			}
			axeClean(t, ctx, e, where("the next case"))
			clickThrough(t, ctx, "a[rel=prev]")
			if path := eval[string](t, ctx, `location.pathname`); path != casePath {
				t.Errorf("%s: rel=prev on the next case led to %s, want back to %s", where(casePath), path, casePath)
			}
			clickThrough(t, ctx, "a[rel=prev]")
			if id := run(t, ctx, "case id", chromedp.Text(chromedp.CSS(".case-meta .case-id"), chromedp.NodeVisible)); id != chrono[i49-1].ID {
				t.Errorf("%s: rel=prev led to %s, want %s", where(casePath), id, chrono[i49-1].ID)
			}
			navigate(t, ctx, ts.URL+casePath)
			// By id, without rel.
			byID := eval[[]string](t, ctx, `[...document.querySelectorAll('.case-nav-group:nth-of-type(2) a')].map(a => a.pathname + ' ' + (a.rel || '-'))`)
			if want := []string{prefix + "/cases/" + byIDs[j49-1].ID + " -", prefix + "/cases/" + byIDs[j49+1].ID + " -"}; !slices.Equal(byID, want) {
				t.Errorf("%s: by-id links %q, want %q", where(casePath), byID, want)
			}
			run(t, ctx, "scroll to the case nav", chromedp.ScrollIntoView(chromedp.CSS(".case-nav")))
			shot(t, ctx, e, ".case-nav", fmt.Sprintf("casenav-%s-%s", lang, w.name))
			checkClean(t, p, where("prev/next"))

			// The organisation's page, from the case page's link.
			clickThrough(t, ctx, ".case-meta a.org")
			if path := eval[string](t, ctx, `location.pathname`); path != prefix+"/orgs/"+il49.OrgSlug {
				t.Errorf("%s: the organisation link led to %s", where(casePath), path)
			}
			if h1 := run(t, ctx, "org h1", chromedp.Text(chromedp.CSS("h1"), chromedp.NodeVisible)); h1 != il49.Org {
				t.Errorf("%s: org h1 %q", where("org page"), h1)
			}
			axeClean(t, ctx, e, where("org page "+il49.OrgSlug))

			// The index, and an organisation with several cases from it.
			navigate(t, ctx, ts.URL+prefix+"/orgs")
			if n := eval[int](t, ctx, `document.querySelectorAll('.org-list li').length`); n != len(orgs) {
				t.Errorf("%s: /orgs lists %d organisations, want %d", where("orgs"), n, len(orgs))
			}
			noOverflow(t, ctx, where("orgs"))
			axeClean(t, ctx, e, where("orgs"))
			const slug = "wellcome-collection"
			clickThrough(t, ctx, `.org-list a[href$="/orgs/`+slug+`"]`)
			if n := eval[int](t, ctx, `document.querySelectorAll('.org-cases .caseline').length`); n != orgs[slug] {
				t.Errorf("%s: %d cases, want %d", where(slug), n, orgs[slug])
			}
			dates := eval[[]string](t, ctx, `[...document.querySelectorAll('.org-cases .caseline time')].map(t => t.dateTime)`)
			if len(dates) != orgs[slug] || !slices.IsSortedFunc(dates, func(a, b string) int { return strings.Compare(b, a) }) {
				t.Errorf("%s: dates %q, want one a case, newest first", where(slug), dates)
			}
			if facet := run(t, ctx, "facet line", chromedp.Text(chromedp.CSS(".facet-line"), chromedp.NodeVisible)); !strings.Contains(facet, locale.T(lang, "vocab.root_cause")) {
				t.Errorf("%s: facet line %q", where(slug), facet)
			}
			feed := eval[string](t, ctx, `document.querySelector('link[rel=alternate][type="application/atom+xml"][href$="/orgs/`+slug+`/feed.atom"]').href`)
			if code, ct, _ := fetchStatus(t, ts, feed); code != 200 || !strings.HasPrefix(ct, "application/atom+xml") {
				t.Errorf("%s: feed %s answers %d %q", where(slug), feed, code, ct)
			}
			noOverflow(t, ctx, where(slug))
			axeClean(t, ctx, e, where(slug))
			shot(t, ctx, e, "", fmt.Sprintf("org-%s-%s", lang, w.name))
			checkClean(t, p, where(slug))

			// An unknown organisation: the 404 page in the reader's language.
			resp := run(t, ctx, "navigate to an unknown org", chromedp.NavigateResponse(ts.URL+prefix+"/orgs/no-such-org"))
			if resp.Status != http.StatusNotFound {
				t.Errorf("%s: unknown organisation answered %d", where("404"), resp.Status)
			}
			if h1 := run(t, ctx, "404 h1", chromedp.Text(chromedp.CSS("h1"), chromedp.NodeVisible)); h1 != locale.T(lang, "error.404.title") {
				t.Errorf("%s: 404 heading %q", where("404"), h1)
			}
			axeClean(t, ctx, e, where("unknown org"))
			for _, msg := range p.take() {
				if !expectedFailure(msg, http.StatusNotFound) {
					t.Errorf("%s: %s", where("unknown org"), msg)
				}
			}
		}
	}
	run(t, ctx, "reset viewport", chromedp.EmulateViewport(1280, 900))
	t.Logf("screenshots in %s", e.artefacts)
}
