package web_test

import (
	"html"
	"strings"
	"testing"
	"unicode"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/web"
)

// TestCasePageHasEverySection checks that the case page shows every
// section of the table that has a place of its own, in table order, under
// its heading, with its text.
func TestCasePageHasEverySection(t *testing.T) {
	ix := sharedIndex(t)
	mux := newMux(t, ix, web.Options{})
	k := ix.Case("IL-0049")
	if k == nil || len(k.Timeline.Events) == 0 || len(k.ActionItems) == 0 {
		t.Fatal("IL-0049 should have timeline events and action items")
	}
	for _, lang := range []string{"ko", "en"} {
		target := "/cases/IL-0049"
		if lang == "en" {
			target = "/en" + target
		}
		r := get(t, mux, target)
		last, n := -1, 0
		for _, s := range incidentlib.Sections {
			words := s.Words
			switch s.Layout {
			case incidentlib.LayoutCause:
				words = "cause"
			case incidentlib.LayoutProse, incidentlib.LayoutItems, incidentlib.LayoutTimeline, incidentlib.LayoutSources:
			default:
				continue
			}
			n++
			heading := `<h2 id="s-` + s.Anchor + `">` + html.EscapeString(web.T(lang, words)) + `</h2>`
			i := strings.Index(r.body, heading)
			if i < 0 {
				t.Errorf("%s: no heading %s for section %s", target, heading, s.Key)
				continue
			}
			if i < last {
				t.Errorf("%s: section %s is out of the table's order", target, s.Key)
			}
			last = i
			end := strings.Index(r.body[i:], "</section>")
			body := r.body[i : i+end]
			for _, text := range s.In(k, ix.Vocab(), lang) {
				// A plain word of each text (the page renders Markdown).
				probe := ""
				for _, w := range strings.Fields(text) {
					if len(w) >= 4 && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 {
						probe = w
						break
					}
				}
				if probe == "" || !strings.Contains(body, probe) {
					t.Errorf("%s: section %s lacks its text %q", target, s.Key, probe)
				}
			}
		}
		if n < 8 {
			t.Errorf("only %d sections with a place of their own", n)
		}
	}
}
