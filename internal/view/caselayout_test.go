package view_test

import (
	"bytes"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/casetest"
	"github.com/incidentlib/incidentlib/internal/cli"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/view"
	"github.com/incidentlib/incidentlib/internal/web"
)

func embedded(t *testing.T) *corpus.Corpus {
	t.Helper()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// placed reports whether a section has a place of its own on the page.
func placed(s *incidentlib.Section) bool {
	switch s.Layout {
	case incidentlib.LayoutTimeline, incidentlib.LayoutProse, incidentlib.LayoutCause, incidentlib.LayoutItems, incidentlib.LayoutSources:
		return true
	}
	return false
}

// TestCaseLayoutHasEverySection: for IL-0049, the layout holds a block for
// every section of incidentlib.Sections with a place of its own, in the
// table's order, with its text, then the related cases; and the six facts,
// "–" where the case does not say, in the catalogue's words.
//
// IL-0049 is given a text in every optional section it leaves empty (a
// section the corpus does not use yet included): an empty one has no block.
func TestCaseLayoutHasEverySection(t *testing.T) {
	c := embedded(t)
	k := c.Case("IL-0049")
	if k == nil || len(k.Timeline.Events) == 0 || len(k.ActionItems) == 0 {
		t.Fatal("IL-0049 should have timeline events and action items")
	}
	k, err := casetest.Filled(k)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{locale.KO, locale.EN} {
		p := view.CaseLayout(k, c.Vocab, lang, c.Case, view.CuratedRelated(k, lang, c.Case))
		var want []string
		for i := range incidentlib.Sections {
			if s := &incidentlib.Sections[i]; placed(s) {
				want = append(want, s.Key)
			}
		}
		want = append(want, "related")
		var got []string
		for _, b := range p.Blocks {
			got = append(got, b.Key)
		}
		if !slices.Equal(got, want) || len(want) < 9 {
			t.Fatalf("%s: blocks %q, want %q", lang, got, want)
		}
		for _, b := range p.Blocks {
			checkBlock(t, lang, k, c.Vocab, b)
		}
		facts := map[string]string{}
		var keys []string
		for _, f := range p.Facts {
			if f.Words == f.Key || f.Words == "" {
				t.Errorf("%s: fact %s has no words of its own: %q", lang, f.Key, f.Words)
			}
			facts[f.Key] = f.Value
			keys = append(keys, f.Key)
		}
		if w := []string{"severity", "impact.scope", "impact.users", "impact.region", "detected_after", "resolved_after"}; !slices.Equal(keys, w) {
			t.Errorf("%s: facts %q, want %q", lang, keys, w)
		}
		minutes := map[string]string{locale.KO: "분", locale.EN: "m"}[lang]
		for key, want := range map[string]string{
			"severity": "–", "impact.scope": k.Impact.Scope.In(lang), "impact.users": "–", "impact.region": "–",
			"detected_after": "4" + minutes, "resolved_after": "26" + minutes,
		} {
			if facts[key] != want {
				t.Errorf("%s: fact %s = %q, want %q", lang, key, facts[key], want)
			}
		}
		if h := p.Head; h.ID != k.ID || h.Title != k.Title.In(lang) || h.DateKind == "date_kind."+k.DateKind || len(h.Domain.IDs) == 0 {
			t.Errorf("%s: head %+v", lang, h)
		}
	}
}

// checkBlock checks one block against its section: its heading in the
// catalogue's words and the case's texts in it.
func checkBlock(t *testing.T, lang string, k *incidentlib.Case, v *incidentlib.Vocab, b view.Block) {
	t.Helper()
	words := b.Key
	if s := incidentlib.SectionByKey(b.Key); s != nil {
		words = s.Words
	}
	if b.Layout == incidentlib.LayoutCause {
		words = "cause"
	}
	if b.Words != locale.T(lang, words) || b.Words == words {
		t.Errorf("%s: block %s is headed %q", lang, b.Key, b.Words)
	}
	s := incidentlib.SectionByKey(b.Key)
	switch b.Layout {
	case incidentlib.LayoutTimeline:
		if len(b.Events) != len(k.Timeline.Events) || b.Events[0].Text != k.Timeline.Events[0].Text.In(lang) {
			t.Errorf("%s: timeline %v", lang, b.Events)
		}
	case incidentlib.LayoutProse, incidentlib.LayoutCause:
		if b.Prose != s.Text(k).In(lang) || b.Prose == "" {
			t.Errorf("%s: %s's prose is %q", lang, b.Key, b.Prose)
		}
	case incidentlib.LayoutItems:
		if !slices.Equal(b.Items, s.In(k, v, lang)) || len(b.Items) == 0 {
			t.Errorf("%s: %s's items are %q", lang, b.Key, b.Items)
		}
	case incidentlib.LayoutSources:
		if len(b.Sources) != len(k.Sources) || b.Sources[0].URL != k.Sources[0].URL {
			t.Errorf("%s: sources %v", lang, b.Sources)
		}
	}
	if b.Layout == incidentlib.LayoutCause {
		var vocabs []string
		for _, ts := range b.Terms {
			vocabs = append(vocabs, ts.Vocab)
		}
		if len(vocabs) < 2 || vocabs[0] != incidentlib.VocabRootCause || !b.Terms[0].Strong {
			t.Errorf("%s: the cause's terms are %q", lang, vocabs)
		}
	}
}

// TestPageAndShowAgree: the case page and `incidentlib show` print the same
// facts, words and values, and the same block headings in the same order,
// for a few real cases in both languages.
func TestPageAndShowAgree(t *testing.T) {
	c := embedded(t)
	ix, err := search.New(c.Vocab, c.Cases)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	site, err := web.New(ix.Public(), web.Options{BaseURL: "http://example.test"})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	site.Install(mux)
	for _, id := range sampleCases(t, c) {
		for _, lang := range []string{locale.KO, locale.EN} {
			k := c.Case(id)
			p := view.CaseLayout(k, c.Vocab, lang, c.Case, nil)
			var facts, headings []string
			for _, f := range p.Facts {
				facts = append(facts, f.Words+": "+f.Value)
			}
			for _, b := range p.Blocks {
				headings = append(headings, b.Words)
			}
			pageFacts, pageHeadings := page(t, mux, id, lang)
			showFacts, showHeadings := show(t, id, lang)
			for face, got := range map[string][2][]string{"page": {pageFacts, pageHeadings}, "show": {showFacts, showHeadings}} {
				if !slices.Equal(got[0], facts) {
					t.Errorf("%s %s: the %s's facts are\n%q\nthe layout's\n%q", id, lang, face, got[0], facts)
				}
				if !slices.Equal(got[1], headings) {
					t.Errorf("%s %s: the %s's headings are\n%q\nthe layout's\n%q", id, lang, face, got[1], headings)
				}
			}
		}
	}
}

// sampleCases are IL-0049 and the first cases with a recurrence, no
// related cases of their own, no action items, and further reading.
func sampleCases(t *testing.T, c *corpus.Corpus) []string {
	ids := []string{"IL-0049"}
	for _, want := range []func(k *incidentlib.Case) bool{
		func(k *incidentlib.Case) bool { return k.RecurrenceOf != nil },
		func(k *incidentlib.Case) bool { return len(k.Related) == 0 },
		func(k *incidentlib.Case) bool { return len(k.ActionItems) == 0 },
		func(k *incidentlib.Case) bool { return len(k.Docs) > 0 && len(k.Timeline.Events) == 0 },
	} {
		i := slices.IndexFunc(c.Cases, func(k *incidentlib.Case) bool { return !k.Private && want(k) })
		if i < 0 {
			t.Fatalf("no case for sample %d", len(ids))
		}
		ids = append(ids, c.Cases[i].ID)
	}
	return ids
}

var (
	factsRe   = regexp.MustCompile(`(?s)<dl class="facts">(.*?)</dl>`)
	factRe    = regexp.MustCompile(`<dt>([^<]*)</dt><dd[^>]*>([^<]*)</dd>`)
	headingRe = regexp.MustCompile(`<h2 id="s-[^"]+">([^<]*)</h2>`)
)

// page returns the case page's facts and its headings before the page's
// own sections (checks, tools, citation).
func page(t *testing.T, h http.Handler, id, lang string) (facts, headings []string) {
	t.Helper()
	target := "/cases/" + id
	if lang == locale.EN {
		target = "/en" + target
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	body := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: %d", target, rec.Code)
	}
	dl := factsRe.FindStringSubmatch(body)
	if dl == nil {
		t.Fatalf("%s: no facts", target)
	}
	for _, m := range factRe.FindAllStringSubmatch(dl[1], -1) {
		facts = append(facts, html.UnescapeString(m[1])+": "+html.UnescapeString(m[2]))
	}
	body, _, _ = strings.Cut(body, `<h2 id="s-check">`)
	for _, m := range headingRe.FindAllStringSubmatch(body, -1) {
		headings = append(headings, html.UnescapeString(m[1]))
	}
	return facts, headings
}

// show returns the facts and the headings `incidentlib show` prints.
func show(t *testing.T, id, lang string) (facts, headings []string) {
	t.Helper()
	var out, errs bytes.Buffer
	if code := cli.Main([]string{"show", id, "--lang", lang, "--dir", "../.."}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("show %s: exit %d: %s", id, code, errs.String())
	}
	head, _, _ := strings.Cut(out.String(), "\n## ")
	lines := strings.Split(strings.TrimRight(head, "\n"), "\n")
	for i := len(lines) - 1; i >= 0 && strings.HasPrefix(lines[i], "  "); i-- {
		facts = append([]string{strings.TrimPrefix(lines[i], "  ")}, facts...)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			headings = append(headings, h)
		}
	}
	return facts, headings
}
