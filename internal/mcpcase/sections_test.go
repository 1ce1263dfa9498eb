package mcpcase

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/casetest"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// TestIncidentHasEverySection checks that get_incident's one-language case
// carries every section the table gives an MCP name, with its text, and
// that the short view keeps exactly the short ones.
//
// IL-0049 is given a text in every optional section it leaves empty (a
// section the corpus does not use yet included): an empty one is left out.
func TestIncidentHasEverySection(t *testing.T) {
	c, k := caseIL0049(t)
	if k == nil || len(k.Timeline.Events) == 0 || len(k.Remediation) == 0 {
		t.Fatal("IL-0049 should have timeline events and remediation")
	}
	k, err := casetest.Filled(k)
	if err != nil {
		t.Fatal(err)
	}
	for _, short := range []bool{false, true} {
		for _, l := range []string{"en", "ko"} {
			var inc Incident
			fillSections(&inc, k, c.Vocab, l, short)
			b, _ := json.Marshal(inc)
			var m map[string]any
			json.Unmarshal(b, &m)
			n := 0
			for _, s := range incidentlib.Sections {
				if s.MCP == "" {
					continue
				}
				n++
				var got string
				switch x := m[s.MCP].(type) {
				case string:
					got = x
				case []any, map[string]any:
					j, _ := json.Marshal(x)
					got = string(j)
				}
				if short && !s.Short {
					if s.MCP != "terms" && m[s.MCP] != nil {
						t.Errorf("short %s: %s (%s) should be left out", l, s.MCP, s.Key)
					}
					continue
				}
				if got == "" {
					t.Errorf("short=%v %s: Incident lacks %s (section %s)", short, l, s.MCP, s.Key)
					continue
				}
				var want []string
				switch s.Kind {
				case incidentlib.Terms:
					want = s.Terms(k)
				case incidentlib.Sources:
					for _, x := range k.Sources {
						want = append(want, x.URL)
					}
				default:
					want = s.In(k, c.Vocab, l)
				}
				for _, w := range want {
					j, _ := json.Marshal(w)
					if !strings.Contains(got, w) && !strings.Contains(got, strings.Trim(string(j), `"`)) {
						t.Errorf("short=%v %s: %s lacks %.60q", short, l, s.MCP, w)
					}
				}
			}
			if n < 10 {
				t.Errorf("only %d sections reach MCP", n)
			}
		}
	}
}

// caseIL0049 is the embedded corpus and its case IL-0049, which has every
// kind of section.
func caseIL0049(t *testing.T) (*corpus.Corpus, *incidentlib.Case) {
	t.Helper()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	return c, c.Case("IL-0049")
}

// projectFields are Incident's fields that Project sets from the case
// itself, not from a section.
var projectFields = []string{"id", "org", "date", "date_kind", "impact", "detected_after", "resolved_after", "related", "reviewed", "url"}

// incidentJSONNames are the JSON names of Incident's fields, read from
// their tags ("-" left out).
func incidentJSONNames(t *testing.T) []string {
	t.Helper()
	var names []string
	typ := reflect.TypeFor[Incident]()
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			t.Fatalf("Incident.%s has no JSON name", f.Name)
		}
		names = append(names, name)
	}
	return names
}

// TestPlacesCoverIncident: every JSON field of Incident is filled, by a
// place (a section) or by Project itself; every place is a field of
// Incident; and each place, given a section of each kind it takes, writes
// the field of its own name and no other.
func TestPlacesCoverIncident(t *testing.T) {
	c, k := caseIL0049(t)
	names := incidentJSONNames(t)
	for _, name := range names {
		_, byPlace := places[name]
		byProject := slices.Contains(projectFields, name)
		if byPlace == byProject {
			t.Errorf("Incident's field %s: in places %v, set by Project %v; want exactly one", name, byPlace, byProject)
		}
	}
	for name := range places {
		if !slices.Contains(names, name) {
			t.Errorf("places has %s, which is no field of Incident", name)
		}
	}
	// Project sets its own fields (IL-0049, marked reviewed, has every one).
	reviewed := *k
	at := "2026-01-01T00:00:00Z"
	reviewed.Review.ReviewedAt = &at
	full := asMap(t, Project(&reviewed, "en", "", "https://x.example/cases/IL-0049"))
	for _, name := range projectFields {
		if v, ok := full[name]; !ok || v == nil || v == "" || v == false {
			t.Errorf("Project leaves %s empty: %v", name, v)
		}
	}
	// A section of each kind, from the table.
	byKind := map[incidentlib.SectionKind]incidentlib.Section{}
	for _, s := range incidentlib.Sections {
		if _, ok := byKind[s.Kind]; !ok && len(s.In(k, c.Vocab, "en")) > 0 || s.Kind == incidentlib.Terms && len(s.Terms(k)) > 0 {
			byKind[s.Kind] = s
		}
	}
	empty := asMap(t, Incident{})
	for name, p := range places {
		for _, kind := range p.kinds {
			s, ok := byKind[kind]
			if !ok {
				t.Fatalf("IL-0049 has no section of kind %d", kind)
			}
			s.MCP = name
			var inc Incident
			p.fill(&inc, &s, k, c.Vocab, "en")
			got := asMap(t, inc)
			keys := map[string]bool{name: true}
			for key := range got {
				keys[key] = true
			}
			for key := range keys {
				changed := !reflect.DeepEqual(got[key], empty[key])
				if key == name && !changed {
					t.Errorf("place %s, given section %s, leaves its field empty", name, s.Key)
				}
				if key != name && changed {
					t.Errorf("place %s, given section %s, writes %s", name, s.Key, key)
				}
			}
		}
	}
}

func asMap(t *testing.T, inc Incident) map[string]any {
	t.Helper()
	b, err := json.Marshal(inc)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEverySectionHasAPlace: every section of the table with an MCP name
// can go where its name sends it.
func TestEverySectionHasAPlace(t *testing.T) {
	for i := range incidentlib.Sections {
		if err := checkSection(&incidentlib.Sections[i]); err != nil {
			t.Error(err)
		}
	}
}

// TestMisplacedSectionIsLeftOut: a section whose MCP name sends it to a
// field that does not take its kind, or to More when it is neither prose
// nor items, is left out of the answer rather than panicking, and Schema
// refuses the table.
func TestMisplacedSectionIsLeftOut(t *testing.T) {
	_, k := caseIL0049(t)
	saved := incidentlib.Sections
	t.Cleanup(func() { incidentlib.Sections = saved })
	want := asMap(t, Project(k, "en", "", ""))
	for _, bad := range []struct{ key, mcp string }{
		{"timeline", "title"},     // events into a string
		{"domain", "remediation"}, // terms into a list
		{"sources", "terms"},      // sources into the terms map
		{"severity", "extra"},     // terms into More
		{"timeline", "moments"},   // events into More
	} {
		sec := *incidentlib.SectionByKey(bad.key)
		sec.MCP = bad.mcp
		incidentlib.Sections = append(slices.Clone(saved), sec)
		var got map[string]any
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s as %s: Project panics: %v", bad.key, bad.mcp, r)
				}
			}()
			got = asMap(t, Project(k, "en", "", ""))
		}()
		if got != nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s as %s changed the answer", bad.key, bad.mcp)
		}
		if _, err := Schema[Incident](); err == nil {
			t.Errorf("%s as %s: Schema accepts the table", bad.key, bad.mcp)
		}
		incidentlib.Sections = saved
	}
}
