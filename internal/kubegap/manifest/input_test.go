package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readWith reads paths with a Reader and returns it with "KIND/LINE" of
// every object, in order.
func readWith(t *testing.T, stdin string, paths ...string) (*Reader, []string) {
	t.Helper()
	r := &Reader{Stdin: strings.NewReader(stdin)}
	var got []string
	if err := r.ReadPaths(paths, func(d Doc) error {
		got = append(got, fmt.Sprintf("%s/%d", d.Kind, d.Line))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return r, got
}

const brokenMiddle = "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: b\n---\n# c\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\nmetadata: {name: no-kind}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: d}\n"

// TestReaderGoesOn: a broken document is a problem at its line, and the
// documents before and after it are read, once each, from a file and
// from standard input alike.
func TestReaderGoesOn(t *testing.T) {
	f := filepath.Join(t.TempDir(), "m.yaml")
	os.WriteFile(f, []byte(brokenMiddle), 0o644)
	for _, tc := range []struct{ path, stdin, name string }{{f, "", f}, {"-", brokenMiddle, StdinName}} {
		r, got := readWith(t, tc.stdin, tc.path)
		if g := strings.Join(got, " "); g != "Service/1 ConfigMap/10 Service/16" {
			t.Errorf("%s: objects %s", tc.name, g)
		}
		if len(r.Problems) != 2 || r.Objects != 3 || r.Files != 1 {
			t.Fatalf("%s: %d objects, problems %+v", tc.name, r.Objects, r.Problems)
		}
		p := r.Problems[0]
		if p.File != tc.name || p.Line != 6 || p.Kind != "Service" || p.Name != "b" || !strings.HasPrefix(p.Message, "invalid YAML") {
			t.Errorf("%s: first problem %+v", tc.name, p)
		}
		if p := r.Problems[1]; p.Line != 14 || p.Message != "object has no kind" {
			t.Errorf("%s: second problem %+v", tc.name, p)
		}
	}
}

// TestReaderSkips: what is not a manifest is skipped with its reason;
// charts and kustomize folders are problems that say how to render them.
func TestReaderSkips(t *testing.T) {
	dir := t.TempDir()
	w := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"
	w("ok.yaml", svc)
	w("addon.yaml.base", svc)
	w("notes.md", "# notes\n")
	w("old.yaml.bak", svc)
	w("empty.yaml", "# nothing\n")
	w("config.yaml", "replicas: 3\n")
	w("list.json", "[1, 2]\n")
	w(".git/x.yaml", svc)
	w("chart/Chart.yaml", "apiVersion: v2\nname: c\n")
	tmpl := w("chart/templates/d.yaml", "kind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n")
	w("kust/kustomization.yaml", "resources: [a.yaml]\n")
	w("kust/a.yaml", svc)
	r, got := readWith(t, "", dir)
	if g := strings.Join(got, " "); g != "Service/1 Service/1" {
		t.Errorf("objects %s (want ok.yaml and addon.yaml.base)", g)
	}
	want := map[string]string{
		"notes.md": SkipNotManifestExt, "old.yaml.bak": SkipNotManifestExt, "empty.yaml": SkipEmpty,
		"config.yaml": SkipNotKubernetes, "list.json": SkipNotKubernetes, ".git": SkipHidden,
		"chart": SkipHelmChart, "kust": SkipKustomize,
	}
	if len(r.Skipped) != len(want) {
		t.Errorf("skipped %+v", r.Skipped)
	}
	for _, s := range r.Skipped {
		rel, _ := filepath.Rel(dir, s.File)
		if want[rel] != s.Reason {
			t.Errorf("%s skipped as %q, want %q", rel, s.Reason, want[rel])
		}
	}
	if len(r.Problems) != 2 || !strings.Contains(r.Problems[0].Message, "this folder is a Helm chart: use --chart "+filepath.Join(dir, "chart")) ||
		!strings.Contains(r.Problems[1].Message, "use -k "+filepath.Join(dir, "kust")) {
		t.Errorf("problems %+v", r.Problems)
	}
	// A file of a chart, named on its own, is not read either.
	r, got = readWith(t, "", tmpl)
	if len(got) != 0 || len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message, "this file belongs to the Helm chart") {
		t.Errorf("chart template: %v %+v", got, r.Problems)
	}
	// A Go template outside a chart: the problem says to render it.
	r, _ = readWith(t, "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\nspec:\n  {{- if .Values.lb }}\n  type: LoadBalancer\n  {{- end }}\n", "-")
	if len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0].Message, "unrendered Go template `{{- if .Values.lb }}`") || r.Problems[0].Name != "x" {
		t.Errorf("template on stdin: %+v", r.Problems)
	}
}

// TestSourceComments: objects of Helm output name the template that
// produced them ("# Source:"), also after a broken document, and an object
// in a document without the comment names none.
func TestSourceComments(t *testing.T) {
	in := "---\n# Source: web/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n" +
		"---\n# Source: web/templates/broken.yaml\napiVersion: v1\nkind: Service\nmetadata: {name: x\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n" +
		"---\n# Source: web/templates/svc.yaml\n# another comment\napiVersion: v1\nkind: Service\nmetadata: {name: web}\n"
	f := filepath.Join(t.TempDir(), "out.yaml")
	os.WriteFile(f, []byte(in), 0o644)
	for _, path := range []string{f, "-"} {
		r := &Reader{Stdin: strings.NewReader(in)}
		var got []string
		if err := r.ReadPaths([]string{path}, func(d Doc) error {
			got = append(got, fmt.Sprintf("%s/%d=%s", d.Kind, d.Line, d.Template))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		want := "Deployment/3=web/templates/deploy.yaml ConfigMap/12= Service/18=web/templates/svc.yaml"
		if g := strings.Join(got, " "); g != want || len(r.Problems) != 1 {
			t.Errorf("%s: got %s, want %s (problems %+v)", path, g, want, r.Problems)
		}
	}
}
