package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/server"
)

// TestOneParameterRule: the faces read lang, limit and offset by one rule.
// lang=EN answers as lang=en on every read of the API and MCP; a limit
// beyond the maximum is refused with the range on every route that takes
// one, never clamped; a parameter a route does not take is refused.
func TestOneParameterRule(t *testing.T) {
	// A server of its own: the test asks more than the shared one's rate
	// limit allows a client.
	ts := newServer(t, func(c *server.Config) { c.RateLimit = 0 })
	for _, path := range []string{
		"/api/cases?q=dns&limit=3",
		"/api/cases/IL-0049",
		"/api/cases/IL-0049/similar",
		"/api/topics/coredns",
		"/api/topics",
		"/api/vocab",
		"/api/stats",
	} {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		lower, upper := ts.get(t, path+sep+"lang=en"), ts.get(t, path+sep+"lang=EN")
		if lower.status != http.StatusOK || upper.status != http.StatusOK || !bytes.Equal(lower.body, upper.body) {
			t.Errorf("%s: lang=en %d and lang=EN %d answer differently", path, lower.status, upper.status)
		}
		if both := ts.get(t, path); both.status != http.StatusOK || bytes.Equal(both.body, lower.body) && !strings.HasPrefix(path, "/api/cases?") {
			t.Errorf("%s: without lang the answer (%d) is the English one; want both languages", path, both.status)
		}
		if fr := ts.get(t, path+sep+"lang=fr"); fr.status != http.StatusBadRequest || !strings.Contains(string(fr.body), `lang \"fr\" is not supported; use ko or en`) {
			t.Errorf("%s lang=fr: %d %.200s", path, fr.status, fr.body)
		}
	}
	for _, path := range []string{"/api/cases?limit=101", "/api/cases/IL-0049/similar?limit=101", "/api/topics/coredns?limit=101"} {
		r := ts.get(t, path)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "limit 101 is outside 1 to 100") {
			t.Errorf("%s: %d %.200s; want 400 naming the range", path, r.status, r.body)
		}
	}
	if r := ts.get(t, "/api/cases/IL-0049/similar?limit=100"); r.status != http.StatusOK {
		t.Errorf("similar limit=100: %d %.200s", r.status, r.body)
	}
	if r := ts.get(t, "/api/stats?limit=5"); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "this route takes lang") {
		t.Errorf("stats limit=5: %d %.200s; want 400 naming what the route takes", r.status, r.body)
	}
	var topic struct {
		Total int               `json:"total"`
		Cases []json.RawMessage `json:"cases"`
	}
	json.Unmarshal(ts.get(t, "/api/topics/coredns?limit=2&offset=1").body, &topic)
	if len(topic.Cases) != 2 || topic.Total < 3 {
		t.Errorf("topic coredns limit=2 offset=1: %d cases of %d", len(topic.Cases), topic.Total)
	}

	cs := mcpSession(t, ts)
	en, errEN := call(t, cs, "get_incident", map[string]any{"id": "IL-0049", "lang": "en"})
	up, errUp := call(t, cs, "get_incident", map[string]any{"id": "IL-0049", "lang": "EN"})
	a, _ := json.Marshal(en)
	b, _ := json.Marshal(up)
	if errEN || errUp || !bytes.Equal(a, b) {
		t.Errorf("MCP get_incident lang=en and lang=EN differ (errors %v %v): %v", errEN, errUp, up)
	}
	// The schema's maximum is the table's: the SDK refuses 101 before the
	// tool runs, as the parser would.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_incidents", Arguments: map[string]any{"query": "dns", "limit": 101}})
	if err == nil && !res.IsError {
		t.Errorf("MCP search_incidents limit=101 answered")
	}
}
