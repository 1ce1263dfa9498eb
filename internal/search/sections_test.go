package search_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/search"
)

// setSection puts text into the Case field of section s (found by its JSON
// name), whatever the field's type; a Terms section gets the term id.
func setSection(t *testing.T, c *incidentlib.Case, s incidentlib.Section, text, termID string) {
	t.Helper()
	v := reflect.ValueOf(c).Elem()
	for i := 0; i < v.NumField(); i++ {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name != s.Key {
			continue
		}
		f := v.Field(i)
		switch f.Interface().(type) {
		case incidentlib.Text:
			f.Set(reflect.ValueOf(incidentlib.Text{EN: text, KO: "한국어 " + text}))
		case []incidentlib.Item:
			f.Set(reflect.ValueOf([]incidentlib.Item{{Text: incidentlib.Text{EN: "first step"}}, {Text: incidentlib.Text{EN: text}}}))
		case []string:
			f.Set(reflect.ValueOf([]string{termID}))
		case string:
			if s.Kind == incidentlib.Terms {
				f.SetString(termID)
			} else {
				f.SetString(text)
			}
		default:
			t.Fatalf("section %s: field type %s is not handled by this test", s.Key, f.Type())
		}
		return
	}
	t.Fatalf("section %s names no Case field", s.Key)
}

// TestEverySearchedSectionIsFoundAndPhraseMatched puts a phrase into one
// section of one case at a time: every section with a search field must be
// found by its words and by the quoted phrase, so what the index holds and
// what phrase matching reads cannot drift apart.
func TestEverySearchedSectionIsFoundAndPhraseMatched(t *testing.T) {
	lists := map[string][]incidentlib.Term{}
	for _, s := range incidentlib.Sections {
		if s.Kind == incidentlib.Terms {
			lists[s.Vocab] = append(lists[s.Vocab],
				incidentlib.Term{ID: "plain", Label: incidentlib.Text{EN: "plain", KO: "보통"}},
				incidentlib.Term{ID: "zq-" + s.Key, Label: incidentlib.Text{EN: "zanzibar quokka " + s.Key, KO: "잔지바르 쿼카"}})
		}
	}
	v := incidentlib.NewVocab(lists)
	n := 0
	for _, s := range incidentlib.Sections {
		if s.Search == "" {
			continue
		}
		n++
		t.Run(s.Key, func(t *testing.T) {
			base := func(id string) *incidentlib.Case {
				c := &incidentlib.Case{ID: id, Org: "Org " + id, OrgSlug: strings.ToLower(id), Date: "2024-01-01",
					RootCause: "plain", Severity: "plain", Title: incidentlib.Text{EN: "a title"}}
				for _, f := range []*[]string{&c.Domain, &c.Symptoms, &c.Components, &c.Contributing} {
					*f = []string{"plain"}
				}
				return c
			}
			holder, other := base("IL-0001"), base("IL-0002")
			setSection(t, holder, s, "zanzibar quokka "+s.Key, "zq-"+s.Key)
			// The other case holds the same words out of order: a phrase
			// must not match it.
			setSection(t, other, s, "quokka zanzibar "+s.Key, "plain")
			ix, err := search.New(v, []*incidentlib.Case{holder, other})
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"zanzibar quokka", `"zanzibar quokka"`} {
				res := mustSearch(t, ix.Public(), search.Query{Text: q, Limit: 10, NoFacets: true})
				if !contains(ids(res), "IL-0001") {
					t.Errorf("%s: %s does not find the case holding it in %s (hits %v)", s.Key, q, s.Key, ids(res))
				}
				if strings.HasPrefix(q, `"`) && contains(ids(res), "IL-0002") {
					t.Errorf("%s: %s matched the words out of order", s.Key, q)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no section is searched")
	}
}

// TestSnippetsComeFromSnippetSections checks that a snippet is cut from the
// section that matched, named by its search field.
func TestSnippetsComeFromSnippetSections(t *testing.T) {
	for _, s := range incidentlib.Sections {
		if s.Snippet == 0 {
			continue
		}
		t.Run(s.Key, func(t *testing.T) {
			c := &incidentlib.Case{ID: "IL-0001", Org: "Org", OrgSlug: "org", Date: "2024-01-01", RootCause: "x", Severity: "x",
				Title: incidentlib.Text{EN: "t"}, Summary: incidentlib.Text{EN: "nothing here"}}
			setSection(t, c, s, "the wombat quorum failed", "")
			ix, err := search.New(incidentlib.NewVocab(nil), []*incidentlib.Case{c})
			if err != nil {
				t.Fatal(err)
			}
			res := mustSearch(t, ix.Public(), search.Query{Text: "wombat quorum", Lang: "en", Limit: 1, NoFacets: true})
			if len(res.Hits) != 1 {
				t.Fatalf("no hit")
			}
			h := res.Hits[0]
			if h.SnippetFrom != s.Search || !strings.Contains(h.Snippet, "<mark>wombat</mark>") {
				t.Errorf("snippet from %q (want %q): %s", h.SnippetFrom, s.Search, h.Snippet)
			}
		})
	}
}
