package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/gobuild"
	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
)

// build compiles kubegap once per test into a temporary folder, with the
// test binary's own build flags (gobuild), so that it reuses its packages.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kubegap")
	if out, err := exec.Command("go", gobuild.Args(bin, ".")...).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// TestBinary runs the real binary: exit codes and the MCP server on stdio.
func TestBinary(t *testing.T) {
	bin := build(t)
	failing := fixture.Path(t, "../../internal/kubegap/checks/testdata", "dns-few-replicas", "fail.yaml")

	cmd := exec.Command(bin, "scan", "-f", failing, "-o", "json", "--checks", "dns-few-replicas")
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("want exit 1 for findings, got %v", err)
	}
	var r struct{ Findings []map[string]any }
	if err := json.Unmarshal(out, &r); err != nil || len(r.Findings) != 1 {
		t.Fatalf("report %s (%v)", out, err)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("kind: [\n"), 0o644)
	cmd = exec.Command(bin, "scan", "-f", bad)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), bad+":") {
		t.Fatalf("malformed YAML: %v, stderr %q", err, stderr.String())
	}

	// MCP over stdio, as Claude Code and Codex start it.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "mcp")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != len(mcptools.Tools()) {
		t.Fatalf("tools: %v %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_incident", Arguments: map[string]any{"id": "IL-0313"}})
	if err != nil || res.IsError {
		t.Fatalf("get_incident: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), "Zalando") || !strings.Contains(string(b), "dns-memory-limit") {
		t.Errorf("get_incident answer: %s", b)
	}

	// A file of requests piped in: stdin ends at once, and every request
	// is answered all the same, the scan included.
	requests := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"scan","arguments":{"paths":[` + strconv.Quote(failing) + `],"checks":["dns-few-replicas"]}}}`,
	}, "\n") + "\n"
	pctx, pcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer pcancel()
	cmd = exec.CommandContext(pctx, bin, "mcp")
	cmd.Stdin = strings.NewReader(requests)
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("mcp with piped requests: %v", err)
	}
	answered := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID     int
			Result struct {
				StructuredContent struct {
					TotalFindings int `json:"total_findings"`
				} `json:"structuredContent"`
			}
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.ID == 2 && m.Result.StructuredContent.TotalFindings == 1 {
			answered = true
		}
	}
	if !answered {
		t.Errorf("no tools/call answer with the finding to piped requests:\n%s", out)
	}
}
