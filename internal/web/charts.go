package web

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
)

// chart is an SVG drawn on the server with the same numbers as a table,
// so the figure needs no script and screen readers get the data.
type chart struct {
	ID    string
	Title string
	SVG   template.HTML
	Wide  bool // too wide to shrink: scrolls sideways on small screens
	// QuietCaption hides the caption visually where a heading already
	// names the chart; screen readers still get it.
	QuietCaption bool
	Table        chartTable
}

type chartTable struct {
	Head []string
	Rows []chartRow
}

type chartRow struct {
	Label string
	URL   string // the label links here when set
	Cells []string
}

// The charts' coordinate system. Text is 13 units; the narrow charts are
// 380 units wide and scale with the page (CSS caps them at 480 px), which
// keeps their text between about 11 px on a 360 px phone and 16 px on a
// desktop.
const (
	narrowW  = 380
	fontSize = 13
)

func esc(s string) string { return html.EscapeString(s) }

// svgOpen starts an accessible SVG: a role, a title and a description.
func svgOpen(b *strings.Builder, id, title, desc string, w, h int, fixed bool) {
	size := ""
	if fixed {
		size = fmt.Sprintf(` width="%d" height="%d"`, w, h)
	}
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d"%s role="img" aria-labelledby="%s-t %s-d" class="chart-svg" font-size="%d">`,
		w, h, size, id, id, fontSize)
	fmt.Fprintf(b, `<title id="%s-t">%s</title><desc id="%s-d">%s</desc>`, id, esc(title), id, esc(desc))
}

// yearChart draws cases per year as columns, filling years without cases.
func yearChart(years []search.YearCount, lang, title string) chart {
	c := chart{ID: "chart-years", Title: title}
	c.Table.Head = []string{locale.T(lang, "stats.year"), locale.T(lang, "stats.cases")}
	if len(years) == 0 {
		return c
	}
	first, last := years[0].Year, years[len(years)-1].Year
	for _, y := range years {
		first, last = min(first, y.Year), max(last, y.Year)
	}
	if first == 0 { // a malformed date; years are never 0 in a valid corpus
		first = last
	}
	counts := map[int]int{}
	top := 1
	for _, y := range years {
		counts[y.Year] += y.Count
		top = max(top, counts[y.Year])
	}
	n := last - first + 1
	const h, padL, padR, padT, padB = 200, 8, 8, 22, 26
	const yearLabelW = 36 // px: four digits at the chart's font size, and a gap
	plotW, plotH := float64(narrowW-padL-padR), float64(h-padT-padB)
	slot := plotW / float64(n)
	bw := min(slot*0.68, 34) // a few years must not make slabs
	var b strings.Builder
	var parts []string
	for y := first; y <= last; y++ {
		parts = append(parts, fmt.Sprintf("%d: %d", y, counts[y]))
	}
	svgOpen(&b, c.ID, title, strings.Join(parts, ", "), narrowW, h, false)
	fmt.Fprintf(&b, `<line class="chart-axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, padL, h-padB, narrowW-padR, h-padB)
	// Years are labelled at a fixed step counted back from the last one,
	// which is always labelled, so that no two labels come closer than a
	// label's width (four digits, yearLabelW with a gap) at any count of
	// years.
	every := max(1, int(math.Ceil(yearLabelW/slot)))
	for i := 0; i < n; i++ {
		y := first + i
		v := counts[y]
		x := float64(padL) + slot*float64(i) + (slot-bw)/2
		bh := plotH * float64(v) / float64(top)
		fmt.Fprintf(&b, `<rect class="chart-bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="2"/>`, x, float64(h-padB)-bh, bw, bh)
		cx := x + bw/2
		if v > 0 {
			fmt.Fprintf(&b, `<text class="chart-value" x="%.1f" y="%.1f" text-anchor="middle">%d</text>`, cx, float64(h-padB)-bh-5, v)
		}
		if (n-1-i)%every == 0 {
			fmt.Fprintf(&b, `<text class="chart-label" x="%.1f" y="%d" text-anchor="middle">%d</text>`, cx, h-padB+17, y)
		}
		c.Table.Rows = append(c.Table.Rows, chartRow{Label: strconv.Itoa(y), Cells: []string{strconv.Itoa(v)}})
	}
	b.WriteString(`</svg>`)
	c.SVG = template.HTML(b.String())
	return c
}

// barItem is one bar of a horizontal bar chart.
type barItem struct {
	Label string
	URL   string
	Count int
}

// barChart draws horizontal bars with the label above each bar, so long
// Korean labels need no column of their own and the chart stays narrow.
func barChart(id, title, lang string, items []barItem) chart {
	c := chart{ID: id, Title: title}
	c.Table.Head = []string{locale.T(lang, "stats.term"), locale.T(lang, "stats.cases")}
	top := 1
	for _, it := range items {
		top = max(top, it.Count)
	}
	const rowH, padT, padX = 36, 6, 4
	h := padT + rowH*len(items) + 4
	var b strings.Builder
	var parts []string
	for _, it := range items {
		parts = append(parts, fmt.Sprintf("%s: %d", it.Label, it.Count))
	}
	svgOpen(&b, id, title, strings.Join(parts, ", "), narrowW, h, false)
	maxW := float64(narrowW - 2*padX - 36) // room for the count after the bar
	for i, it := range items {
		y := padT + rowH*i
		fmt.Fprintf(&b, `<text class="chart-label" x="%d" y="%d">%s</text>`, padX, y+13, esc(it.Label))
		w := maxW * float64(it.Count) / float64(top)
		fmt.Fprintf(&b, `<rect class="chart-bar" x="%d" y="%d" width="%.1f" height="12" rx="2"/>`, padX, y+19, w)
		fmt.Fprintf(&b, `<text class="chart-value" x="%.1f" y="%d">%d</text>`, float64(padX)+w+6, y+30, it.Count)
		c.Table.Rows = append(c.Table.Rows, chartRow{Label: it.Label, URL: it.URL, Cells: []string{strconv.Itoa(it.Count)}})
	}
	b.WriteString(`</svg>`)
	c.SVG = template.HTML(b.String())
	return c
}

// heatmap draws a matrix of counts: rows × columns, darker for more. It is
// drawn at its natural size and scrolls sideways on narrow screens.
func heatmap(id, title, lang string, rows, cols []barItem, counts [][]int) chart {
	c := chart{ID: id, Title: title, Wide: true}
	c.Table.Head = append(c.Table.Head, locale.T(lang, "stats.matrix_rows"))
	for _, col := range cols {
		c.Table.Head = append(c.Table.Head, col.Label)
	}
	top := 1
	for _, r := range counts {
		for _, v := range r {
			top = max(top, v)
		}
	}
	const cell, cellH, headH, pad = 44, 32, 130, 6
	// The row labels get the room their longest one needs, so they are
	// not cut while the screen has space.
	labelW := 120
	for _, r := range rows {
		labelW = max(labelW, textWidth(r.Label)+24)
	}
	labelW = min(labelW, 340)
	w := labelW + cell*len(cols) + pad + 40
	h := headH + cellH*len(rows) + pad
	var b strings.Builder
	svgOpen(&b, id, title, locale.T(lang, "stats.heatmap_desc"), w, h, true)
	for j, col := range cols {
		x := labelW + cell*j + cell/2
		fmt.Fprintf(&b, `<text class="chart-label" transform="translate(%d %d) rotate(-45)"><title>%s</title>%s</text>`,
			x+4, headH-10, esc(col.Label), esc(short(col.Label, 16)))
	}
	for i, row := range rows {
		y := headH + cellH*i
		fmt.Fprintf(&b, `<text class="chart-label" x="%d" y="%d" text-anchor="end"><title>%s</title>%s</text>`,
			labelW-10, y+cellH/2+4, esc(row.Label), esc(fitWidth(row.Label, labelW-24)))
		cells := make([]string, len(cols))
		for j := range cols {
			v := counts[i][j]
			cells[j] = strconv.Itoa(v)
			x := labelW + cell*j
			if v == 0 {
				fmt.Fprintf(&b, `<rect class="heat-empty" x="%d" y="%d" width="%d" height="%d"/>`, x+1, y+1, cell-2, cellH-2)
				continue
			}
			// Capped at 0.6 so the dark count stays above 4.5:1 contrast
			// on the darkest cell.
			op := 0.12 + 0.48*float64(v)/float64(top)
			fmt.Fprintf(&b, `<rect class="heat" x="%d" y="%d" width="%d" height="%d" fill-opacity="%.2f"/>`, x+1, y+1, cell-2, cellH-2, op)
			fmt.Fprintf(&b, `<text class="heat-text" x="%d" y="%d" text-anchor="middle">%d</text>`, x+cell/2, y+cellH/2+4, v)
		}
		c.Table.Rows = append(c.Table.Rows, chartRow{Label: row.Label, URL: row.URL, Cells: cells})
	}
	b.WriteString(`</svg>`)
	c.SVG = template.HTML(b.String())
	return c
}

// short cuts a label to n characters for a chart axis; the full label is in
// the element's title and in the table.
func short(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// textWidth estimates the width in pixels of s in the chart font: Hangul
// and other wide letters take about twice a Latin one.
func textWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xD7A3, r >= 0xF900 && r <= 0xFAFF, r >= 0xFF00 && r <= 0xFF60:
			w += fontSize
		case r == ' ' || r == 'i' || r == 'l' || r == '.' || r == ',':
			w += fontSize * 3 / 10
		default:
			w += fontSize * 6 / 10
		}
	}
	return w
}

// fitWidth cuts s to about px pixels, with an ellipsis when cut.
func fitWidth(s string, px int) string {
	if textWidth(s) <= px {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && textWidth(string(r))+fontSize > px {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}
