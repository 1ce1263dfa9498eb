package incidentlib_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
)

// notSections are the Case fields that are no section of the table, each
// with the reason. A new Case field must be added to Sections or here.
var notSections = map[string]string{
	"id":            "the case's identity, not text",
	"org_slug":      "derived from org, for filters and addresses",
	"date":          "a date, shown in the head and exported as a column",
	"date_kind":     "a word from a closed list, shown beside the date",
	"impact":        "three short facts (scope, users, region) shown in the facts list, not prose; each a Text (textFacts)",
	"docs":          "addresses of further reading, listed under the sources",
	"related":       "case ids; the page computes the related cases and their reasons",
	"recurrence_of": "a case id, shown in the cause section",
	"review":        "who wrote and reviewed the case",
	"updated_at":    "a timestamp",
	"url":           "derived from the configured base URL",
}

// textFacts are the fields of notSections that hold Text all the same: short
// facts in both languages that the page, show and MCP write out by hand
// (the facts list), kept out of search and snippets like the other facts.
var textFacts = map[string]bool{"impact": true}

// textTypes are the field types that hold prose: a field of one of these
// types must be a section.
func holdsText(t reflect.Type) bool {
	text := reflect.TypeOf(incidentlib.Text{})
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type) bool
	walk = func(t reflect.Type) bool {
		for t.Kind() == reflect.Slice || t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == text {
			return true
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return false
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			if walk(t.Field(i).Type) {
				return true
			}
		}
		return false
	}
	return walk(t)
}

func TestEveryCaseFieldIsASection(t *testing.T) {
	ct := reflect.TypeOf(incidentlib.Case{})
	fields := map[string]bool{}
	for i := 0; i < ct.NumField(); i++ {
		f := ct.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue // not part of the case as served (Private)
		}
		fields[name] = true
		sec := incidentlib.SectionByKey(name)
		why, excluded := notSections[name]
		switch {
		case sec != nil && excluded:
			t.Errorf("Case.%s is both a section and excluded (%s)", f.Name, why)
		case sec == nil && !excluded:
			t.Errorf("Case.%s (%s) is neither in incidentlib.Sections nor in notSections: add it to the table (docs/CASE-FORMAT.md, \"Adding a field\")", f.Name, name)
		case sec == nil && holdsText(f.Type) && !textFacts[name]:
			t.Errorf("Case.%s holds Text, so it must be a section of the table, not excluded", f.Name)
		}
	}
	for _, s := range incidentlib.Sections {
		if !fields[s.Key] {
			t.Errorf("section %q names no Case field", s.Key)
		}
	}
	for name := range notSections {
		if !fields[name] {
			t.Errorf("notSections names %q, which is no Case field", name)
		}
	}
}

func TestSectionsTableIsConsistent(t *testing.T) {
	searchFields := map[string]bool{}
	for _, f := range incidentlib.SearchFields {
		if f.Weight <= 0 {
			t.Errorf("search field %s has weight %v", f.Name, f.Weight)
		}
		searchFields[f.Name] = true
	}
	if len(incidentlib.SearchFields) > 8 {
		t.Errorf("%d search fields; the index marks matched fields in 8 bits", len(incidentlib.SearchFields))
	}
	used := map[string]bool{}
	keys := map[string]bool{}
	snippets := map[int]string{}
	c := &incidentlib.Case{Org: "Org", Title: incidentlib.Text{EN: "t", KO: "제목"}, Timeline: incidentlib.Timeline{Events: []incidentlib.Event{{At: "1", Text: incidentlib.Text{EN: "e"}}}},
		Remediation: []incidentlib.Item{{Text: incidentlib.Text{EN: "r"}}}, Sources: []incidentlib.Source{{Title: "s"}}}
	for _, s := range incidentlib.Sections {
		if keys[s.Key] {
			t.Errorf("section %q twice", s.Key)
		}
		keys[s.Key] = true
		if s.Words == "" {
			t.Errorf("section %q has no words for its heading", s.Key)
		}
		if s.Search != "" && !searchFields[s.Search] {
			t.Errorf("section %q names search field %q, which SearchFields lacks", s.Key, s.Search)
		}
		used[s.Search] = true
		if s.Snippet != 0 {
			if s.Search == "" || s.Kind != incidentlib.Prose {
				t.Errorf("section %q gives snippets but is no searched prose", s.Key)
			}
			if o, dup := snippets[s.Snippet]; dup {
				t.Errorf("sections %q and %q share snippet order %d", o, s.Key, s.Snippet)
			}
			snippets[s.Snippet] = s.Key
		}
		if (s.Kind == incidentlib.Terms) != (s.Vocab != "") {
			t.Errorf("section %q: a vocabulary belongs to Terms sections only", s.Key)
		}
		if s.Kind != incidentlib.Terms {
			s.Texts(c, nil) // a section without a getter panics here
		}
		switch s.Layout {
		case incidentlib.LayoutProse, incidentlib.LayoutItems, incidentlib.LayoutCause, incidentlib.LayoutTimeline, incidentlib.LayoutSources:
			if s.Anchor == "" {
				t.Errorf("section %q has a heading of its own on the page but no anchor", s.Key)
			}
		case incidentlib.LayoutHead, incidentlib.LayoutFacts, incidentlib.LayoutCauseTerm, incidentlib.LayoutChips:
		default:
			t.Errorf("section %q has layout %q, which no page knows", s.Key, s.Layout)
		}
		if s.Layout == incidentlib.LayoutItems && s.Kind != incidentlib.Items || s.Layout == incidentlib.LayoutProse && s.Kind != incidentlib.Prose {
			t.Errorf("section %q: layout %q does not fit its kind", s.Key, s.Layout)
		}
	}
	for f := range searchFields {
		if !used[f] {
			t.Errorf("search field %q holds no section", f)
		}
	}
}

func TestSectionTexts(t *testing.T) {
	v := incidentlib.NewVocab(map[string][]incidentlib.Term{
		incidentlib.VocabComponents: {{ID: "coredns", Label: incidentlib.Text{EN: "CoreDNS", KO: "코어DNS"}}},
	})
	c := &incidentlib.Case{Components: []string{"coredns", "gone"}, Lessons: incidentlib.Text{EN: "Cache.", KO: "캐시하라."},
		ActionItems: []incidentlib.Item{{Text: incidentlib.Text{EN: "a", KO: "가"}}, {Text: incidentlib.Text{EN: "b"}}}}
	if got := incidentlib.SectionByKey("components").In(c, v, "ko"); !reflect.DeepEqual(got, []string{"코어DNS"}) {
		t.Errorf("components in ko = %q, want the known term's label", got)
	}
	if got := incidentlib.SectionByKey("components").Terms(c); !reflect.DeepEqual(got, []string{"coredns", "gone"}) {
		t.Errorf("component terms = %q", got)
	}
	if got := incidentlib.SectionByKey("lessons").In(c, v, "en"); !reflect.DeepEqual(got, []string{"Cache."}) {
		t.Errorf("lessons in en = %q", got)
	}
	if got := incidentlib.SectionByKey("action_items").In(c, v, "ko"); !reflect.DeepEqual(got, []string{"가", "b"}) {
		t.Errorf("action items in ko = %q (an empty Korean text falls back to English)", got)
	}
}
