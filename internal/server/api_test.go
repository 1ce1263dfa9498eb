package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/api"
	"github.com/incidentlib/incidentlib/internal/server"
)

func TestReadRoutes(t *testing.T) {
	ts := readOnlyServer(t)
	// Facets only when asked for: the counts are most of an answer.
	plain, counted := ts.get(t, "/api/cases?fields=id&limit=1"), ts.get(t, "/api/cases?fields=id&limit=1&facets=true")
	if _, has := plain.json(t)["facets"]; has || len(plain.body)*10 > len(counted.body) {
		t.Errorf("/api/cases?fields=id&limit=1 is %d bytes (facets %v); with facets=true %d", len(plain.body), has, len(counted.body))
	}
	t.Logf("/api/cases?fields=id&limit=1: %d bytes; with facets=true: %d bytes", len(plain.body), len(counted.body))
	if r := ts.get(t, "/api/cases?facets=maybe"); r.status != 400 || !strings.Contains(string(r.body), "facets must be true or false") {
		t.Errorf("facets=maybe: %d %s", r.status, r.body)
	}
	for _, tc := range []struct {
		path string
		keys []string
	}{
		{"/api/cases?facets=true", []string{"items", "total", "facets"}},
		{"/api/cases?q=conntrack&components=conntrack&lang=en&limit=5&facets=1", []string{"items", "total", "facets"}},
		{"/api/cases/IL-0049", []string{"id", "title", "summary", "symptoms_text", "trigger", "detection", "lessons", "remediation", "action_items", "sources", "impact", "timeline", "review", "related", "recurrence_of", "docs", "date_kind", "updated_at", "url", "org_slug"}},
		{"/api/cases/il-0049", []string{"id"}},
		{"/api/cases/IL-0049/similar", []string{"id", "items"}},
		{"/api/topics", []string{"items"}},
		{"/api/topics/cilium", []string{"vocab", "term", "cases", "co_occurring", "by_year"}},
		{"/api/vocab", []string{"domain", "components", "root_cause"}},
		{"/api/stats", []string{"cases", "by_year", "by_root_cause"}},
		{"/api/openapi.json", []string{"openapi", "paths"}},
		{"/healthz", []string{"status"}},
		{"/readyz", []string{"status", "database"}},
	} {
		r := ts.get(t, tc.path)
		if r.status != 200 {
			t.Errorf("GET %s = %d: %.200s", tc.path, r.status, r.body)
			continue
		}
		m := r.json(t)
		for _, k := range tc.keys {
			if _, ok := m[k]; !ok {
				t.Errorf("GET %s lacks %q", tc.path, k)
			}
		}
		if strings.HasPrefix(tc.path, "/api/") && r.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: no open CORS header", tc.path)
		}
	}
	var c map[string]any
	json.Unmarshal(ts.get(t, "/api/cases/IL-0049").body, &c)
	if c["url"] != "http://incidentlib.test/cases/IL-0049" {
		t.Errorf("url = %v", c["url"])
	}
	if r := ts.get(t, "/metrics"); r.status != 200 || !strings.Contains(string(r.body), "incidentlib_http_requests_total") || !strings.Contains(string(r.body), "incidentlib_index_cases") {
		t.Errorf("/metrics lacks the request counter or index size")
	}
}

func TestETagAndGzip(t *testing.T) {
	ts := readOnlyServer(t)
	for _, path := range []string{"/api/cases/IL-0049", "/api/cases?q=dns", "/api/vocab", "/api/stats", "/api/topics/coredns", "/api/cases/IL-0049/similar", "/api/topics", "/api/openapi.json"} {
		r := ts.get(t, path)
		etag := r.header.Get("ETag")
		if etag == "" {
			t.Errorf("%s: no ETag", path)
			continue
		}
		if r2 := ts.get(t, path, "If-None-Match", etag); r2.status != http.StatusNotModified || len(r2.body) != 0 {
			t.Errorf("%s with If-None-Match: %d", path, r2.status)
		}
		if r3 := ts.get(t, path, "If-None-Match", `"other"`); r3.status != 200 {
			t.Errorf("%s with another ETag: %d", path, r3.status)
		}
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/cases?q=dns", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("no gzip: %v", res.Header)
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.NewDecoder(zr).Decode(&m); err != nil || m["total"] == nil {
		t.Fatalf("gzipped body is not the search answer: %v", err)
	}
	// The weak tag of the gzipped answer revalidates too.
	req2, _ := http.NewRequest("GET", ts.URL+"/api/cases?q=dns", nil)
	req2.Header.Set("Accept-Encoding", "gzip")
	req2.Header.Set("If-None-Match", res.Header.Get("ETag"))
	res2, err := http.DefaultTransport.RoundTrip(req2)
	if err != nil {
		t.Fatal(err)
	}
	res2.Body.Close()
	if res2.StatusCode != http.StatusNotModified {
		t.Errorf("gzip revalidation: %d", res2.StatusCode)
	}
}

func TestCORSPreflight(t *testing.T) {
	ts := readOnlyServer(t)
	r := ts.do(t, "OPTIONS", "/api/cases", "", "Origin", "https://example.com", "Access-Control-Request-Method", "GET")
	if r.status != http.StatusNoContent || !strings.Contains(r.header.Get("Access-Control-Allow-Methods"), "GET") {
		t.Errorf("preflight: %d %v", r.status, r.header)
	}
	// A browser drops the GET unless the preflight allows the origin and
	// the conditional header.
	if r.header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(r.header.Get("Access-Control-Allow-Headers"), "If-None-Match") {
		t.Errorf("preflight does not allow the origin or If-None-Match: %v", r.header)
	}
	g := ts.get(t, "/api/cases/IL-0049", "Origin", "https://example.com")
	if g.header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(g.header.Get("Access-Control-Expose-Headers"), "ETag") {
		t.Errorf("GET does not expose ETag to scripts: %v", g.header)
	}
	if g.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("no X-Content-Type-Options: nosniff on an API answer")
	}
}

// TestMetricsMethodLabels: invented method names must not become metric
// series, or a client could grow /metrics without bound.
func TestMetricsMethodLabels(t *testing.T) {
	ts := readOnlyServer(t)
	for i := 0; i < 40; i++ {
		ts.do(t, fmt.Sprintf("INVENTED%03dMETHOD", i), "/api/cases", "")
	}
	m := string(ts.get(t, "/metrics").body)
	if strings.Contains(m, "INVENTED") {
		t.Errorf("invented methods became metric labels")
	}
	if !strings.Contains(m, `method="other"`) {
		t.Errorf("invented methods are not counted as other")
	}
}

// TestTokenAnswersArePrivate: with the token, an answer may hold private
// cases, so no shared cache may keep it, on every read route.
func TestTokenAnswersArePrivate(t *testing.T) {
	ts := readOnlyServer(t)
	for _, p := range []string{"/api/cases", "/api/cases/IL-0049", "/api/cases/IL-0049/similar", "/api/topics/conntrack", "/api/topics", "/api/vocab", "/api/stats"} {
		r := ts.get(t, p, auth()...)
		if r.status != 200 || r.header.Get("Cache-Control") != "private, no-store" {
			t.Errorf("%s with the token: %d, Cache-Control %q", p, r.status, r.header.Get("Cache-Control"))
		}
		pub := ts.get(t, p)
		if !strings.HasPrefix(pub.header.Get("Cache-Control"), "public") || !strings.Contains(strings.Join(pub.header.Values("Vary"), ","), "Authorization") {
			t.Errorf("%s without the token: Cache-Control %q, Vary %q", p, pub.header.Get("Cache-Control"), pub.header.Values("Vary"))
		}
	}
	// The scheme name is case-insensitive.
	if r := ts.get(t, "/api/cases", "Authorization", "bearer "+testToken); r.header.Get("Cache-Control") != "private, no-store" {
		t.Errorf("a lower-case bearer scheme is not taken as the token")
	}
}

// TestMalformedRequests sends requests a client can get wrong; each must get
// a 4xx JSON error with a code and a message, never a 5xx.
func TestMalformedRequests(t *testing.T) {
	ts := readOnlyServer(t)
	big := `{"id":"IL-0049","summary":{"en":"` + strings.Repeat("a", 2<<20) + `"}}`
	good := string(ts.get(t, "/api/cases/IL-0049").body)
	tests := []struct {
		method, path, body string
		headers            []string
		want               int
	}{
		{"GET", "/api/cases/IL-9999", "", nil, 404},
		{"GET", "/api/cases/nope", "", nil, 400},
		{"GET", "/api/cases/IL-00490", "", nil, 400},
		{"GET", "/api/cases/%00", "", nil, 400},
		{"GET", "/api/cases/..%2f..%2fetc%2fpasswd", "", nil, 400},
		{"GET", "/api/cases/%ff%fe", "", nil, 400},
		{"GET", "/api/cases/IL-0049/similar?limit=0", "", nil, 400},
		{"GET", "/api/cases/IL-0049/similar?limit=abc", "", nil, 400},
		{"GET", "/api/cases/IL-0049/similar?limit=9999", "", nil, 400},
		{"GET", "/api/cases/IL-9999/similar", "", nil, 404},
		{"GET", "/api/cases/IL-0049?foo=bar", "", nil, 400},
		{"GET", "/api/cases?components=flux-capacitor", "", nil, 400},
		{"GET", "/api/cases?colour=blue", "", nil, 400},
		{"GET", "/api/cases?limit=abc", "", nil, 400},
		{"GET", "/api/cases?offset=1e9x", "", nil, 400},
		{"GET", "/api/cases?sort=sideways", "", nil, 400},
		{"GET", "/api/cases?lang=fr", "", nil, 400},
		{"GET", "/api/cases?reviewed=maybe", "", nil, 400},
		{"GET", "/api/cases?year_from=2024&year_to=2019", "", nil, 400},
		{"GET", "/api/cases?year_from=soon", "", nil, 400},
		{"GET", "/api/cases?q=%ff%fe", "", nil, 400},
		{"GET", "/api/cases?q=%zz", "", nil, 400},
		{"GET", "/api/cases?root_cause=%3Cscript%3E", "", nil, 400},
		{"GET", "/api/topics/no-such-term", "", nil, 404},
		{"GET", "/api/topics/cilium?lang=xx", "", nil, 400},
		{"GET", "/api/vocab?x=1", "", nil, 400},
		{"GET", "/api/stats?x=1", "", nil, 400},
		{"GET", "/api/nothing", "", nil, 404},
		{"GET", "/api/", "", nil, 404},
		{"GET", "/api/cases/IL-0049/similar/extra", "", nil, 404},
		{"POST", "/api/cases", "{}", nil, 405},
		{"DELETE", "/api/cases", "", nil, 405},
		{"PATCH", "/api/cases/IL-0049", "{}", nil, 405},
		{"POST", "/api/vocab", "{}", nil, 405},
		{"PUT", "/api/stats", "{}", nil, 405},
		{"GET", "/api/cases/IL-0049/review", "", nil, 405},
		{"PUT", "/api/cases/IL-0049", good, nil, 401},
		{"PUT", "/api/cases/IL-0049", good, []string{"Authorization", "Bearer wrong"}, 401},
		{"PUT", "/api/cases/IL-0049", good, []string{"Authorization", "Basic " + testToken}, 401},
		{"DELETE", "/api/cases/IL-0049", "", nil, 401},
		{"POST", "/api/cases/IL-0049/review", `{"reviewed_by":"x"}`, nil, 401},
		{"PUT", "/api/cases/IL-0049", "", auth(), 400},
		{"PUT", "/api/cases/IL-0049", "{", auth(), 400},
		{"PUT", "/api/cases/IL-0049", "[1,2]", auth(), 400},
		{"PUT", "/api/cases/IL-0049", `{"id":"IL-0049","colour":"blue"}`, auth(), 400},
		{"PUT", "/api/cases/IL-0049", `{"id":"IL-0050"}`, auth(), 400},
		{"PUT", "/api/cases/IL-0049", `{"id":"IL-0049"}`, auth(), 400},
		{"PUT", "/api/cases/IL-0049", good + good, auth(), 400},
		{"PUT", "/api/cases/IL-0049", "\xff\xfe{}", auth(), 400},
		{"PUT", "/api/cases/IL-0049", good, append(auth(), "Content-Type", "text/plain"), 400},
		{"PUT", "/api/cases/IL-0049?private=maybe", good, auth(), 400},
		{"PUT", "/api/cases/IL-0049", big, auth(), 413},
		{"PUT", "/api/cases/bad-id", good, auth(), 400},
		{"POST", "/api/cases/IL-0049/review", `{}`, auth(), 400},
		{"POST", "/api/cases/IL-0049/review", `{"reviewed_by": 5}`, auth(), 400},
		{"POST", "/api/cases/IL-9999/review", `{"reviewed_by":"A. Person"}`, auth(), 404},
		{"DELETE", "/api/cases/IL-9999", "", auth(), 404},
		{"POST", "/mcp", "{not json", []string{"Accept", "application/json, text/event-stream"}, 400},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, []string{"Accept", "application/json, text/event-stream"}, 200},
		{"GET", "/nope-page", "", nil, 404},
	}
	if len(tests) < 50 {
		t.Fatalf("only %d malformed requests", len(tests))
	}
	for _, tc := range tests {
		r := ts.do(t, tc.method, tc.path, tc.body, tc.headers...)
		name := fmt.Sprintf("%s %.60s", tc.method, tc.path)
		if r.status >= 500 {
			t.Errorf("%s: %d %.200s", name, r.status, r.body)
			continue
		}
		if r.status != tc.want {
			t.Errorf("%s: %d, want %d: %.200s", name, r.status, tc.want, r.body)
		}
		if tc.path == "/mcp" {
			// A body that is no JSON-RPC message is refused with 400 and
			// a word on why; a call JSON-RPC can answer gets its error.
			switch {
			case r.status < 400 && !strings.Contains(string(r.body), `"error":{"code":`):
				t.Errorf("%s: %d without a JSON-RPC error: %.200s", name, r.status, r.body)
			case r.status >= 400 && len(bytes.TrimSpace(r.body)) == 0:
				t.Errorf("%s: %d with an empty body", name, r.status)
			}
			continue
		}
		if !strings.HasPrefix(tc.path, "/api/") {
			continue // pages answer with the HTML 404 page
		}
		var e api.ErrorBody
		if err := json.Unmarshal(r.body, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
			t.Errorf("%s: not a JSON error: %.200s", name, r.body)
		}
	}
}

func TestRateLimit(t *testing.T) {
	ts := newServer(t, func(c *server.Config) { c.RateLimit = 1; c.RateBurst = 3 })
	limited := 0
	for i := 0; i < 8; i++ {
		r := ts.get(t, "/api/cases/IL-0049")
		if r.status == http.StatusTooManyRequests {
			limited++
			if r.header.Get("Retry-After") == "" || r.json(t)["error"] == nil {
				t.Errorf("429 without Retry-After or JSON error")
			}
			if r.header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "Retry-After") {
				t.Errorf("a 429 hides Retry-After from scripts of other origins: %v", r.header)
			}
		}
	}
	if limited == 0 {
		t.Fatal("8 quick requests at 1/s with a burst of 3 were never limited")
	}
	// On /mcp the 429 is a JSON-RPC error an MCP client can read.
	mcpLimited := false
	for i := 0; i < 8 && !mcpLimited; i++ {
		r := ts.do(t, "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "Accept", "application/json, text/event-stream")
		if r.status == http.StatusTooManyRequests {
			mcpLimited = true
			var e struct {
				JSONRPC string                   `json:"jsonrpc"`
				Error   struct{ Message string } `json:"error"`
			}
			if err := json.Unmarshal(r.body, &e); err != nil || e.JSONRPC != "2.0" || e.Error.Message == "" {
				t.Errorf("a 429 on /mcp is not a JSON-RPC error: %s", r.body)
			}
		}
	}
	if !mcpLimited {
		t.Error("eight quick MCP calls were never limited")
	}
	// Health and metrics are never limited.
	for i := 0; i < 5; i++ {
		if r := ts.get(t, "/healthz"); r.status != 200 {
			t.Errorf("/healthz limited: %d", r.status)
		}
	}
}

// TestOneLanguage: lang on the routes that answer in both languages gives
// every text in the one asked for; a route without parameters says so.
func TestOneLanguage(t *testing.T) {
	ts := readOnlyServer(t)
	for _, tt := range []struct{ path, keep, drop string }{
		{"/api/cases/IL-0049?lang=en", "en", "ko"},
		{"/api/cases/IL-0049?lang=ko", "ko", "en"},
		{"/api/cases/IL-0049/similar?lang=en&limit=3", "en", "ko"},
		{"/api/topics?lang=ko", "ko", "en"},
		{"/api/vocab?lang=en", "en", "ko"},
	} {
		r := ts.get(t, tt.path)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", tt.path, r.status, r.body)
		}
		body := string(r.body)
		if !strings.Contains(body, `"`+tt.keep+`":`) || strings.Contains(body, `"`+tt.drop+`":`) {
			t.Errorf("%s keeps %q texts or lacks %q ones: %.300s", tt.path, tt.drop, tt.keep, body)
		}
	}
	both := string(ts.get(t, "/api/cases/IL-0049").body)
	if !strings.Contains(both, `"en":`) || !strings.Contains(both, `"ko":`) {
		t.Error("without lang the case is not in both languages")
	}
	if r := ts.get(t, "/api/cases/IL-0049?lang=fr"); r.status != 400 {
		t.Errorf("lang=fr: %d", r.status)
	}
	if r := ts.get(t, "/api/stats?lang=en&x=1"); r.status != 400 || !strings.Contains(string(r.body), `unknown parameter \"x\"; this route takes lang`) {
		t.Errorf("an unknown parameter on stats, which takes lang only: %d %s", r.status, r.body)
	}
	if r := ts.get(t, "/api/openapi.json?x=1"); r.status != 400 || !strings.Contains(string(r.body), "takes no parameters") {
		t.Errorf("an unknown parameter on a route without any: %d %s", r.status, r.body)
	}
}
