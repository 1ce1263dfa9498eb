package kubegap_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
)

// lineOf is the 1-based line of the first line of text that contains
// want, after the first line that contains after ("" for the start).
func lineOf(t *testing.T, text, after, want string) int {
	t.Helper()
	seen := after == ""
	for i, l := range strings.Split(text, "\n") {
		if !seen {
			seen = strings.Contains(l, after)
			continue
		}
		if strings.Contains(l, want) {
			return i + 1
		}
	}
	t.Fatalf("no line with %q after %q", want, after)
	return 0
}

func scanFile(t *testing.T, path string) *kubegap.Result {
	t.Helper()
	inv, _, err := kubegap.ReadFiles([]string{path}, nil, checks.All())
	if err != nil {
		t.Fatal(err)
	}
	return kubegap.Evaluate(inv, checks.All(), nil, true)
}

func findingOf(t *testing.T, res *kubegap.Result, check, name string) checks.Finding {
	t.Helper()
	for _, f := range res.Findings {
		if f.Check == check && f.Object.Name == name {
			return f
		}
	}
	t.Fatalf("no %s finding on %s in %+v", check, name, res.Findings)
	return checks.Finding{}
}

// TestFieldLines: a finding points at the line of the field at fault, in
// YAML and in JSON, or at the nearest enclosing field the file writes
// when the field itself is absent (a missing probe: its container); the
// table, JSON and SARIF reports give that line.
func TestFieldLines(t *testing.T) {
	for _, tc := range []struct {
		id, file, check, name string
		field                 string
		after, want           string // the expected line: the first line holding want after one holding after
	}{
		{"liveness-short-window", "fail.yaml", "liveness-short-window", "hakawai-gateway",
			"spec.template.spec.containers[0].livenessProbe", "name: gateway", "livenessProbe:"},
		{"liveness-short-window", "fail-2.yaml", "liveness-short-window", "queue",
			"spec.template.spec.containers[0].livenessProbe", "name: broker", "livenessProbe:"},
		{"updates-on-delete", "fail-2.yaml", "updates-on-delete", "node-agent",
			"spec.updateStrategy.type", "name: node-agent", "type: OnDelete"},
		{"readiness-probe-missing", "fail-2.yaml", "readiness-probe-missing", "search",
			"spec.template.spec.containers[1]", "kind: StatefulSet", "- name: web"},
		{"disruption-budget-blocks-drain", "fail-2.yaml", "disruption-budget-blocks-drain", "db",
			"spec.maxUnavailable", "name: db", "maxUnavailable: 0"},
		{"aws-cni-warm-ip-target", "fail.yaml", "aws-cni-warm-ip-target", "aws-node",
			"spec.template.spec.containers[0].env[1]", "name: aws-node", "name: WARM_IP_TARGET"},
		{"dns-few-replicas", "fail.yaml", "dns-few-replicas", "coredns",
			"spec.replicas", "", "replicas: 1"},
		{"istio-port-name-no-protocol", "fail.yaml", "istio-port-name-no-protocol", "api",
			"spec.ports[0]", "kind: Service", "{name: web"},
		{"webhook-covers-kube-system", "fail.yaml", "webhook-covers-kube-system", "opa-validating-webhook",
			"webhooks[0].namespaceSelector", "kind: ValidatingWebhookConfiguration", "namespaceSelector:"},
		{"node-disk-smaller-than-peers", "fail-2.yaml", "node-disk-smaller-than-peers", "small",
			"status.capacity.ephemeral-storage", "name: small", "status:"},
	} {
		t.Run(tc.id+"/"+tc.file, func(t *testing.T) {
			path := fixture.Path(t, "checks/testdata", tc.id, tc.file)
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := lineOf(t, string(text), tc.after, tc.want)
			res := scanFile(t, path)
			f := findingOf(t, res, tc.check, tc.name)
			if f.Field != tc.field || f.FieldLine != want {
				t.Fatalf("field %q line %d, want %q line %d", f.Field, f.FieldLine, tc.field, want)
			}
			if obj := res.Sources[f.Object].Line; obj == want {
				t.Fatalf("the field's line %d is the object's: the fixture does not tell them apart", want)
			}
			var table, sarif bytes.Buffer
			if err := report.Write(&table, res, "table", "en", "test"); err != nil {
				t.Fatal(err)
			}
			place := filepath.Base(path) + ":" + itoa(want) + ")"
			if !strings.Contains(table.String(), place) {
				t.Errorf("the table does not place the finding at %s:\n%s", place, table.String())
			}
			if err := report.Write(&sarif, res, "sarif", "en", "test"); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(sarif.String(), `"startLine": `+itoa(want)) {
				t.Errorf("SARIF has no startLine %d", want)
			}
			b := report.Build(res, "en")
			for _, rf := range b.Findings {
				if rf.Check == tc.check && rf.Object.Name == tc.name && (rf.Field != tc.field || rf.FieldLine != want) {
					t.Errorf("JSON report: field %q line %d", rf.Field, rf.FieldLine)
				}
			}
		})
	}
}

// TestFieldLinesJSON: the same in a pretty-printed JSON List, and nothing
// invented where the file is not what was scanned (a chart's template).
func TestFieldLinesJSON(t *testing.T) {
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{
		map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": map[string]any{"name": "db", "namespace": "data"},
			"spec": map[string]any{"serviceName": "db", "updateStrategy": map[string]any{"type": "OnDelete"},
				"selector": map[string]any{"matchLabels": map[string]any{"app": "db"}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "db"}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "db", "image": "example/db:1"}}}}}},
	}}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "list.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := lineOf(t, string(b), `"updateStrategy"`, `"type": "OnDelete"`)
	res := scanFile(t, path)
	f := findingOf(t, res, "updates-on-delete", "db")
	if f.FieldLine != want {
		t.Fatalf("field line %d, want %d", f.FieldLine, want)
	}

	// The same finding said to come from a chart template: the file's
	// lines are not the template's, so no line is given for the field.
	src := res.Sources[f.Object]
	src.Template = "chart/templates/db.yaml"
	inv, _, err := kubegap.ReadFiles([]string{path}, nil, checks.All())
	if err != nil {
		t.Fatal(err)
	}
	inv.Sources[f.Object] = src
	again := kubegap.Evaluate(inv, checks.All(), nil, true)
	if g := findingOf(t, again, "updates-on-delete", "db"); g.FieldLine != 0 {
		t.Fatalf("field line %d for an object of a chart template, want 0", g.FieldLine)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
