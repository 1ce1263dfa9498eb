package mcptools_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/live"
	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
)

// TestScanPartial: the scan tool's answer counts the partially evaluated
// checks among the evaluated and lists them with what they could not see.
// The live scan is a stand-in that reads a fixture as an identity that may
// not list StatefulSets would.
func TestScanPartial(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	scan := func(_ context.Context, _ live.Options, _ time.Duration, cs []*checks.Check, cfg *kubegap.Config, ann bool) (*kubegap.Result, error) {
		inv, _, err := kubegap.ReadFiles([]string{fixture.Path(t, "../checks/testdata", "replicas-not-spread", "fail-2.yaml")}, nil, cs)
		if err != nil {
			return nil, err
		}
		delete(inv.Read, inventory.StatefulSet)
		inv.StatefulSets = nil
		return kubegap.Evaluate(inv, cs, cfg, ann), nil
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcptools.NewServer(mcptools.Options{Version: "test", Corpus: c, LiveScan: scan}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, out := call(t, cs, "scan", map[string]any{"live": true, "lang": "ko"})
	if res.IsError {
		t.Fatalf("error: %s", textOf(res))
	}
	counts, _ := out["checks"].(map[string]any)
	partial, _ := out["partial"].([]any)
	if len(partial) == 0 || counts["partial"] != float64(len(partial)) {
		t.Fatalf("checks %v, partial %v", counts, partial)
	}
	if counts["evaluated"].(float64)+counts["not_evaluated"].(float64) != counts["selected"].(float64) {
		t.Errorf("counts do not add up: %v", counts)
	}
	found := false
	for _, p := range partial {
		m := p.(map[string]any)
		if m["check"] == "replicas-not-spread" {
			found = true
			if miss, _ := m["missing"].([]any); len(miss) != 1 || miss[0] != "StatefulSet" || !strings.Contains(m["reason"].(string), "StatefulSet 없이") {
				t.Errorf("partial entry %v", m)
			}
		}
	}
	if !found {
		t.Errorf("replicas-not-spread not listed as partial: %v", partial)
	}
}
