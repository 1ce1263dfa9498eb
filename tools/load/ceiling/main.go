// Command ceiling is the machine's ceiling for the load runs: a net/http
// server that answers GET /fixed with a fixed 4 KB body, and an MCP server
// on the same SDK and options as incidentlib's (stateless Streamable HTTP)
// with one trivial tool, at /mcp. tools/load/run.sh drives it just before
// and just after incidentlib serve, with the same wrk settings.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoInput struct {
	Query string `json:"query" jsonschema:"any text"`
	Limit int    `json:"limit,omitempty" jsonschema:"ignored"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	jsonResponse := flag.Bool("mcp-json", false, "answer MCP calls as application/json instead of SSE (as serve --mcp-json)")
	flag.Parse()
	body := []byte(`{"fixed":"` + strings.Repeat("x", 4096-13) + `"}`)
	srv := mcp.NewServer(&mcp.Implementation{Name: "ceiling", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "search_incidents", Description: "answers ok"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /fixed", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless: true, JSONResponse: *jsonResponse, MaxRequestBodyBytes: 1 << 20,
	}))
	log.Printf("listening on %s", *addr)
	log.Fatal(http.ListenAndServe(*addr, mux))
}
