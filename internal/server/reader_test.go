package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/api"
	"github.com/incidentlib/incidentlib/internal/library"
	"github.com/incidentlib/incidentlib/internal/mcpserver"
	"github.com/incidentlib/incidentlib/internal/web"
)

// retitling is a Reader beside the real library: it passes every read
// through and gives IL-0049 another title, so a face that shows the
// original reached around the Reader.
type retitling struct{ library.Reader }

const throughReader = "Seen through the Reader"

func (r retitling) Case(id string) *incidentlib.Case {
	c := r.Reader.Case(id)
	if c == nil || c.ID != "IL-0049" {
		return c
	}
	cp := *c
	cp.Title = incidentlib.Text{EN: throughReader, KO: throughReader}
	return &cp
}

// TestFacesReadThroughTheReader: the API, the pages and MCP read a case
// through the Reader they are given, not from the store or the index.
func TestFacesReadThroughTheReader(t *testing.T) {
	ts := newServer(t, nil)
	lib := ts.srv.Library()
	r := retitling{lib.Public()}
	mux := http.NewServeMux()
	api.New(r, lib.All(), lib, "http://incidentlib.test", "", slog.New(slog.DiscardHandler)).Install(mux)
	site, err := web.New(r, web.Options{BaseURL: "http://incidentlib.test"})
	if err != nil {
		t.Fatal(err)
	}
	site.Install(mux)
	mux.Handle("/mcp", mcpserver.New(r, "http://incidentlib.test", "test").Handler(true))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, path := range []string{"/api/cases/IL-0049", "/en/cases/IL-0049"} {
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		buf := make([]byte, 64<<10)
		for {
			n, err := res.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(b.String(), throughReader) {
			t.Errorf("GET %s: %d; the page does not show the Reader's title", path, res.StatusCode)
		}
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: srv.Client(), DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_incident", Arguments: map[string]any{"id": "IL-0049"}})
	if err != nil || res.IsError {
		t.Fatalf("get_incident: %v %+v", err, res)
	}
	if m, _ := res.StructuredContent.(map[string]any); m == nil || m["title"] != throughReader {
		t.Errorf("MCP get_incident does not show the Reader's title: %v", res.StructuredContent)
	}
}
