package incidentlib

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestImpactJSON(t *testing.T) {
	both := Impact{Scope: Text{EN: "API down", KO: "API 중단"}, Users: Text{EN: "unknown", KO: UnknownKO}, Region: Text{EN: "us-east-1", KO: "us-east-1 리전"}}
	b, err := json.Marshal(both)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"scope":{"en":"API down","ko":"API 중단"},"users":{"en":"unknown","ko":"알 수 없음"},"region":{"en":"us-east-1","ko":"us-east-1 리전"}}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var back Impact
	if err := json.Unmarshal(b, &back); err != nil || back != both {
		t.Errorf("Unmarshal(Marshal) = %+v, %v; want %+v", back, err, both)
	}
	// A case stored before impact had both languages: plain strings are
	// the English text.
	var old Impact
	if err := json.Unmarshal([]byte(`{"scope":"API down","users":"unknown","region":null}`), &old); err != nil {
		t.Fatal(err)
	}
	if want := (Impact{Scope: Text{EN: "API down"}, Users: Text{EN: "unknown"}}); old != want {
		t.Errorf("old form = %+v, want %+v", old, want)
	}
	for _, bad := range []string{`{"scope":{"en":"x","fr":"y"}}`, `{"scope":1}`, `{"scope":"x","colour":"red"}`} {
		if err := json.Unmarshal([]byte(bad), &old); err == nil {
			t.Errorf("Unmarshal(%s) = nil error, want one", bad)
		}
	}
	if err := json.Unmarshal([]byte(`{"scope":{"en":"x","fr":"y"}}`), &old); err == nil || !strings.Contains(err.Error(), "impact.scope") {
		t.Errorf("error %v does not name impact.scope", err)
	}
}

func TestIsUnknown(t *testing.T) {
	for s, want := range map[string]bool{"": true, " unknown ": true, "Unknown": true, UnknownKO: true, "us-east-1": false, "unknown (China not affected)": false, "알 수 없음(중국 제외)": false} {
		if got := IsUnknown(s); got != want {
			t.Errorf("IsUnknown(%q) = %v, want %v", s, got, want)
		}
	}
}
