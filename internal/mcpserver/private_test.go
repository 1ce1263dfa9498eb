package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
)

// TestNoPrivateCaseThroughMCP: over an index that holds a private case,
// no tool or resource shows it, its id, its organisation or its words, and
// the server refuses to be built on a Reader that shows private cases.
func TestNoPrivateCaseThroughMCP(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	p := *c.Cases[0]
	p.ID, p.Private = "IL-31337", true
	p.Related, p.RecurrenceOf = nil, nil
	p.Org, p.OrgSlug = "Hush Corp", "hush-corp"
	p.Title.EN += " zebracorn"
	p.Title.KO += " zebracorn"
	p.Summary.EN += " zebracorn"
	ix, err := search.New(c.Vocab, append(append([]*incidentlib.Case{}, c.Cases...), &p))
	if err != nil {
		t.Fatal(err)
	}

	func() {
		defer func() {
			if recover() == nil {
				t.Error("New accepted a Reader that shows private cases")
			}
		}()
		New(ix.All(), "https://incidents.example", "test")
	}()

	cs := connect(t, ix.Public())
	// A refusal may repeat the id it was asked for; nothing else of the
	// case may appear.
	leaks := func(what, s string, asked bool) {
		t.Helper()
		for _, secret := range []string{"IL-31337", "zebracorn", "Hush Corp", "hush-corp"} {
			if asked && secret == "IL-31337" {
				continue
			}
			if strings.Contains(s, secret) {
				t.Errorf("%s shows %q from a private case: %.300s", what, secret, s)
			}
		}
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"get_incident", map[string]any{"id": "IL-31337"}},
		{"search_incidents", map[string]any{"query": "zebracorn"}},
		{"search_incidents", map[string]any{"query": "zebracorn", "org": []string{"Hush Corp"}}},
		{"list_incidents", map[string]any{"limit": 50}},
		{"similar_incidents", map[string]any{"id": "IL-31337"}},
		{"similar_incidents", map[string]any{"text": "zebracorn " + p.Summary.EN}},
		{"get_topic", map[string]any{"term": c.Cases[0].RootCause}},
	} {
		res, _, err := call(t, cs, tc.tool, tc.args)
		if err != nil {
			leaks(tc.tool+" error", err.Error(), tc.args["id"] != nil)
			continue
		}
		leaks(tc.tool, text(res), tc.args["id"] != nil)
	}
	if res, _, err := call(t, cs, "get_incident", map[string]any{"id": "IL-31337"}); err == nil && !res.IsError {
		t.Errorf("get_incident IL-31337 (private) answered: %.300s", text(res))
	}
	r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "incident://IL-31337"})
	if err == nil {
		t.Errorf("incident://IL-31337 (private) answered: %.300s", r.Contents[0].Text)
	}

	// The comparison can fail: the same server over every case shows it.
	all := New(ix.Public(), "https://incidents.example", "test")
	all.ix = ix.All()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := all.srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs2.Close(); ss.Wait() }()
	if res, _, err := call(t, cs2, "get_incident", map[string]any{"id": "IL-31337"}); err != nil || res.IsError || !strings.Contains(text(res), "zebracorn") {
		t.Errorf("over every case get_incident IL-31337 does not show it (err %v): the checks above could not fail", err)
	}
}
