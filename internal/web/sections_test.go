package web_test

import (
	"html"
	"strings"
	"testing"
	"unicode"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/casetest"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/web"
)

// TestCasePageHasEverySection checks that the case page shows every
// section of the table that has a place of its own, in table order, under
// its heading, with its text.
//
// IL-0049 is shown with a text of its own in every optional section it
// leaves empty (a section the corpus does not use yet included), since an
// empty optional section has no heading.
func TestCasePageHasEverySection(t *testing.T) {
	c := testCorpus(t)
	var cases []*incidentlib.Case
	var k *incidentlib.Case
	for _, x := range c.Cases {
		if x.ID == "IL-0049" {
			filled, err := casetest.Filled(x)
			if err != nil {
				t.Fatal(err)
			}
			x, k = filled, filled
		}
		cases = append(cases, x)
	}
	if k == nil || len(k.Timeline.Events) == 0 || len(k.ActionItems) == 0 {
		t.Fatal("IL-0049 should have timeline events and action items")
	}
	ix, err := search.New(c.Vocab, cases)
	if err != nil {
		t.Fatal(err)
	}
	mux := newMux(t, ix, web.Options{})
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
			heading := `<h2 id="s-` + s.Anchor + `">` + html.EscapeString(locale.T(lang, words)) + `</h2>`
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

// TestTopicCountPlural: a topic of one case says "1 case" in English, and
// Korean counts with its counter.
func TestTopicCountPlural(t *testing.T) {
	ix := sharedIndex(t)
	mux := newMux(t, ix, web.Options{})
	for _, term := range ix.Vocab().Lists[incidentlib.VocabComponents] {
		res, err := ix.Public().Search(search.Query{Filters: map[string][]string{incidentlib.VocabComponents: {term.ID}}, Limit: 1, NoFacets: true})
		if err != nil || res.Total != 1 {
			continue
		}
		en := get(t, mux, "/en/topics/"+term.ID)
		ko := get(t, mux, "/topics/"+term.ID)
		if en.code != 200 || ko.code != 200 {
			continue
		}
		if !strings.Contains(en.body, `<p class="meta">1 case `) && !strings.Contains(en.body, `<p class="meta">1 case<`) {
			t.Errorf("/en/topics/%s does not say 1 case", term.ID)
		}
		if !strings.Contains(ko.body, `<p class="meta">사례 1건`) {
			t.Errorf("/topics/%s does not say 사례 1건", term.ID)
		}
		return
	}
	t.Fatal("no component topic with exactly one case to check")
}
