package api_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/api"
	"github.com/incidentlib/incidentlib/internal/library"
)

// oneCase is a library that holds one case; the routes this test calls use
// nothing else.
type oneCase struct {
	library.Reader
	c *incidentlib.Case
}

func (o oneCase) Case(id string) *incidentlib.Case {
	if id == o.c.ID {
		return o.c
	}
	return nil
}

// TestImpactLanguages: a case in both languages carries each impact fact as
// {en, ko}; with lang=ko or lang=en each is a plain string in that language,
// as the seed's case gives it, while the other texts keep their one language.
func TestImpactLanguages(t *testing.T) {
	c := &incidentlib.Case{
		ID: "IL-0049", Org: "Preply", Title: incidentlib.Text{EN: "DNS outage", KO: "DNS 장애"},
		Impact: incidentlib.Impact{
			Scope:  incidentlib.Text{EN: "DNS for some services", KO: "일부 서비스의 DNS"},
			Users:  incidentlib.Text{EN: "unknown", KO: incidentlib.UnknownKO},
			Region: incidentlib.Text{EN: "eu-west-1", KO: "eu-west-1 리전"},
		},
	}
	c.Normalize()
	mux := http.NewServeMux()
	api.New(oneCase{c: c}, oneCase{c: c}, nil, "http://incidentlib.test", "", slog.New(slog.DiscardHandler)).Install(mux)
	get := func(path string) map[string]any {
		t.Helper()
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 {
			t.Fatalf("GET %s = %d: %s", path, rec.Code, rec.Body)
		}
		var v map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	both := map[string]any{
		"scope":  map[string]any{"en": "DNS for some services", "ko": "일부 서비스의 DNS"},
		"users":  map[string]any{"en": "unknown", "ko": "알 수 없음"},
		"region": map[string]any{"en": "eu-west-1", "ko": "eu-west-1 리전"},
	}
	for _, tc := range []struct {
		path        string
		impact, ttl any
	}{
		{"/api/cases/IL-0049", both, map[string]any{"en": "DNS outage", "ko": "DNS 장애"}},
		{"/api/cases/IL-0049?fields=impact,title", both, map[string]any{"en": "DNS outage", "ko": "DNS 장애"}},
		{"/api/cases/IL-0049?lang=ko", map[string]any{"scope": "일부 서비스의 DNS", "users": "알 수 없음", "region": "eu-west-1 리전"}, map[string]any{"ko": "DNS 장애"}},
		{"/api/cases/IL-0049?lang=en", map[string]any{"scope": "DNS for some services", "users": "unknown", "region": "eu-west-1"}, map[string]any{"en": "DNS outage"}},
		{"/api/cases/IL-0049?lang=ko&fields=impact,title", map[string]any{"scope": "일부 서비스의 DNS", "users": "알 수 없음", "region": "eu-west-1 리전"}, map[string]any{"ko": "DNS 장애"}},
	} {
		v := get(tc.path)
		if diff := cmp.Diff(tc.impact, v["impact"]); diff != "" {
			t.Errorf("GET %s: impact (-want +got):\n%s", tc.path, diff)
		}
		if diff := cmp.Diff(tc.ttl, v["title"]); diff != "" {
			t.Errorf("GET %s: title (-want +got):\n%s", tc.path, diff)
		}
	}
}

func (oneCase) Private() bool { return false }
