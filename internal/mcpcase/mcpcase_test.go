package mcpcase_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
	"github.com/incidentlib/incidentlib/internal/mcpcase"
)

func TestProject(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	k := c.Case("IL-0049")
	full := mcpcase.Project(k, "ko", "", "https://x.example/cases/IL-0049")
	if full.Title != k.Title.KO || full.Summary != k.Summary.KO || full.Lessons != k.Lessons.KO || len(full.Remediation) != len(k.Remediation) || full.URL == "" {
		t.Errorf("full view in Korean: %+v", full)
	}
	if en := mcpcase.Project(k, "en", mcpcase.ViewFull, ""); en.Title != k.Title.EN || en.URL != "" {
		t.Errorf("full view in English: title %q url %q", en.Title, en.URL)
	}
	sum := mcpcase.Project(k, "en", mcpcase.ViewSummary, "")
	if sum.Lessons != "" || sum.Remediation != nil || sum.Timeline != nil || sum.Summary == "" || len(sum.Sources) == 0 || len(sum.Terms["components"]) == 0 {
		t.Errorf("summary view: %+v", sum)
	}
}

// TestKubegapServesTheProjection: kubegap's get_incident answers the shared
// projection (with the checks that cite the case beside it), not a copy of
// its own.
func TestKubegapServesTheProjection(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := mcptools.NewServer(mcptools.Options{Version: "test", Corpus: c}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, view := range []string{"", mcpcase.ViewSummary} {
		args := map[string]any{"id": "IL-0049", "lang": "ko"}
		if view != "" {
			args["view"] = view
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_incident", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("get_incident: %v %+v", err, res.Content[0])
		}
		var got map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &got)
		if cited, _ := got["cited_by"].([]any); len(cited) == 0 {
			t.Errorf("view %q: no cited_by in %s", view, b)
		}
		delete(got, "cited_by")
		var want map[string]any
		wb, _ := json.Marshal(mcpcase.Project(c.Case("IL-0049"), "ko", view, ""))
		json.Unmarshal(wb, &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("view %q: kubegap's get_incident differs from the projection (-projection +kubegap):\n%s", view, diff)
		}
	}
}
