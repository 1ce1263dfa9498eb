package mcptools_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
)

// deployments is n Deployments without memory limits (each a medium
// no-memory-limit finding, among others).
func deployments(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app%03d, namespace: shop}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: a%d}}\n  template:\n    metadata: {labels: {app: a%d}}\n    spec:\n      containers: [{name: c, image: example/a:1}]\n", i, i, i)
	}
	return b.String()
}

// TestScanPaging: findings come a page at a time with next_offset; the
// pages together are every finding once; min_severity filters; the answer
// carries the counts, the input problems and each finding's place.
func TestScanPaging(t *testing.T) {
	cs := connect(t)
	y := deployments(30) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: kube-system}\ndata: {a: __DOMAIN__}\n"
	_, all := call(t, cs, "scan", map[string]any{"manifests": y, "limit": 200})
	total := int(all["total_findings"].(float64))
	if total < 30 || len(all["findings"].([]any)) != total || all["next_offset"] != nil {
		t.Fatalf("one page of 200: total %d, %d findings, next %v", total, len(all["findings"].([]any)), all["next_offset"])
	}
	seen := map[string]bool{}
	offset, pages := 0, 0
	for {
		args := map[string]any{"manifests": y, "limit": 7}
		if offset > 0 {
			args["offset"] = offset
		}
		res, out := call(t, cs, "scan", args)
		if res.IsError {
			t.Fatalf("offset %d: %s", offset, textOf(res))
		}
		pages++
		fs := out["findings"].([]any)
		if len(fs) > 7 || int(out["total_findings"].(float64)) != total || int(out["limit"].(float64)) != 7 {
			t.Fatalf("page at %d: %d findings, %v", offset, len(fs), out["total_findings"])
		}
		for _, f := range fs {
			m := f.(map[string]any)
			key := fmt.Sprint(m["check"], m["object"])
			if seen[key] {
				t.Errorf("finding %s on two pages", key)
			}
			seen[key] = true
			if m["file"] != "manifests" || m["line"].(float64) < 1 {
				t.Errorf("finding without its place: %v", m)
			}
		}
		next, ok := out["next_offset"].(float64)
		if !ok {
			break
		}
		offset = int(next)
	}
	if len(seen) != total || pages != (total+6)/7 {
		t.Errorf("%d findings over %d pages, want %d over %d", len(seen), pages, total, (total+6)/7)
	}
	if in := all["input"].(map[string]any); in["objects"].(float64) != 31 || in["files"].(float64) != 1 {
		t.Errorf("input counts %v", in)
	}
	if c := all["checks"].(map[string]any); c["evaluated"].(float64) < 1 {
		t.Errorf("checks %v", c)
	}
	probs := all["problems"].([]any)
	if len(probs) != 1 || !strings.Contains(probs[0].(map[string]any)["message"].(string), "__DOMAIN__") || probs[0].(map[string]any)["file"] != "manifests" {
		t.Errorf("problems %v", probs)
	}

	_, high := call(t, cs, "scan", map[string]any{"manifests": y, "min_severity": "high"})
	for _, f := range high["findings"].([]any) {
		if f.(map[string]any)["severity"] != "high" {
			t.Errorf("min_severity high let through %v", f)
		}
	}
	_, med := call(t, cs, "scan", map[string]any{"manifests": y, "min_severity": "medium", "limit": 200})
	if n := int(med["total_findings"].(float64)); n >= total || n < 30 {
		t.Errorf("min_severity medium: %d of %d", n, total)
	}
	for _, bad := range []map[string]any{{"limit": 201}, {"min_severity": "urgent"}, {"offset": -1}} {
		bad["manifests"] = y
		if res, _ := call(t, cs, "scan", bad); !res.IsError {
			t.Errorf("%v accepted", bad)
		}
	}
	// Nothing the checks read is an error, not a clean answer.
	if res, _ := call(t, cs, "scan", map[string]any{"manifests": "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: x}\n"}); !res.IsError || !strings.Contains(textOf(res), "nothing was checked") {
		t.Errorf("a ServiceAccount alone: %s", textOf(res))
	}
}

// TestScanSchemaAndInstructions: the scan tool's schema states its bounds,
// its description the cap, and the server gives instructions.
func TestScanSchemaAndInstructions(t *testing.T) {
	cs := connect(t)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name != "scan" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]struct {
				Maximum *float64
				Enum    []string
			}
		}
		json.Unmarshal(b, &s)
		if m := s.Properties["limit"].Maximum; m == nil || *m != mcptools.MaxFindings {
			t.Errorf("limit maximum %v", m)
		}
		if strings.Join(s.Properties["min_severity"].Enum, ",") != "low,medium,high" {
			t.Errorf("min_severity enum %v", s.Properties["min_severity"].Enum)
		}
		if !strings.Contains(tool.Description, "at most 200 per call") {
			t.Errorf("description does not state the cap: %s", tool.Description)
		}
	}
	if r := cs.InitializeResult(); r == nil || !strings.Contains(r.Instructions, "next_offset") {
		t.Errorf("no server instructions: %+v", r)
	}
}

// TestStdioBadLine: a line that is not JSON gets a JSON-RPC parse error,
// one that is JSON but not a message an invalid-request error, and the
// server goes on answering on the same stdio streams.
func TestStdioBadLine(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		err := mcptools.ServeStdio(ctx, mcptools.Options{Version: "test", Corpus: c}, inR, outW)
		outW.Close() // a server that ended answers no more: the reads below see EOF
		done <- err
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<24)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		if !lines.Scan() {
			t.Fatalf("no answer: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("answer %q: %v", lines.Text(), err)
		}
		return m
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc": "2.0", "id": 2, "method": `) // cut short
	if m := next(); code(m) != -32700 || m["id"] != nil {
		t.Errorf("want a parse error with id null, got %v", m)
	}
	send(`{"hello": "world"}`)
	if m := next(); code(m) != -32600 {
		t.Errorf("want an invalid request error, got %v", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	m := next()
	if m["id"] != float64(3) || m["result"] == nil || !strings.Contains(lines.Text(), `"scan"`) {
		t.Errorf("tools/list after the bad lines: %v", m)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("server ended with %v", err)
		}
	case <-ctx.Done():
		t.Error("server did not end at EOF")
	}
}
