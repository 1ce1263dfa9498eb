package mcptools_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
)

func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	srv := mcptools.NewServer(mcptools.Options{Version: "test", Corpus: c, AllowFiles: true})
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call builds a fresh CallToolParams each time (the client writes into it).
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
	}
	return res, out
}

func TestTools(t *testing.T) {
	cs := connect(t)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, name := range mcptools.Tools().Names() {
		want[name] = true
	}
	for _, tool := range tools.Tools {
		if !want[tool.Name] {
			t.Errorf("unexpected tool %s", tool.Name)
		}
		delete(want, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tool.Name)
		}
		if tool.Title == "" || tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("%s lacks title, description or schema", tool.Name)
		}
		if in, _ := json.Marshal(tool.InputSchema); strings.Contains(string(in), `"null"`) {
			t.Errorf("%s: the input schema has a type union with null: %s", tool.Name, in)
		}
		if out, _ := json.Marshal(tool.OutputSchema); tool.OutputSchema == nil || strings.Contains(string(out), `"null"`) {
			t.Errorf("%s: no output schema, or one with a type union with null: %.400s", tool.Name, out)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing tools %v", want)
	}
}

func TestScanManifests(t *testing.T) {
	cs := connect(t)
	y, err := os.ReadFile(fixture.Path(t, "../checks/testdata", "dns-memory-limit", "fail.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, out := call(t, cs, "scan", map[string]any{"manifests": string(y), "lang": "ko"})
	if res.IsError {
		t.Fatalf("error: %+v", res.Content)
	}
	fs, _ := out["findings"].([]any)
	found := false
	for _, f := range fs {
		m := f.(map[string]any)
		if m["check"] == "dns-memory-limit" && strings.Contains(m["message"].(string), "메모리") {
			found = true
		}
	}
	if !found {
		t.Errorf("no Korean dns-memory-limit finding in %v", out)
	}
	if _, ok := out["api_requests"]; !ok {
		t.Errorf("report lacks api_requests: %v", out)
	}

	res, _ = call(t, cs, "scan", map[string]any{"manifests": "apiVersion: v1\nkind: [\n"})
	if !res.IsError || !strings.Contains(textOf(res), "manifests:") {
		t.Errorf("bad YAML should be an error naming the place: %s", textOf(res))
	}
	res, _ = call(t, cs, "scan", map[string]any{})
	if !res.IsError {
		t.Errorf("empty scan should be an error")
	}
	res, _ = call(t, cs, "scan", map[string]any{"paths": []string{fixture.Path(t, "../checks/testdata", "dns-few-replicas", "fail.yaml")}, "checks": []string{"dns-few-replicas"}})
	if res.IsError {
		t.Errorf("paths scan failed: %s", textOf(res))
	}
}

func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestListExplainIncident(t *testing.T) {
	cs := connect(t)
	_, out := call(t, cs, "list_checks", nil)
	if l, _ := out["checks"].([]any); len(l) != len(checks.All()) {
		t.Errorf("list_checks gave %d", len(l))
	}
	_, out = call(t, cs, "explain_check", map[string]any{"id": "dex-kubernetes-storage"})
	why, _ := out["why"].([]any)
	if len(why) != 2 || !strings.Contains(why[0].(map[string]any)["summary"].(string), "dex") {
		t.Errorf("explain_check: %v", out)
	}
	res, _ := call(t, cs, "explain_check", map[string]any{"id": "nope"})
	if !res.IsError {
		t.Errorf("unknown check should be an error")
	}
	_, out = call(t, cs, "get_incident", map[string]any{"id": "IL-0049"})
	if out["org"] != "Preply" || !strings.Contains(strings.Join(toStrings(out["cited_by"]), ","), "dns-autoscaler-conntrack") {
		t.Errorf("get_incident: %v", out)
	}
	res, _ = call(t, cs, "get_incident", map[string]any{"id": "IL-9999"})
	if !res.IsError {
		t.Errorf("IL-9999 is not in the corpus; want an error")
	}
}

func toStrings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
