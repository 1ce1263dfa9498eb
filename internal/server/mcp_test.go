package server_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/mcpserver"
	"github.com/incidentlib/incidentlib/internal/server"
)

func mcpSession(t *testing.T, ts *testServer) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "incidentlib-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: ts.Client(), DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPToolsMetadata: the server serves exactly the tools of the
// registry (mcpserver.Tools), with their schemas as the registry makes
// them, each marked read-only, titled and described for an agent. (The
// schemas are made from the Go types in each tool's own file and from the
// parameter table, so a change to one shows in the diff of that file.)
func TestMCPToolsMetadata(t *testing.T) {
	ts := readOnlyServer(t)
	cs := mcpSession(t, ts)
	res, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	registry := map[string]*mcp.Tool{}
	for _, d := range mcpserver.Tools().Defs() {
		registry[d.Name] = d
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tool.Name)
		}
		if tool.Title == "" || len(tool.Description) < 80 {
			t.Errorf("%s lacks a title or a description that tells an agent when to use it", tool.Name)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
		// Hosts that pass tools to some models refuse type unions with null.
		if in, _ := json.Marshal(tool.InputSchema); strings.Contains(string(in), `"null"`) {
			t.Errorf("%s: the input schema has a type union with null: %s", tool.Name, in)
		}
		d := registry[tool.Name]
		if d == nil {
			t.Errorf("the server serves %s, which the registry lacks", tool.Name)
			continue
		}
		for what, pair := range map[string][2]any{"input": {d.InputSchema, tool.InputSchema}, "output": {d.OutputSchema, tool.OutputSchema}} {
			a, _ := json.Marshal(pair[0])
			var served any
			b, _ := json.Marshal(pair[1])
			json.Unmarshal(b, &served)
			var made any
			json.Unmarshal(a, &made)
			if diff := cmp.Diff(made, served); diff != "" {
				t.Errorf("%s: the served %s schema differs from the registry's (-registry +served):\n%s", tool.Name, what, diff)
			}
		}
	}
	if diff := cmp.Diff(mcpserver.Tools().Names(), sortedStrings(names)); diff != "" {
		t.Errorf("tools (-registry +served):\n%s", diff)
	}
}

func sortedStrings(s []string) []string {
	out := append([]string{}, s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// call builds a fresh CallToolParams for every call: the client writes into
// the params it is given.
// text returns m[key] if it is a string holding more than white space; a
// missing key, null or another type gives "".
func text(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return strings.TrimSpace(s)
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		var msg string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				msg += tc.Text
			}
		}
		return map[string]any{"error": msg}, true
	}
	b, _ := json.Marshal(res.StructuredContent)
	var m map[string]any
	json.Unmarshal(b, &m)
	return m, false
}

func TestMCPTools(t *testing.T) {
	ts := readOnlyServer(t)
	cs := mcpSession(t, ts)
	out, isErr := call(t, cs, "search_incidents", map[string]any{"query": "kube-proxy failed to delete conntrack entries", "limit": 3})
	if isErr {
		t.Fatalf("search: %v", out)
	}
	items := out["items"].([]any)
	if len(items) != 3 || items[0].(map[string]any)["id"] != "IL-0049" {
		t.Fatalf("search: %v", out)
	}
	if out["next_offset"].(float64) != 3 {
		t.Errorf("next_offset = %v", out["next_offset"])
	}
	// The bound is in the schema: a limit over it is refused, saying so,
	// rather than cut silently.
	out, isErr = call(t, cs, "search_incidents", map[string]any{"query": "DNS", "limit": 1000})
	if !isErr || !strings.Contains(fmt.Sprint(out["error"]), "100") {
		t.Errorf("limit 1000: %v", out)
	}
	out, _ = call(t, cs, "search_incidents", map[string]any{"query": "DNS", "limit": 25})
	if n := len(out["items"].([]any)); n != 25 {
		t.Errorf("limit 25 returned %d items", n)
	}
	ko, _ := call(t, cs, "get_incident", map[string]any{"id": "il-0049", "lang": "ko"})
	if ko["id"] != "IL-0049" || !strings.ContainsAny(ko["summary"].(string), "가나다라마바사아자차카타파하") {
		t.Errorf("get_incident ko: %.200v", ko)
	}
	en, _ := call(t, cs, "get_incident", map[string]any{"id": "IL-0049", "lang": "en"})
	if strings.ContainsAny(en["summary"].(string), "가나다라마바사아자차카타파하") {
		t.Errorf("get_incident en answers in Korean")
	}
	// Without lang, the one default of every face: Korean.
	def, _ := call(t, cs, "get_incident", map[string]any{"id": "IL-0049"})
	if def["summary"] != ko["summary"] {
		t.Errorf("get_incident without lang does not answer in Korean, the default")
	}
	if msg, isErr := call(t, cs, "get_incident", map[string]any{"id": "IL-9999"}); !isErr || !strings.Contains(msg["error"].(string), "IL-9999") {
		t.Errorf("unknown id: %v", msg)
	}
	list, _ := call(t, cs, "list_incidents", map[string]any{"limit": 5, "filters": map[string]any{"components": []string{"coredns"}}})
	if list["total"].(float64) < 3 {
		t.Errorf("list coredns: %v", list["total"])
	}
	if msg, isErr := call(t, cs, "list_incidents", map[string]any{"filters": map[string]any{"components": []string{"flux"}}}); !isErr || !strings.Contains(msg["error"].(string), "coredns") {
		t.Errorf("unknown filter term should list valid ones: %v", msg)
	}
	topic, _ := call(t, cs, "get_topic", map[string]any{"term": "cilium"})
	if topic["vocab"] != "components" || topic["total"].(float64) < 2 {
		t.Errorf("topic: %v", topic)
	}
	vocab, _ := call(t, cs, "vocab", map[string]any{"vocab": "root_cause", "lang": "ko"})
	if len(vocab["vocabularies"].(map[string]any)["root_cause"].([]any)) < 5 {
		t.Errorf("vocab: %v", vocab)
	}
	sim, _ := call(t, cs, "similar_incidents", map[string]any{"id": "IL-0049", "limit": 3})
	simItems, _ := sim["items"].([]any)
	if len(simItems) == 0 {
		t.Fatalf("similar_incidents found nothing for IL-0049: %v", sim)
	}
	first, _ := simItems[0].(map[string]any)
	if text(first, "reason") == "" {
		t.Errorf("similar without a reason: %v", first)
	}
	if msg, isErr := call(t, cs, "similar_incidents", map[string]any{}); !isErr || text(msg, "error") == "" {
		t.Errorf("similar without id or text must fail clearly")
	}
	if msg, isErr := call(t, cs, "search_incidents", map[string]any{"query": "x", "lang": "fr"}); !isErr || !strings.Contains(msg["error"].(string), "lang") {
		t.Errorf("bad lang: %v", msg)
	}
}

// TestMCPPaging: get_topic and similar_incidents page with offset and
// next_offset, without repeating a case across pages.
func TestMCPPaging(t *testing.T) {
	ts := readOnlyServer(t)
	cs := mcpSession(t, ts)
	ids := func(out map[string]any, key string) []string {
		var s []string
		list, _ := out[key].([]any)
		for _, x := range list {
			s = append(s, x.(map[string]any)["id"].(string))
		}
		return s
	}
	for _, tc := range []struct {
		tool, key string
		args      map[string]any
	}{
		{"get_topic", "cases", map[string]any{"term": "config-change"}},
		{"similar_incidents", "items", map[string]any{"id": "IL-0049"}},
		{"similar_incidents", "items", map[string]any{"text": "kube-proxy failed to delete conntrack entries"}},
	} {
		first := map[string]any{"limit": 3}
		for k, v := range tc.args {
			first[k] = v
		}
		p1, isErr := call(t, cs, tc.tool, first)
		if isErr || len(ids(p1, tc.key)) != 3 || p1["next_offset"] != float64(3) {
			t.Fatalf("%s page 1: %v", tc.tool, p1)
		}
		first["offset"] = 3
		p2, isErr := call(t, cs, tc.tool, first)
		if isErr || len(ids(p2, tc.key)) == 0 {
			t.Fatalf("%s page 2: %v", tc.tool, p2)
		}
		for _, a := range ids(p1, tc.key) {
			for _, b := range ids(p2, tc.key) {
				if a == b {
					t.Errorf("%s: %s on both pages", tc.tool, a)
				}
			}
		}
	}
}

// TestMCPCompact: get_incident view=summary and vocab brief=true answer
// in a fraction of the full size, keeping what an agent needs.
func TestMCPCompact(t *testing.T) {
	ts := readOnlyServer(t)
	cs := mcpSession(t, ts)
	size := func(tool string, args map[string]any) (int, map[string]any) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %v", tool, args, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		json.Unmarshal(b, &m)
		return len(b), m
	}
	full, _ := size("get_incident", map[string]any{"id": "IL-0461"})
	short, m := size("get_incident", map[string]any{"id": "IL-0461", "view": "summary"})
	if short*10 > full*6 || text(m, "summary") == "" || m["root_cause"] != "config-change" || m["lessons"] != nil {
		t.Errorf("view=summary: %d bytes of %d; %v", short, full, m["lessons"])
	}
	vfull, _ := size("vocab", map[string]any{})
	vbrief, vm := size("vocab", map[string]any{"brief": true})
	if vbrief*100 > vfull*35 {
		t.Errorf("brief vocab is %d bytes of %d", vbrief, vfull)
	}
	// Brief is ids and labels: the aliases come with the full vocabulary.
	for _, x := range vm["vocabularies"].(map[string]any)["symptoms"].([]any) {
		term := x.(map[string]any)
		if term["id"] == "oom-kills" && (term["aliases"] != nil || term["description"] != nil || term["label"] == "") {
			t.Errorf("the brief vocabulary's oom-kills is %v", term)
		}
	}
	if res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_incident", Arguments: map[string]any{"id": "IL-0461", "view": "tiny"}}); res == nil || !res.IsError {
		t.Error("an unknown view is accepted")
	}
}

// TestMCPResourcesAndPrompt: the SDK client reads a case and a topic as
// resources and gets the investigate_error prompt; the server promises no
// list-change notices, since it keeps no session.
func TestMCPResourcesAndPrompt(t *testing.T) {
	ts := readOnlyServer(t)
	cs := mcpSession(t, ts)
	ctx := context.Background()
	caps := cs.InitializeResult().Capabilities
	if caps.Tools == nil || caps.Tools.ListChanged || caps.Resources == nil || caps.Resources.ListChanged || caps.Prompts == nil || caps.Prompts.ListChanged {
		t.Errorf("capabilities promise list changes or lack resources/prompts: %+v", caps)
	}
	tpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tpls.ResourceTemplates) != 2 {
		t.Fatalf("resource templates: %v %v", tpls, err)
	}
	for _, tc := range []struct{ uri, want string }{
		{"incident://IL-0049", `"id":"IL-0049"`},
		{"incident://IL-0049?lang=ko", "conntrack 항목"},
		{"topic://coredns", `"term":"coredns"`},
	} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, tc.want) || res.Contents[0].MIMEType != "application/json" {
			t.Errorf("read %s: %v %.200v", tc.uri, err, res)
		}
	}
	for _, bad := range []string{"incident://IL-9999", "topic://no-such-term", "incident://IL-0049?lang=fr"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: bad}); err == nil {
			t.Errorf("read %s: no error", bad)
		}
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "investigate_error", Arguments: map[string]string{"error": `Back-off pulling image "nginx:latest"`, "context": "EKS 1.29"}})
	if err != nil || len(p.Messages) != 1 {
		t.Fatalf("prompt: %v %v", p, err)
	}
	text := p.Messages[0].Content.(*mcp.TextContent).Text
	for _, w := range []string{`Back-off pulling image "nginx:latest"`, "EKS 1.29", "search_incidents", "get_incident", "similar_incidents"} {
		if !strings.Contains(text, w) {
			t.Errorf("the prompt lacks %q", w)
		}
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "investigate_error", Arguments: map[string]string{"error": " "}}); err == nil {
		t.Error("an empty error argument is accepted")
	}
}

// TestMCPGzip: an MCP answer is gzip-compressed for a client that accepts
// it, and decodes to the same JSON-RPC result.
func TestMCPGzip(t *testing.T) {
	ts := newServer(t, func(c *server.Config) { c.MCPJSON = true })
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_incident","arguments":{"id":"IL-0461"}}}`
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Accept-Encoding", "gzip")
	tr := &http.Transport{DisableCompression: true} // see the bytes on the wire
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("the MCP answer is not compressed: %v", res.Header)
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if !strings.Contains(string(plain), `"jsonrpc":"2.0"`) || !strings.Contains(string(plain), "IL-0461") {
		t.Errorf("the decompressed answer: %.300s", plain)
	}
}
