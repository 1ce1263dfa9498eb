package mcpcase

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/incidentlib/incidentlib"
)

// TestSectionWithoutAField: a prose and an items section that Incident has
// no field for reach get_incident's answer from their table rows alone,
// after the fields, with their properties in the output schema, and the
// answer validates against it.
func TestSectionWithoutAField(t *testing.T) {
	_, k := caseIL0049(t)
	// Rows like lessons and remediation under names Incident lacks.
	saved := incidentlib.Sections
	t.Cleanup(func() { incidentlib.Sections = saved })
	// The table's own More sections (none while Incident has a field for
	// every section), then the two added here.
	wantMore := append(MoreNames(), "remediation_again", "lessons_again")
	added := slices.Clone(saved)
	for _, s := range saved {
		switch s.Key {
		case "lessons":
			s.MCP = "lessons_again"
		case "remediation":
			s.MCP = "remediation_again"
		default:
			continue
		}
		added = append(added, s)
	}
	incidentlib.Sections = added
	if got := MoreNames(); !slices.Equal(got, wantMore) {
		t.Fatalf("MoreNames = %v, want %v", got, wantMore)
	}
	inc := Project(k, "en", "", "")
	b, err := json.Marshal(inc)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if m["lessons_again"] != k.Lessons.EN || m["lessons"] != k.Lessons.EN {
		t.Errorf("lessons_again = %v, want the lessons %q", m["lessons_again"], k.Lessons.EN)
	}
	if items, _ := m["remediation_again"].([]any); len(items) != len(k.Remediation) || items[0] != k.Remediation[0].Text.EN {
		t.Errorf("remediation_again = %v, want the %d remediation items", m["remediation_again"], len(k.Remediation))
	}
	schema, err := Schema[Incident]()
	if err != nil {
		t.Fatal(err)
	}
	if p := schema.Properties["lessons_again"]; p == nil || p.Type != "string" {
		t.Errorf("schema property lessons_again = %+v, want a string", p)
	}
	if p := schema.Properties["remediation_again"]; p == nil || p.Type != "array" {
		t.Errorf("schema property remediation_again = %+v, want an array", p)
	}
	resolved, err := schema.Resolve(&jsonschema.ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := resolved.Validate(m); err != nil {
		t.Errorf("the answer does not match its schema: %v", err)
	}
	// The short view keeps only short sections: neither is.
	short, _ := json.Marshal(Project(k, "en", ViewSummary, ""))
	var sm map[string]any
	json.Unmarshal(short, &sm)
	if sm["lessons_again"] != nil || sm["remediation_again"] != nil {
		t.Errorf("the summary view carries a long section: %s", short)
	}
}
