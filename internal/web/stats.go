package web

import (
	"net/http"
	"sort"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
)

type statsData struct {
	Cases, Reviewed, Orgs int
	Charts                []chart
}

func (s *Site) statsPage(w http.ResponseWriter, r *http.Request, lang string) error {
	cases := s.ix.Cases()
	d := statsData{Cases: len(cases)}
	orgs := map[string]bool{}
	years := map[int]int{}
	for _, c := range cases {
		orgs[c.OrgSlug] = true
		years[c.Year()]++
		if c.Reviewed() {
			d.Reviewed++
		}
	}
	d.Orgs = len(orgs)
	var yc []search.YearCount
	for y, n := range years {
		if y > 0 {
			yc = append(yc, search.YearCount{Year: y, Count: n})
		}
	}
	sort.Slice(yc, func(i, j int) bool { return yc[i].Year < yc[j].Year })
	d.Charts = append(d.Charts, yearChart(yc, lang, locale.T(lang, "stats.by_year")))

	counts := s.ix.TermCounts()
	bars := func(vocab string, n int) []barItem {
		var out []barItem
		for _, t := range s.topTerms(counts, vocab, lang, n) {
			out = append(out, barItem{t.Label, langPrefix[lang] + s.topicPath(vocab, t.ID), t.Count})
		}
		return out
	}
	causes := bars(incidentlib.VocabRootCause, 0)
	d.Charts = append(d.Charts, barChart("chart-causes", locale.T(lang, "stats.by_cause"), lang, causes))
	comps := bars(incidentlib.VocabComponents, 15)
	d.Charts = append(d.Charts, barChart("chart-components", locale.T(lang, "stats.top_components"), lang, comps))

	rows := comps[:min(12, len(comps))]
	cols, m := s.componentsByCause(cases, counts, lang, len(rows))
	d.Charts = append(d.Charts, heatmap("chart-matrix", locale.T(lang, "stats.matrix"), lang, rows, cols, m))

	return s.render(w, r, lang, "stats", &pageData{
		Title:       locale.T(lang, "stats.title"),
		Description: locale.T(lang, "stats.intro"),
		Data:        d,
	})
}

// componentsByCause is the components × root cause matrix: the n most
// frequent components (rows) against every root cause that at least one of
// them meets (columns, with their totals).
func (s *Site) componentsByCause(cases []*incidentlib.Case, counts map[string]map[string]int, lang string, n int) ([]barItem, [][]int) {
	rowIDs := s.topTerms(counts, incidentlib.VocabComponents, lang, n)
	causeIDs := s.topTerms(counts, incidentlib.VocabRootCause, lang, 0)
	m := make([][]int, len(rowIDs))
	for i := range m {
		m[i] = make([]int, len(causeIDs))
	}
	for _, c := range cases {
		for i, rt := range rowIDs {
			if !has(c.Components, rt.ID) {
				continue
			}
			for j, ct := range causeIDs {
				if c.RootCause == ct.ID {
					m[i][j]++
				}
			}
		}
	}
	var cols []barItem
	var keep []int
	for j, ct := range causeIDs {
		sum := 0
		for i := range rowIDs {
			sum += m[i][j]
		}
		if sum > 0 {
			cols = append(cols, barItem{Label: ct.Label, Count: sum})
			keep = append(keep, j)
		}
	}
	for i := range m {
		row := make([]int, len(keep))
		for k, j := range keep {
			row[k] = m[i][j]
		}
		m[i] = row
	}
	return cols, m
}

func has(list []string, x string) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}
