package mcpcase

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// TestIncidentHasEverySection checks that get_incident's one-language case
// carries every section the table gives an MCP name, with its text, and
// that the short view keeps exactly the short ones.
func TestIncidentHasEverySection(t *testing.T) {
	c, k := caseIL0049(t)
	if k == nil || len(k.Timeline.Events) == 0 || len(k.Remediation) == 0 {
		t.Fatal("IL-0049 should have timeline events and remediation")
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
