package render_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/render"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
)

// TestChartFieldLines: a finding in an object a chart's template rendered
// points at the template's line of the field at fault (a container with no
// readiness probe at its "- name:" line, a subchart's replicas at its
// "replicas:" line), in the finding, the JSON report, the table and
// SARIF; a packaged chart, whose templates are no files, gives no line.
func TestChartFieldLines(t *testing.T) {
	docs, err := render.Chart(context.Background(), render.ChartOptions{Chart: filepath.Join(charts, "web"), Namespace: "web"})
	if err != nil {
		t.Fatal(err)
	}
	res := scanDocs(t, docs)
	for _, tc := range []struct {
		check, name, file, field, line string
	}{
		{"readiness-probe-missing", "release-name-web", "templates/deployment.yaml", "spec.template.spec.containers[0]", "        - name: web"},
		{"replicas-not-spread", "release-name-cache", "charts/cache/templates/statefulset.yaml", "spec.replicas", "  replicas: {{ .Values.replicas }}"},
	} {
		file := tpl(tc.file)
		want := lineIn(t, file, tc.line)
		var found bool
		for _, f := range res.Findings {
			if f.Check != tc.check || f.Object.Name != tc.name {
				continue
			}
			found = true
			if src := res.Sources[f.Object]; src.File != file || !src.FromTemplate {
				t.Errorf("%s: source %+v, want the template %s", tc.check, src, file)
			}
			if f.Field != tc.field || f.FieldLine != want {
				t.Errorf("%s: field %q at line %d, want %q at line %d (%q)", tc.check, f.Field, f.FieldLine, tc.field, want, tc.line)
			}
		}
		if !found {
			t.Fatalf("no %s finding on %s", tc.check, tc.name)
		}
		for _, rf := range report.Build(res, "en").Findings {
			if rf.Check == tc.check && rf.FieldLine != want {
				t.Errorf("JSON report: %s at line %d, want %d", tc.check, rf.FieldLine, want)
			}
		}
		var table, sarif bytes.Buffer
		if err := report.Write(&table, res, "table", "en", "test"); err != nil {
			t.Fatal(err)
		}
		if place := tc.file + ":" + strconv.Itoa(want) + ")"; !strings.Contains(table.String(), place) {
			t.Errorf("the table does not place %s at %s:\n%s", tc.check, place, table.String())
		}
		if err := report.Write(&sarif, res, "sarif", "en", "test"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sarif.String(), `"startLine": `+strconv.Itoa(want)) {
			t.Errorf("SARIF has no startLine %d for %s", want, tc.check)
		}
	}

	// The chart named by a relative path that is its own name, as
	// "kubegap scan --chart web" in its parent folder: its templates' paths
	// are then Helm's names for them, and they are still files.
	abs, err := filepath.Abs(filepath.Join(charts, "web", "templates", "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := lineIn(t, abs, "        - name: web")
	t.Chdir(charts)
	docs, err = render.Chart(context.Background(), render.ChartOptions{Chart: "web", Namespace: "web"})
	if err != nil {
		t.Fatal(err)
	}
	same := scanDocs(t, docs)
	if f := findingOn(t, same, "readiness-probe-missing", "release-name-web"); f.FieldLine != want || res.Sources[f.Object].File == same.Sources[f.Object].File {
		t.Errorf("--chart web: %s at line %d, want %d", same.Sources[f.Object].File, f.FieldLine, want)
	}

	// A packaged chart: the templates are inside the archive, not files,
	// even where a folder of the chart's name lies beside (Helm names the
	// templates "web/templates/…", and here web/ is a copy of the chart
	// the same files).
	tgz, err := filepath.Abs(packageChart(t, "."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "web"), os.DirFS("web")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	docs, err = render.Chart(context.Background(), render.ChartOptions{Chart: tgz, Namespace: "web"})
	if err != nil {
		t.Fatal(err)
	}
	packaged := scanDocs(t, docs).Findings
	if len(packaged) < 2 {
		t.Fatalf("packaged chart: %d findings, want the folder's", len(packaged))
	}
	for _, f := range packaged {
		if f.FieldLine != 0 {
			t.Errorf("packaged chart: %s on %s has line %d, from a file that is not the archive's", f.Check, f.Object, f.FieldLine)
		}
	}
}

func scanDocs(t *testing.T, docs []render.Doc) *kubegap.Result {
	t.Helper()
	inv, _, problems, err := kubegap.ReadInput(nil, nil, checks.All(), kubegap.ReadOptions{Namespace: "web", Streams: render.Streams(docs)})
	if err != nil || len(problems) > 0 {
		t.Fatalf("read: %v %v", err, problems)
	}
	return kubegap.Evaluate(inv, checks.All(), nil, true)
}

// lineIn is the line of file that is exactly text.
func lineIn(t *testing.T, file, text string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if l == text {
			return i + 1
		}
	}
	t.Fatalf("%s has no line %q", file, text)
	return 0
}

// packageChart packs the chart web in dir into a .tgz, as helm package does.
func packageChart(t *testing.T, dir string) string {
	t.Helper()
	ch, err := loader.Load(filepath.Join(dir, "web"))
	if err != nil {
		t.Fatal(err)
	}
	tgz, err := chartutil.Save(ch, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return tgz
}

func findingOn(t *testing.T, res *kubegap.Result, check, name string) checks.Finding {
	t.Helper()
	for _, f := range res.Findings {
		if f.Check == check && f.Object.Name == name {
			return f
		}
	}
	t.Fatalf("no %s finding on %s", check, name)
	return checks.Finding{}
}

// TestChartFieldLinesInHelpers: a finding whose field an include writes
// points at the define's line in the helper template, in the finding
// (FieldFile), the JSON report, the table and SARIF.
func TestChartFieldLinesInHelpers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "app")
	files := map[string]string{
		"Chart.yaml":             "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"values.yaml":            "replicas: 2\n",
		"templates/_helpers.tpl": "{{- define \"app.podSpec\" -}}\ncontainers:\n  - name: app\n    image: example/app:1\n{{- end }}\n",
		"templates/deploy.yaml":  "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels: {app: app}\n  template:\n    metadata:\n      labels: {app: app}\n    spec:\n      {{- include \"app.podSpec\" . | nindent 6 }}\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := render.Chart(context.Background(), render.ChartOptions{Chart: dir, Namespace: "web"})
	if err != nil {
		t.Fatal(err)
	}
	res := scanDocs(t, docs)
	helpers := filepath.Join(dir, "templates", "_helpers.tpl")
	f := findingOn(t, res, "no-memory-limit", "app")
	if f.FieldFile != helpers || f.FieldLine != 3 {
		t.Fatalf("no-memory-limit at %s:%d, want %s:3 (the container in the define)", f.FieldFile, f.FieldLine, helpers)
	}
	for _, rf := range report.Build(res, "en").Findings {
		if rf.Check == "no-memory-limit" && (rf.FieldFile != helpers || rf.FieldLine != 3 || rf.File != filepath.Join(dir, "templates", "deploy.yaml")) {
			t.Errorf("JSON report: %s, field at %s:%d", rf.File, rf.FieldFile, rf.FieldLine)
		}
	}
	var table, sarif bytes.Buffer
	if err := report.Write(&table, res, "table", "en", "test"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "_helpers.tpl:3)") {
		t.Errorf("the table does not place the finding in the define:\n%s", table.String())
	}
	if err := report.Write(&sarif, res, "sarif", "en", "test"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sarif.String(), `_helpers.tpl"`) || !strings.Contains(sarif.String(), `"startLine": 3`) {
		t.Errorf("SARIF does not place the finding at _helpers.tpl line 3")
	}
}
