package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// benchObjects returns n Deployments as generic values.
func benchObjects(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		name := fmt.Sprintf("web-%d", i)
		out[i] = map[string]any{
			"apiVersion": "apps/v1",
			"kind":       "Deployment",
			"metadata":   map[string]any{"name": name, "namespace": "shop", "labels": map[string]any{"app": name, "tier": "front"}},
			"spec": map[string]any{
				"replicas": 3,
				"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
				"template": map[string]any{
					"metadata": map[string]any{"labels": map[string]any{"app": name}},
					"spec": map[string]any{"containers": []any{map[string]any{
						"name": "web", "image": "registry.example/web:1.2.3",
						"ports":          []any{map[string]any{"containerPort": 8080, "name": "http"}},
						"resources":      map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "128Mi"}, "limits": map[string]any{"memory": "256Mi"}},
						"readinessProbe": map[string]any{"httpGet": map[string]any{"path": "/ready", "port": "http"}, "periodSeconds": 10},
						"livenessProbe":  map[string]any{"httpGet": map[string]any{"path": "/live", "port": "http"}, "failureThreshold": 6},
					}}},
				},
			},
		}
	}
	return out
}

// streamLayouts writes the same objects as a block-style YAML List, as
// block-style YAML documents, as a JSON List (`kubectl get -o json`), and
// as JSON documents (indented and compact) one per "---", which is what
// `kubectl get -o json` piped through a script, or a generator that writes
// JSON, leaves.
func streamLayouts(tb testing.TB, n int) map[string][]byte {
	objs := benchObjects(n)
	out := map[string][]byte{}
	// kubectl's layout: the items at column 0, two spaces of indent.
	var list, docs, jdocs, cdocs bytes.Buffer
	list.WriteString("apiVersion: v1\nitems:\n")
	for _, o := range objs {
		var yb bytes.Buffer
		enc := yaml.NewEncoder(&yb)
		enc.SetIndent(2)
		if err := enc.Encode(o); err != nil {
			tb.Fatal(err)
		}
		y := yb.Bytes()
		for i, l := range strings.SplitAfter(string(y), "\n") {
			if l == "" {
				continue
			}
			if i == 0 {
				list.WriteString("- ")
			} else {
				list.WriteString("  ")
			}
			list.WriteString(l)
		}
		docs.WriteString("---\n")
		docs.Write(y)
		j, _ := json.MarshalIndent(o, "", "  ")
		jdocs.WriteString("---\n")
		jdocs.Write(j)
		jdocs.WriteByte('\n')
		c, _ := json.Marshal(o)
		cdocs.WriteString("---\n")
		cdocs.Write(c)
		cdocs.WriteByte('\n')
	}
	list.WriteString("kind: List\n")
	jl, _ := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": objs}, "", "    ")
	out["json-list"] = jl
	out["yaml-list"], out["yaml-docs"], out["json-docs"], out["json-docs-compact"] = list.Bytes(), docs.Bytes(), jdocs.Bytes(), cdocs.Bytes()
	return out
}

// BenchmarkStreamLayouts reads the same 2,000 Deployments in each layout
// (ns/object compares them), every object wanted and
// every object declined (a kind no check reads: only its header is needed):
//
//	go test -run '^$' -bench StreamLayouts ./internal/kubegap/manifest
func BenchmarkStreamLayouts(b *testing.B) {
	const n = 2000
	layouts := streamLayouts(b, n)
	declined := func(string, string) bool { return false }
	for _, name := range []string{"yaml-list", "yaml-docs", "json-list", "json-docs", "json-docs-compact"} {
		for _, w := range []struct {
			name string
			want Want
		}{{"wanted", nil}, {"declined", declined}} {
			text := layouts[name]
			b.Run(name+"/"+w.name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					got := 0
					if err := Read("in.yaml", bytes.NewReader(text), w.want, func(Doc) error { got++; return nil }); err != nil {
						b.Fatal(err)
					}
					if got != n {
						b.Fatalf("%d objects, want %d", got, n)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
			})
		}
	}
}

// TestStreamLayoutsAgree: every layout gives the same objects, with the
// same JSON.
func TestStreamLayoutsAgree(t *testing.T) {
	layouts := streamLayouts(t, 3)
	var want []string
	for _, name := range []string{"yaml-list", "yaml-docs", "json-list", "json-docs", "json-docs-compact"} {
		var got []string
		err := Read("in.yaml", strings.NewReader(string(layouts[name])), nil, func(d Doc) error {
			var v any
			if err := json.Unmarshal(d.JSON, &v); err != nil {
				return err
			}
			c, _ := json.Marshal(v)
			got = append(got, d.Kind+" "+string(c))
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want == nil {
			want = got
			if len(want) != 3 {
				t.Fatalf("%s: %d objects", name, len(want))
			}
			continue
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s differs from yaml-list:\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
