package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// The orders of the all-incidents table, by the sort parameter: the date
// (newest first, the default), the date oldest first, the organisation,
// the title in the page's language and the root cause's label.
var incidentSorts = []string{"date", "oldest", "org", "title", "cause"}

type incidentRow struct {
	ID, Date, Org, OrgSlug, Title, Cause string
}

type incidentsData struct {
	Rows []incidentRow
	Sort string
	// Sorts are the columns' links, by column: the order each one sets.
	Sorts map[string]string
}

// incidentsPage is every public case on one page: a compact table a reader
// scans or prints, sorted by the column the reader picked, server-side, so
// that it needs no script.
func (s *Site) incidentsPage(w http.ResponseWriter, r *http.Request, lang string) error {
	order := r.URL.Query().Get("sort")
	if !slices.Contains(incidentSorts, order) {
		order = "date"
	}
	cases := s.ix.Cases()
	rows := make([]incidentRow, 0, len(cases))
	for _, c := range cases {
		rows = append(rows, incidentRow{ID: c.ID, Date: c.Date, Org: c.Org, OrgSlug: c.OrgSlug, Title: c.Title.In(lang), Cause: s.vocab.Label(incidentlib.VocabRootCause, c.RootCause, lang)})
	}
	key := func(x incidentRow) string {
		switch order {
		case "org":
			return strings.ToLower(x.Org)
		case "title":
			return strings.ToLower(x.Title)
		case "cause":
			return x.Cause
		}
		return x.Date
	}
	slices.SortStableFunc(rows, func(a, b incidentRow) int {
		if c := strings.Compare(key(a), key(b)); c != 0 {
			if order == "date" {
				return -c
			}
			return c
		}
		// Within one key, newest first, then by id: one order for one request.
		if c := strings.Compare(b.Date, a.Date); c != 0 {
			return c
		}
		return incidentlib.CompareIDs(a.ID, b.ID)
	})
	d := incidentsData{Rows: rows, Sort: order, Sorts: map[string]string{}}
	for _, o := range incidentSorts {
		u := langPrefix[lang] + "/incidents"
		if o != "date" {
			u += "?sort=" + o
		}
		d.Sorts[o] = u
	}
	return s.render(w, r, lang, "incidents", &pageData{
		Title:         locale.T(lang, "incidents.title"),
		Description:   locale.Tf(lang, "incidents.description", len(rows)),
		CanonicalPath: "/incidents",
		// The other orders are the same rows; only the default is indexed.
		NoIndex: order != "date",
		Data:    d,
	})
}
