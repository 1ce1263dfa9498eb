package kubegap_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/synth"
)

// TestLayoutsAgree: the same objects read as one kind: List and as one
// document after another, in JSON and in YAML, give the same inventory (the
// objects, their counts and which objects have a source) and the same
// findings. Only the lines differ.
func TestLayoutsAgree(t *testing.T) {
	small := synth.Large
	small.Nodes, small.Pods, small.Namespaces = 60, 1200, 4
	for name, gen := range map[string]synth.Generator{"cluster": synth.Cluster(small), "workloads": synth.Workloads(3, 10)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var first string
			var firstInv, firstFindings []byte
			for _, format := range synth.Formats {
				path := filepath.Join(dir, string(format))
				f, err := os.Create(path)
				if err != nil {
					t.Fatal(err)
				}
				err = synth.Write(f, gen, format)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				cs := checks.All()
				inv, _, err := kubegap.ReadFiles([]string{path}, nil, cs)
				if err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				res := kubegap.Evaluate(inv, cs, nil, false)
				invJSON, findings := layoutSummary(t, inv, res)
				if first == "" {
					first, firstInv, firstFindings = string(format), invJSON, findings
					if len(inv.Deployments) == 0 || len(inv.Services) == 0 {
						t.Fatalf("%s: nothing read: %s", format, invJSON)
					}
					continue
				}
				if string(invJSON) != string(firstInv) {
					t.Errorf("the inventory read from %s differs from the one read from %s:\n%s\n%s", format, first, cut(invJSON), cut(firstInv))
				}
				if string(findings) != string(firstFindings) {
					t.Errorf("the findings on %s differ from those on %s:\n%s\n%s", format, first, cut(findings), cut(firstFindings))
				}
			}
		})
	}
}

// layoutSummary is the inventory and the findings without file and line.
func layoutSummary(t *testing.T, inv *inventory.Inventory, res *kubegap.Result) ([]byte, []byte) {
	t.Helper()
	var refs []string
	for r := range inv.Sources {
		refs = append(refs, r.String())
	}
	sort.Strings(refs)
	fields := map[string]any{"Sourced": refs}
	v := reflect.ValueOf(*inv)
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Map && f.Type().Key().Kind() == reflect.Struct {
			// Sources (file and line differ by layout) and Ignored.
			if v.Type().Field(i).Name == "Sources" {
				continue
			}
			fields[v.Type().Field(i).Name] = fmt.Sprint(f.Interface())
			continue
		}
		fields[v.Type().Field(i).Name] = f.Interface()
	}
	invJSON, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	type finding struct {
		Check    string
		Severity string
		Object   inventory.Ref
		Message  any
	}
	var fs []finding
	for _, f := range res.Findings {
		fs = append(fs, finding{f.Check, fmt.Sprint(f.Severity), f.Object, f.Message})
	}
	findings, err := json.Marshal(fs)
	if err != nil {
		t.Fatal(err)
	}
	return invJSON, findings
}

func cut(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}
