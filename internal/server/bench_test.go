package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkAPISearch measures one search through the whole handler stack
// (middleware, API, index, JSON), without a network.
func BenchmarkAPISearch(b *testing.B) {
	ts := newServer(b, nil)
	h := ts.srv.Handler()
	queries := []string{"/api/cases?q=kube-apiserver+OOM", "/api/cases?q=conntrack_allowance_exceeded", "/api/cases?q=webhook+timeout&components=admission-webhook"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodGet, queries[i%len(queries)], nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkAPISearchJudged runs the judged relevance queries (Korean,
// English, pasted evidence) through the whole handler stack, each in a few
// forms an agent or a page sends, so that no handful of repeated queries
// dominates.
func BenchmarkAPISearchJudged(b *testing.B) {
	ts := newServer(b, nil)
	h := ts.srv.Handler()
	urls := judgedURLs(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodGet, urls[i%len(urls)], nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(urls[i%len(urls)], w.Code, w.Body.String())
		}
	}
}

// BenchmarkMCPSearchJudged calls search_incidents over stateless
// Streamable HTTP through the whole handler stack with the judged queries.
func BenchmarkMCPSearchJudged(b *testing.B) {
	ts := newServer(b, nil)
	h := ts.srv.Handler()
	callJudged(b, h)
}

// BenchmarkMCPTrivialTool is the MCP ceiling beside BenchmarkMCPSearchJudged:
// a server on the same SDK and options with one tool that answers "ok",
// called with the same bodies.
func BenchmarkMCPTrivialTool(b *testing.B) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "ceiling", Version: "1"}, nil)
	type in struct {
		Query string `json:"query"`
		Limit int    `json:"limit,omitempty"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "search_incidents", Description: "answers ok"}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, MaxRequestBodyBytes: 1 << 20})
	callJudged(b, h)
}

// callJudged calls search_incidents on h with each judged query in turn.
func callJudged(b *testing.B, h http.Handler) {
	var bodies []string
	for _, u := range judgedURLs(b) {
		q, _ := url.ParseQuery(strings.TrimPrefix(u, "/api/cases?"))
		arg, _ := json.Marshal(q.Get("q"))
		bodies = append(bodies, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_incidents","arguments":{"query":`+string(arg)+`,"limit":5}}}`)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(bodies[i%len(bodies)]))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"result"`) {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}
