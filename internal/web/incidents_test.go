package web_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/web"
)

// TestIncidentsTable: every public case on one page, in a table sorted by
// the column the reader picks, without a script; both languages.
func TestIncidentsTable(t *testing.T) {
	t.Parallel()
	ix := sharedIndex(t)
	mux := newMux(t, ix, web.Options{})
	cases := ix.Public().Cases()
	row := regexp.MustCompile(`<tr><td>(\d{4}[-0-9]*)<td>([^<]*)<td><a href="(?:/en)?/cases/(IL-\d+)">`)
	for _, lang := range []string{"ko", "en"} {
		prefix := map[string]string{"ko": "", "en": "/en"}[lang]
		r := get(t, mux, prefix+"/incidents")
		if r.code != 200 {
			t.Fatalf("%s/incidents: %d", prefix, r.code)
		}
		checkHTML(t, prefix+"/incidents", r, lang)
		rows := row.FindAllStringSubmatch(r.body, -1)
		if len(rows) != len(cases) {
			t.Fatalf("%s/incidents: %d rows for %d cases", prefix, len(rows), len(cases))
		}
		// The page grows with the corpus, so each row keeps to a budget:
		// the page is the rest of a page and 350 bytes a case.
		if per := (len(r.body) - 20<<10) / len(rows); per > 350 {
			t.Errorf("%s/incidents: %d bytes, %d a case; the budget is 350", prefix, len(r.body), per)
		}
		var dates, ids []string
		for _, m := range rows {
			dates = append(dates, m[1])
			ids = append(ids, m[3])
		}
		if !slices.IsSortedFunc(dates, func(a, b string) int { return strings.Compare(b, a) }) {
			t.Errorf("%s/incidents: not newest first", prefix)
		}
		slices.Sort(ids)
		if len(slices.Compact(ids)) != len(cases) {
			t.Errorf("%s/incidents: a case is listed twice", prefix)
		}
		if !strings.Contains(r.body, `aria-sort="descending"`) {
			t.Errorf("%s/incidents: the date column is not marked as the sort", prefix)
		}
		// Sorted by organisation.
		r = get(t, mux, prefix+"/incidents?sort=org")
		var orgs []string
		for _, m := range row.FindAllStringSubmatch(r.body, -1) {
			orgs = append(orgs, strings.ToLower(m[2]))
		}
		if len(orgs) != len(cases) || !slices.IsSorted(orgs) {
			t.Errorf("%s/incidents?sort=org: %d rows, sorted %v", prefix, len(orgs), slices.IsSorted(orgs))
		}
		if !strings.Contains(r.body, `<meta name="robots" content="noindex`) {
			t.Errorf("%s/incidents?sort=org: another order of the same rows is indexed", prefix)
		}
		// Oldest first, through the date column's own link.
		if !strings.Contains(get(t, mux, prefix+"/incidents").body, `href="`+prefix+`/incidents?sort=oldest" rel="nofollow"`) {
			t.Errorf("%s/incidents: the date column does not link the other order", prefix)
		}
	}
}

// TestTopicsIndex: /topics is the index of topics, grouped by vocabulary;
// /vocab, its former address, and /topics/ lead there.
func TestTopicsIndex(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	for _, prefix := range []string{"", "/en"} {
		r := get(t, mux, prefix+"/topics")
		if r.code != 200 {
			t.Fatalf("%s/topics: %d", prefix, r.code)
		}
		if n := strings.Count(r.body, `<section class="vocab-group"`); n < 5 {
			t.Errorf("%s/topics: %d vocabulary groups", prefix, n)
		}
		if !strings.Contains(r.body, `href="`+prefix+`/topics/`) {
			t.Errorf("%s/topics links no topic", prefix)
		}
		for _, from := range []string{prefix + "/vocab", prefix + "/topics/"} {
			if r := get(t, mux, from); r.code != 301 || r.header.Get("Location") != prefix+"/topics" {
				t.Errorf("%s: %d to %q, want 301 to %s/topics", from, r.code, r.header.Get("Location"), prefix)
			}
		}
	}
}
