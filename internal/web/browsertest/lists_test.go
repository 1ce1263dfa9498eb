package browsertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestIncidentsTopicsAndFilters walks, in both languages at desktop and
// phone widths with axe on each page: the all-incidents table (sorted by a
// column's link, printable), the topics index, a filtered list whose year
// chip stays when another chip is removed, and the timeline grid of cases
// whose time labels are long. It photographs the table and the filtered
// list.
func TestIncidentsTopicsAndFilters(t *testing.T) {
	e := needBrowser(t, true)
	ts, c := startSite(t)
	p := &problems{}
	ctx := browser(t, e, p)
	public := 0
	for _, k := range c.Cases {
		if !k.Private {
			public++
		}
	}
	for _, lang := range []string{"ko", "en"} {
		prefix := map[string]string{"ko": "", "en": "/en"}[lang]
		for _, w := range widths {
			where := func(s string) string { return fmt.Sprintf("%s at %s px (%s)", s, w.name, lang) }
			setWidth(t, ctx, w.width, w.height, w.mobile)

			// Every incident on one page, sorted by organisation through
			// its column's link.
			navigate(t, ctx, ts.URL+prefix+"/incidents")
			if n := eval[int](t, ctx, `document.querySelectorAll('table.incidents tbody tr').length`); n != public {
				t.Errorf("%s: %d rows for %d public cases", where("/incidents"), n, public)
			}
			if o := eval[int](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); o > 0 {
				t.Errorf("%s: the page is %d px wider than the screen", where("/incidents"), o)
			}
			axeClean(t, ctx, e, where("/incidents"))
			if w.name == "1280" {
				// The table is as long as the corpus: its first screen, at
				// both widths, rather than a picture of every row.
				viewShots(t, ctx, e, "incidents-"+lang)
			}
			clickThrough(t, ctx, `table.incidents thead th:nth-child(2) a`)
			orgs := eval[[]string](t, ctx, `[...document.querySelectorAll('table.incidents tbody tr td:nth-child(2)')].map(td => td.textContent.trim().toLowerCase())`)
			for i := 1; i < len(orgs); i++ {
				if orgs[i-1] > orgs[i] {
					t.Errorf("%s: sorted by organisation, %q comes before %q", where("/incidents?sort=org"), orgs[i-1], orgs[i])
					break
				}
			}
			if s := eval[string](t, ctx, `document.querySelector('table.incidents thead th:nth-child(2)').getAttribute('aria-sort') || ''`); s != "ascending" {
				t.Errorf("%s: the organisation column is not marked as the sort: %q", where("/incidents?sort=org"), s)
			}

			// The topics index, grouped by vocabulary.
			navigate(t, ctx, ts.URL+prefix+"/topics")
			if n := eval[int](t, ctx, `document.querySelectorAll('section.vocab-group h2').length`); n < 5 {
				t.Errorf("%s: %d vocabulary groups", where("/topics"), n)
			}
			axeClean(t, ctx, e, where("/topics"))

			// A filtered list: the year is a chip, and removing another
			// chip keeps it.
			navigate(t, ctx, ts.URL+prefix+"/cases?domain=dns&root_cause=config-change&year_from=2024")
			chips := eval[[]string](t, ctx, `[...document.querySelectorAll('.active-filters .chip')].map(a => a.textContent.trim())`)
			year := map[string]string{"ko": "2024년부터", "en": "from 2024"}[lang]
			if !containsPart(chips, year) || len(chips) != 3 {
				t.Errorf("%s: chips %q, want three with the year", where("filtered list"), chips)
			}
			axeClean(t, ctx, e, where("filtered list"))
			if w.name == "1280" {
				screenshots(t, ctx, e, "filters-"+lang)
			}
			clickThrough(t, ctx, `.active-filters .chip`) // the first: the domain
			chips = eval[[]string](t, ctx, `[...document.querySelectorAll('.active-filters .chip')].map(a => a.textContent.trim())`)
			if !containsPart(chips, year) || len(chips) != 2 {
				t.Errorf("%s: after removing the first chip: %q, want two with the year", where("filtered list"), chips)
			}
			// A new search from the list's form keeps the filters.
			run(t, ctx, "query", chromedp.SetValue(chromedp.CSS(`#q`), "dns"))
			clickThrough(t, ctx, `form.search-list .search-row button`)
			if u := eval[string](t, ctx, `location.search`); !strings.Contains(u, "year_from=2024") || !strings.Contains(u, "q=dns") {
				t.Errorf("%s: a new search went to %s, dropping a filter", where("filtered list"), u)
			}
			checkClean(t, p, where("lists"))
		}
	}

	// The timeline: each event's text starts at one x, however long its
	// time label (IL-0268 and IL-0461 have long ones).
	setWidth(t, ctx, 1280, 900, false)
	for _, path := range []string{"/cases/IL-0268", "/en/cases/IL-0461", "/cases/IL-0049"} {
		navigate(t, ctx, ts.URL+path)
		xs := eval[[]int](t, ctx, `[...document.querySelectorAll('ol.timeline li > span')].map(s => Math.round(s.getBoundingClientRect().left))`)
		if len(xs) < 2 {
			t.Fatalf("%s: %d timeline events", path, len(xs))
		}
		for _, x := range xs {
			if x != xs[0] {
				t.Errorf("%s: timeline texts start at different x: %v", path, xs)
				break
			}
		}
	}
	checkClean(t, p, "timelines")
	t.Logf("screenshots in %s", e.artefacts)
}

// containsPart is whether one of list holds part.
func containsPart(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}
