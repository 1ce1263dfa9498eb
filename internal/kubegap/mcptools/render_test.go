package mcptools_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
)

const renderData = "../render/testdata"

// TestScanChartAndKustomize: the scan tool renders a chart (values files,
// set values, release name and namespace) and builds a kustomization, as
// the command line does, and finds at their templates and files what the
// command line finds; a chart folder given as a path is a problem that
// names the chart argument, not a flag.
func TestScanChartAndKustomize(t *testing.T) {
	cs := connect(t)
	findings := func(out map[string]any) map[string]bool {
		got := map[string]bool{}
		fs, _ := out["findings"].([]any)
		for _, f := range fs {
			m := f.(map[string]any)
			o := m["object"].(map[string]any)
			got[m["check"].(string)+" "+o["namespace"].(string)+"/"+o["name"].(string)+" "+m["file"].(string)] = true
		}
		return got
	}
	// prod-values.yaml asks for 3 replicas (no budget: a finding) and
	// empties the memory limit, which set gives back (no finding); the
	// release name and namespace name the object.
	res, out := call(t, cs, "scan", map[string]any{"chart": renderData + "/charts/web", "values": []any{renderData + "/charts/prod-values.yaml"},
		"set": []any{"memoryLimit=1Gi"}, "release": "shop", "namespace": "web", "checks": []any{"no-memory-limit", "replicas-not-spread"}})
	if res.IsError {
		t.Fatalf("chart: %s", textOf(res))
	}
	got := findings(out)
	if len(got) != 2 || !got["replicas-not-spread web/shop-web "+renderData+"/charts/web/templates/deployment.yaml"] {
		t.Errorf("chart findings %v (values, set, release shop, namespace web)", got)
	}
	res, out = call(t, cs, "scan", map[string]any{"kustomize": renderData + "/kustomize/prod", "checks": []any{"no-memory-limit"}})
	if res.IsError {
		t.Fatalf("kustomize: %s", textOf(res))
	}
	// The overlay's namespace and name prefix, at the base's file.
	if got := findings(out); !got["no-memory-limit shop/prod-api "+renderData+"/kustomize/base/deployment.yaml"] {
		t.Errorf("kustomize findings %v", got)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"chart": renderData + "/charts/web", "kustomize": renderData + "/kustomize/prod"}, "give one input"},
		{map[string]any{"kustomize": renderData + "/kustomize/prod", "set": []any{"a=b"}}, "apply to chart only"},
		{map[string]any{"chart": renderData + "/charts/nodeps"}, "depends on redis"},
	} {
		if res, _ := call(t, cs, "scan", tc.args); !res.IsError || !strings.Contains(textOf(res), tc.want) {
			t.Errorf("%v: %s, want an error saying %q", tc.args, textOf(res), tc.want)
		}
	}
	// A chart among paths: the problem says to pass it as chart.
	res, out = call(t, cs, "scan", map[string]any{"paths": []any{renderData + "/charts/web", renderData + "/kustomize/base/deployment.yaml"}})
	if res.IsError {
		t.Fatalf("paths: %s", textOf(res))
	}
	b, _ := json.Marshal(out["problems"])
	if !strings.Contains(string(b), "scan it with chart: "+renderData+"/charts/web") || strings.Contains(string(b), "--chart") {
		t.Errorf("problems %s", b)
	}
}

// TestStdioAnswersBeforeEOF: requests piped in and followed at once by the
// end of stdin are all answered, a scan (slow) as well as the quick ones,
// before ServeStdio returns.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	manifests, _ := json.Marshal(deployments(40))
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"scan","arguments":{"manifests":` + string(manifests) + `}}}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"explain_check","arguments":{"id":"dns-few-replicas"}}}`,
	}, "\n") + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := mcptools.ServeStdio(ctx, mcptools.Options{Version: "test", Corpus: c}, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	answered := map[string]bool{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage
			Result *struct {
				IsError           bool           `json:"isError"`
				StructuredContent map[string]any `json:"structuredContent"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		if m.Result != nil && !m.Result.IsError {
			answered[string(m.ID)] = true
			if string(m.ID) == "2" && m.Result.StructuredContent["total_findings"] == nil {
				t.Errorf("scan answer without findings: %s", sc.Text())
			}
		}
	}
	for _, id := range []string{"1", "2", `"three"`} {
		if !answered[id] {
			t.Errorf("request %s was not answered before the server ended; answers:\n%s", id, out.String())
		}
	}
}
