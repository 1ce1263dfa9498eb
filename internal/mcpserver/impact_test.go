package mcpserver

import (
	"context"
	"encoding/json"
	"testing"
)

// TestGetIncidentImpactInLanguage: get_incident gives each impact fact as
// one string in the asked language, and its output schema says so.
func TestGetIncidentImpactInLanguage(t *testing.T) {
	ix := realIndex(t)
	c := ix.All().Case("IL-0049")
	if c == nil || c.Impact.Scope.KO == "" || c.Impact.Scope.KO == c.Impact.Scope.EN {
		t.Fatalf("IL-0049 has no Korean impact scope of its own: %+v", c)
	}
	cs := connect(t, ix.Public())
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	for _, tl := range listed.Tools {
		if tl.Name == "get_incident" {
			if err := json.Unmarshal([]byte(jsonOf(tl.OutputSchema)), &schema); err != nil {
				t.Fatal(err)
			}
		}
	}
	var im struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema.Properties["impact"], &im); err != nil {
		t.Fatal(err)
	}
	if im.Type != "object" || len(im.Required) != 3 {
		t.Errorf("get_incident's output schema: impact = %+v, want an object with scope, users and region required", im)
	}
	for _, k := range []string{"scope", "users", "region"} {
		if got := im.Properties[k].Type; got != "string" {
			t.Errorf("get_incident's output schema: impact.%s is %v, want string", k, got)
		}
	}
	for lang, want := range map[string][3]string{
		"ko": {c.Impact.Scope.KO, c.Impact.Users.KO, c.Impact.Region.KO},
		"en": {c.Impact.Scope.EN, c.Impact.Users.EN, c.Impact.Region.EN},
	} {
		res, out, err := call(t, cs, "get_incident", map[string]any{"id": "IL-0049", "lang": lang})
		if err != nil || res.IsError {
			t.Fatalf("get_incident lang=%s: %v %s", lang, err, text(res))
		}
		got, _ := out["impact"].(map[string]any)
		for i, k := range []string{"scope", "users", "region"} {
			if got[k] != want[i] {
				t.Errorf("get_incident lang=%s: impact.%s = %#v, want %q", lang, k, got[k], want[i])
			}
		}
	}
}
