package server_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/incidentlib/internal/api"
)

type openapiDoc struct {
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas map[string]map[string]any `json:"schemas"`
	} `json:"components"`
}

type operation struct {
	Parameters []struct {
		Name string `json:"name"`
		In   string `json:"in"`
	} `json:"parameters"`
	Responses map[string]struct {
		Content map[string]struct {
			Schema map[string]any `json:"schema"`
		} `json:"content"`
	} `json:"responses"`
}

func loadOpenAPI(t *testing.T, ts *testServer) openapiDoc {
	var doc openapiDoc
	r := ts.get(t, "/api/openapi.json")
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(r.body), "{{BASE_URL}}") || !strings.Contains(string(r.body), "http://incidentlib.test") {
		t.Error("the served document does not carry the base URL")
	}
	return doc
}

// recordingMux is a real ServeMux that remembers every pattern registered
// on it.
type recordingMux struct {
	*http.ServeMux
	patterns []string
}

func (m *recordingMux) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

// installedRoutes returns the API's mux and the "METHOD /path" routes its
// Install registers, leaving out what Install adds for every path
// (OPTIONS, the JSON 405) and the catch-all 404.
func installedRoutes(t *testing.T, ts *testServer) (*recordingMux, []string) {
	t.Helper()
	lib := ts.srv.Library()
	mux := &recordingMux{ServeMux: http.NewServeMux()}
	api.New(lib.Public(), lib.All(), lib, "http://incidentlib.test", testToken, slog.New(slog.DiscardHandler)).Install(mux)
	var routes []string
	for _, p := range mux.patterns {
		method, path, ok := strings.Cut(p, " ")
		if !ok || method == http.MethodOptions {
			continue
		}
		routes = append(routes, method+" "+path)
	}
	if len(routes) < 5 {
		t.Fatalf("Install registered only %v", mux.patterns)
	}
	sort.Strings(routes)
	return mux, routes
}

// TestOpenAPIMatchesRoutes: the routes Install registers are exactly the
// documented ones, each documented route reaches its own handler (not the
// catch-all 404 nor a 405), and answers through the whole server.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	ts := newServer(t, nil)
	doc := loadOpenAPI(t, ts)
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			if method == "parameters" {
				continue
			}
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	sort.Strings(documented)
	mux, registered := installedRoutes(t, ts)
	if diff := cmp.Diff(registered, documented); diff != "" {
		t.Fatalf("routes (-registered by Install +documented):\n%s", diff)
	}
	fill := strings.NewReplacer("{id}", "IL-0049", "{term}", "cilium")
	// The mux itself says which pattern serves each documented route.
	for _, route := range documented {
		method, path, _ := strings.Cut(route, " ")
		req := httptest.NewRequest(method, fill.Replace(path), nil)
		if _, pattern := mux.Handler(req); pattern != route {
			t.Errorf("%s %s is served by pattern %q, want %q", method, req.URL.Path, pattern, route)
		}
	}
	// And every route answers through the server, writes with the token.
	// DELETE goes last: before it, IL-0049 exists for every other route;
	// after it, the case is gone.
	sort.SliceStable(documented, func(i, j int) bool {
		return !strings.HasPrefix(documented[i], "DELETE ") && strings.HasPrefix(documented[j], "DELETE ")
	})
	for _, route := range documented {
		method, path, _ := strings.Cut(route, " ")
		real := fill.Replace(path)
		res := ts.do(t, method, real, "{}", auth()...)
		if res.status == 404 || res.status == 405 || strings.Contains(string(res.body), "no API route") {
			t.Errorf("%s %s: %d %.200s", method, real, res.status, res.body)
		}
	}
	if r := ts.get(t, "/api/cases/IL-0049"); r.status != 404 {
		t.Errorf("after DELETE, GET /api/cases/IL-0049 = %d, want 404", r.status)
	}
}

// TestOpenAPIParameters: each documented query parameter is accepted, and
// an undocumented one is refused.
func TestOpenAPIParameters(t *testing.T) {
	ts := readOnlyServer(t)
	doc := loadOpenAPI(t, ts)
	samples := map[string]string{"q": "dns", "lang": "en", "domain": "kubernetes", "symptoms": "high-error-rate", "root_cause": "config-change",
		"components": "coredns", "components_all": "coredns,conntrack", "contributing": "retry-storm", "severity": "major", "org": "datadog", "year_from": "2019", "year_to": "2025",
		"reviewed": "false", "facets": "true", "sort": "date", "offset": "0", "limit": "5", "private": "false", "fields": "id,title"}
	for path, ops := range doc.Paths {
		raw, ok := ops["get"]
		if !ok {
			continue
		}
		var op operation
		json.Unmarshal(raw, &op)
		real := strings.NewReplacer("{id}", "IL-0049", "{term}", "cilium").Replace(path)
		for _, p := range op.Parameters {
			if p.In != "query" {
				continue
			}
			v, ok := samples[p.Name]
			if !ok {
				t.Errorf("no sample value for documented parameter %s", p.Name)
				continue
			}
			if r := ts.get(t, real+"?"+url.Values{p.Name: {v}}.Encode()); r.status != 200 {
				t.Errorf("GET %s?%s=%s: %d %.200s", path, p.Name, v, r.status, r.body)
			}
		}
		if r := ts.get(t, real+"?undocumented=1"); r.status != 400 {
			t.Errorf("GET %s accepts an undocumented parameter: %d", path, r.status)
		}
	}
}

// checkShape walks a JSON value against a schema: every key the value has
// must be a documented property (or fit additionalProperties), every
// required property must be present, types must match.
func checkShape(t *testing.T, where string, v any, schema map[string]any, schemas map[string]map[string]any, seen map[string]bool) {
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		seen[name] = true
		checkShape(t, where, v, schemas[name], schemas, seen)
		return
	}
	types := map[string]bool{}
	switch ty := schema["type"].(type) {
	case string:
		types[ty] = true
	case []any:
		for _, x := range ty {
			types[x.(string)] = true
		}
	}
	switch x := v.(type) {
	case nil:
		if len(types) > 0 && !types["null"] {
			t.Errorf("%s: null, schema says %v", where, schema["type"])
		}
	case string:
		if len(types) > 0 && !types["string"] {
			t.Errorf("%s: string, schema says %v", where, schema["type"])
		}
	case float64:
		if len(types) > 0 && !types["number"] && !types["integer"] {
			t.Errorf("%s: number, schema says %v", where, schema["type"])
		}
	case bool:
		if len(types) > 0 && !types["boolean"] {
			t.Errorf("%s: boolean, schema says %v", where, schema["type"])
		}
	case []any:
		if !types["array"] {
			t.Errorf("%s: array, schema says %v", where, schema["type"])
			return
		}
		items, _ := schema["items"].(map[string]any)
		for i, e := range x {
			if i > 30 {
				break
			}
			checkShape(t, fmt.Sprintf("%s[%d]", where, i), e, items, schemas, seen)
		}
	case map[string]any:
		if !types["object"] {
			t.Errorf("%s: object, schema says %v", where, schema["type"])
			return
		}
		props, _ := schema["properties"].(map[string]any)
		addl := schema["additionalProperties"]
		for k, val := range x {
			if ps, ok := props[k].(map[string]any); ok {
				checkShape(t, where+"."+k, val, ps, schemas, seen)
				continue
			}
			switch a := addl.(type) {
			case map[string]any:
				checkShape(t, where+"."+k, val, a, schemas, seen)
			case bool:
				if !a {
					t.Errorf("%s: field %q is not documented", where, k)
				}
			default:
				if props != nil {
					t.Errorf("%s: field %q is not documented", where, k)
				}
			}
		}
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if _, ok := x[r.(string)]; !ok {
					t.Errorf("%s: required field %q missing", where, r)
				}
			}
		}
	}
}

// TestOpenAPIFields: real answers of every GET route fit their documented
// schemas, with nothing undocumented.
func TestOpenAPIFields(t *testing.T) {
	ts := readOnlyServer(t)
	doc := loadOpenAPI(t, ts)
	seen := map[string]bool{}
	for _, tc := range []struct{ path, real, status string }{
		{"/api/cases", "/api/cases?q=conntrack&limit=100&lang=en", "200"},
		{"/api/cases", "/api/cases?limit=100", "200"},
		{"/api/cases", "/api/cases?limit=500", "400"},
		{"/api/cases/{id}", "/api/cases/IL-0461", "200"},
		{"/api/cases/{id}", "/api/cases/IL-9999", "404"},
		{"/api/cases/{id}/similar", "/api/cases/IL-0195/similar?limit=50", "200"},
		{"/api/topics", "/api/topics", "200"},
		{"/api/topics/{term}", "/api/topics/coredns", "200"},
		{"/api/topics/{term}", "/api/topics/nope", "404"},
		{"/api/vocab", "/api/vocab", "200"},
		{"/api/stats", "/api/stats", "200"},
	} {
		var op operation
		json.Unmarshal(doc.Paths[tc.path]["get"], &op)
		resp, ok := op.Responses[tc.status]
		if !ok {
			t.Errorf("GET %s has no documented %s", tc.path, tc.status)
			continue
		}
		r := ts.get(t, tc.real)
		if fmt.Sprint(r.status) != tc.status {
			t.Errorf("GET %s = %d, want %s", tc.real, r.status, tc.status)
			continue
		}
		var v any
		json.Unmarshal(r.body, &v)
		schema := resp.Content["application/json"].Schema
		if schema == nil && tc.status != "200" {
			schema = map[string]any{"$ref": "#/components/schemas/Error"}
		}
		checkShape(t, "GET "+tc.real, v, schema, doc.Components.Schemas, seen)
	}
	// Every schema is used by some answer (ReviewRequest is a request body).
	for name := range doc.Components.Schemas {
		if !seen[name] && name != "ReviewRequest" {
			t.Errorf("schema %s is documented but no answer uses it", name)
		}
	}
}
