package server_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/search"
)

// TestWeakNoteEveryFace: the weak-match note is on the JSON API's notes,
// on the MCP search tool's structured notes and its text, and on the web
// page, for a question no case answers and a Java stack trace; and on none
// of them for a word and a kubelet log line whose cases are in the
// library.
func TestWeakNoteEveryFace(t *testing.T) {
	ts := readOnlyServer(t)
	cs := mcpSession(t, ts)
	for _, tc := range []struct {
		q    string
		weak bool
	}{
		{"how do I bake bread for a wedding", true},
		{"Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke \"com.acme.billing.Invoice.getTotal()\" because \"invoice\" is null\n    at com.acme.billing.InvoiceService.render(InvoiceService.java:88)", true},
		{"conntrack", false},
		{"E1202 05:40:21.123456    2188 kubelet.go:2185] \"Skipping pod synchronization\" err=\"PLEG is not healthy: pleg was last seen active 3m12s ago\"", false},
	} {
		short := strings.SplitN(tc.q, "\n", 2)[0][:min(40, len(tc.q))]
		// The API.
		m := ts.get(t, "/api/cases?limit=3&q="+url.QueryEscape(tc.q)).json(t)
		notes, _ := m["notes"].([]any)
		api := false
		for _, n := range notes {
			api = api || strings.HasPrefix(n.(string), search.WeakNote)
		}
		// MCP: the structured notes and the text a host shows.
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_incidents", Arguments: map[string]any{"query": tc.q, "limit": 3}})
		if err != nil || res.IsError {
			t.Fatalf("%q: search_incidents: %v %v", short, err, res)
		}
		out, _ := res.StructuredContent.(map[string]any)
		mcpNote := false
		if ns, ok := out["notes"].([]any); ok {
			for _, n := range ns {
				mcpNote = mcpNote || strings.HasPrefix(n.(string), search.WeakNote)
			}
		}
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		mcpText := strings.Contains(text, search.WeakNote)
		// The page.
		page := strings.Contains(string(ts.get(t, "/en/cases?q="+url.QueryEscape(tc.q)).body), `<span class="weak-note">`)
		if api != tc.weak || mcpNote != tc.weak || mcpText != tc.weak || page != tc.weak {
			t.Errorf("%q: weak note on the API %v, MCP notes %v, MCP text %v, the page %v; want %v on each", short, api, mcpNote, mcpText, page, tc.weak)
		}
	}
}
