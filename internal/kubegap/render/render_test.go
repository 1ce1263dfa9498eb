package render_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/kubegap/render"
)

const (
	charts = "testdata/charts"
	kust   = "testdata/kustomize"
)

// obj is what a test asserts of one rendered object.
type obj struct {
	Kind, Namespace, Name, File string
	Line                        int
	Replicas                    int
	MemoryLimit                 string
	Annotations                 []string
}

func summarise(t *testing.T, docs []render.Doc) []obj {
	t.Helper()
	var out []obj
	for _, d := range docs {
		var o struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Namespace   string            `json:"namespace"`
				Name        string            `json:"name"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			Spec struct {
				Replicas *int `json:"replicas"`
				Template struct {
					Spec struct {
						Containers []struct {
							Resources struct {
								Limits map[string]string `json:"limits"`
							} `json:"resources"`
						} `json:"containers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(d.YAML, &o); err != nil {
			t.Fatalf("%s: %v\n%s", d.File, err, d.YAML)
		}
		s := obj{Kind: o.Kind, Namespace: o.Metadata.Namespace, Name: o.Metadata.Name, File: d.File, Line: d.Line}
		if o.Spec.Replicas != nil {
			s.Replicas = *o.Spec.Replicas
		}
		if cs := o.Spec.Template.Spec.Containers; len(cs) > 0 {
			s.MemoryLimit = cs[0].Resources.Limits["memory"]
		}
		for k := range o.Metadata.Annotations {
			s.Annotations = append(s.Annotations, k)
		}
		out = append(out, s)
	}
	return out
}

func tpl(p string) string { return filepath.Join(charts, "web", p) }

func TestChartDefaults(t *testing.T) {
	docs, err := render.Chart(context.Background(), render.ChartOptions{Chart: filepath.Join(charts, "web"), Namespace: "web", KubeVersion: "1.33"})
	if err != nil {
		t.Fatal(err)
	}
	// Install order, hooks last; NOTES.txt, _helpers.tpl and the empty
	// document of the disabled budget give nothing. Every object is at
	// its template on disk, with no line (a template's output lines are
	// not its lines).
	want := []obj{
		{Kind: "Service", Namespace: "web", Name: "release-name-web", File: tpl("templates/service.yaml")},
		{Kind: "Deployment", Namespace: "web", Name: "release-name-web", File: tpl("templates/deployment.yaml"), Replicas: 1, MemoryLimit: "256Mi"},
		{Kind: "StatefulSet", Namespace: "web", Name: "release-name-cache", File: tpl("charts/cache/templates/statefulset.yaml"), Replicas: 2, MemoryLimit: "1Gi"},
		{Kind: "Job", Namespace: "web", Name: "release-name-migrate", File: tpl("templates/migrate-job.yaml"), MemoryLimit: "64Mi", Annotations: []string{"helm.sh/hook"}},
	}
	if diff := cmp.Diff(want, summarise(t, docs)); diff != "" {
		t.Errorf("rendered objects (-want +got):\n%s", diff)
	}
}

func TestChartValuesSetRelease(t *testing.T) {
	docs, err := render.Chart(context.Background(), render.ChartOptions{
		Chart:       filepath.Join(charts, "web"),
		ValuesFiles: []string{filepath.Join(charts, "prod-values.yaml")},
		Set:         []string{"cache.replicas=5", "pdb=true", "replicas=6"},
		Release:     "shop",
		KubeVersion: "v1.33.2",
	})
	if err != nil {
		t.Fatal(err)
	}
	// The values file drops the memory limit and sets 3 replicas; --set
	// wins over it (6) and reaches the subchart (5); no -n is "default".
	want := []obj{
		{Kind: "PodDisruptionBudget", Namespace: "default", Name: "shop-web", File: tpl("templates/service.yaml")},
		{Kind: "Service", Namespace: "default", Name: "shop-web", File: tpl("templates/service.yaml")},
		{Kind: "Deployment", Namespace: "default", Name: "shop-web", File: tpl("templates/deployment.yaml"), Replicas: 6},
		{Kind: "StatefulSet", Namespace: "default", Name: "shop-cache", File: tpl("charts/cache/templates/statefulset.yaml"), Replicas: 5, MemoryLimit: "1Gi"},
		{Kind: "Job", Namespace: "default", Name: "shop-migrate", File: tpl("templates/migrate-job.yaml"), MemoryLimit: "64Mi", Annotations: []string{"helm.sh/hook"}},
	}
	if diff := cmp.Diff(want, summarise(t, docs)); diff != "" {
		t.Errorf("rendered objects (-want +got):\n%s", diff)
	}

	// Of two values files, the later one wins.
	more := filepath.Join(t.TempDir(), "more.yaml")
	if err := os.WriteFile(more, []byte("replicas: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err = render.Chart(context.Background(), render.ChartOptions{Chart: filepath.Join(charts, "web"),
		ValuesFiles: []string{filepath.Join(charts, "prod-values.yaml"), more}})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range summarise(t, docs) {
		if o.Kind == "Deployment" && (o.Replicas != 7 || o.MemoryLimit != "") {
			t.Errorf("two values files: %+v, want 7 replicas and no memory limit", o)
		}
	}

	// The subchart's condition turns it off.
	docs, err = render.Chart(context.Background(), render.ChartOptions{Chart: filepath.Join(charts, "web"), Set: []string{"cache.enabled=false"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range summarise(t, docs) {
		if o.Kind == "StatefulSet" {
			t.Errorf("cache.enabled=false still rendered %+v", o)
		}
	}
}

func TestChartPackaged(t *testing.T) {
	tgz := packageChart(t, charts)
	docs, err := render.Chart(context.Background(), render.ChartOptions{Chart: tgz, Namespace: "web"})
	if err != nil {
		t.Fatal(err)
	}
	// Inside an archive, the template's place is Helm's name for it.
	var files []string
	for _, o := range summarise(t, docs) {
		files = append(files, o.Kind+" "+o.File)
	}
	want := []string{"Service web/templates/service.yaml", "Deployment web/templates/deployment.yaml",
		"StatefulSet web/charts/cache/templates/statefulset.yaml", "Job web/templates/migrate-job.yaml"}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("places (-want +got):\n%s", diff)
	}
}

func TestChartErrors(t *testing.T) {
	web := filepath.Join(charts, "web")
	for _, tc := range []struct {
		name string
		o    render.ChartOptions
		want []string
	}{
		{"template error", render.ChartOptions{Chart: filepath.Join(charts, "broken")},
			[]string{"render chart broken: broken/templates/configmap.yaml:6:18", "<.Values.storage.size>", "nil pointer"}},
		{"missing dependency", render.ChartOptions{Chart: filepath.Join(charts, "nodeps")},
			[]string{"chart nodeps depends on redis, which is not in charts/: run `helm dependency build " + filepath.Join(charts, "nodeps") + "`"}},
		{"set without =", render.ChartOptions{Chart: web, Set: []string{"replicas"}}, []string{`--set "replicas": want key=value`}},
		{"set bad list", render.ChartOptions{Chart: web, Set: []string{"a={b"}}, []string{`--set "a={b"`, "list must terminate"}},
		{"set that sets nothing", render.ChartOptions{Chart: web, Set: []string{"=3"}}, []string{`--set "=3" sets no value`}},
		{"missing values file", render.ChartOptions{Chart: web, ValuesFiles: []string{"no/such.yaml"}}, []string{"--values no/such.yaml: no such file"}},
		{"bad kube version", render.ChartOptions{Chart: web, KubeVersion: "latest"}, []string{`--kube-version "latest"`}},
		{"bad release", render.ChartOptions{Chart: web, Release: "Bad_Name"}, []string{`--release "Bad_Name"`}},
		{"values against the chart's schema", render.ChartOptions{Chart: filepath.Join(charts, "schema"), Set: []string{"replicas=0"}},
			[]string{"chart schema: values:", "at '/replicas': minimum: got 0, want 1"}},
		{"a schema its metaschema refuses", render.ChartOptions{Chart: filepath.Join(charts, "badschema")},
			[]string{"chart badschema: values:", "not valid against metaschema", "at '/properties/replicas/type'"}},
		{"not a chart", render.ChartOptions{Chart: filepath.Join(kust, "base")}, []string{"no Chart.yaml in this folder"}},
		{"no such chart", render.ChartOptions{Chart: "no/such/chart"}, []string{"chart no/such/chart: no such file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := render.Chart(context.Background(), tc.o)
			if err == nil {
				t.Fatalf("no error; %d docs", len(docs))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func kf(dir, file string) string { return filepath.Join(kust, dir, file) }

func TestKustomize(t *testing.T) {
	docs, err := render.Kustomize(filepath.Join(kust, "prod"))
	if err != nil {
		t.Fatal(err)
	}
	var cmName string
	for _, o := range summarise(t, docs) {
		if o.Kind == "ConfigMap" {
			cmName = o.Name
		}
	}
	if !strings.HasPrefix(cmName, "prod-api-config-") {
		t.Fatalf("generated ConfigMap named %q", cmName)
	}
	// In the kustomization's order; the namespace and namePrefix are
	// applied, the patch sets 4 replicas, each object is at its source
	// file and line, the generated ConfigMap at the kustomization that
	// configures it; the origin annotations asked for are taken off.
	want := []obj{
		{Kind: "Service", Namespace: "shop", Name: "prod-api", File: kf("base", "service.yaml"), Line: 2},
		{Kind: "PodDisruptionBudget", Namespace: "shop", Name: "prod-api", File: kf("base", "service.yaml"), Line: 12},
		{Kind: "Deployment", Namespace: "shop", Name: "prod-api", File: kf("base", "deployment.yaml"), Line: 1, Replicas: 4},
		{Kind: "Deployment", Namespace: "shop", Name: "prod-worker", File: kf("prod", "worker.yaml"), Line: 1, Replicas: 2, MemoryLimit: "128Mi"},
		{Kind: "ConfigMap", Namespace: "shop", Name: cmName, File: kf("prod", "kustomization.yaml")},
	}
	if diff := cmp.Diff(want, summarise(t, docs)); diff != "" {
		t.Errorf("built objects (-want +got):\n%s", diff)
	}
}

func TestKustomizeErrors(t *testing.T) {
	// A remote base under the deprecated bases: field is refused too.
	bases := t.TempDir()
	if err := os.WriteFile(filepath.Join(bases, "kustomization.yaml"), []byte("bases:\n  - https://example.com/deploy/all.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, dir, want string }{
		{"remote bases", bases, `"https://example.com/deploy/all.yaml" is a remote base`},
		{"missing patch", filepath.Join(kust, "bad"), "missing-patch.yaml: no such file or directory"},
		{"remote base", filepath.Join(kust, "remote"), `"github.com/example/deploy//overlays/prod?ref=v1.2.0" is a remote base, which kubegap does not fetch`},
		{"not a kustomization", filepath.Join(charts, "web"), "no kustomization.yaml in this folder"},
		{"a file", filepath.Join(kust, "base", "deployment.yaml"), "-k takes the folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := render.Kustomize(tc.dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// scan reads docs as kubegap scan does and runs one check.
func scan(t *testing.T, docs []render.Doc, id string) *kubegap.Result {
	t.Helper()
	cs := []*checks.Check{checks.Get(id)}
	inv, in, problems, err := kubegap.ReadInput(nil, nil, cs, kubegap.ReadOptions{Streams: render.Streams(docs)})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 || in.Objects == 0 {
		t.Fatalf("reading the rendered documents: %d objects, problems %+v", in.Objects, problems)
	}
	return kubegap.Evaluate(inv, cs, nil, true)
}

type located struct {
	Check  string
	Object inventory.Ref
	File   string
	Line   int
}

func findings(res *kubegap.Result) []located {
	var out []located
	for _, f := range res.Findings {
		src := res.Sources[f.Object]
		out = append(out, located{f.Check, f.Object, src.File, src.Line})
	}
	return out
}

func TestChecksSeeRenderedObjects(t *testing.T) {
	docs, err := render.Chart(context.Background(), render.ChartOptions{Chart: filepath.Join(charts, "web"), Namespace: "web",
		ValuesFiles: []string{filepath.Join(charts, "prod-values.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	want := []located{{"no-memory-limit", inventory.Ref{Kind: "Deployment", Namespace: "web", Name: "release-name-web"}, tpl("templates/deployment.yaml"), 0}}
	if diff := cmp.Diff(want, findings(scan(t, docs, "no-memory-limit"))); diff != "" {
		t.Errorf("chart findings (-want +got):\n%s", diff)
	}

	docs, err = render.Kustomize(filepath.Join(kust, "prod"))
	if err != nil {
		t.Fatal(err)
	}
	want = []located{{"no-memory-limit", inventory.Ref{Kind: "Deployment", Namespace: "shop", Name: "prod-api"}, kf("base", "deployment.yaml"), 1}}
	if diff := cmp.Diff(want, findings(scan(t, docs, "no-memory-limit"))); diff != "" {
		t.Errorf("kustomize findings (-want +got):\n%s", diff)
	}
	// The base's Deployment and the overlay's own are each found at their
	// own file.
	want = []located{
		{"replicas-not-spread", inventory.Ref{Kind: "Deployment", Namespace: "shop", Name: "prod-api"}, kf("base", "deployment.yaml"), 1},
		{"replicas-not-spread", inventory.Ref{Kind: "Deployment", Namespace: "shop", Name: "prod-worker"}, kf("prod", "worker.yaml"), 1},
	}
	if diff := cmp.Diff(want, findings(scan(t, docs, "replicas-not-spread"))); diff != "" {
		t.Errorf("kustomize findings (-want +got):\n%s", diff)
	}
}

func TestReadLocatesBadDocuments(t *testing.T) {
	docs := []render.Doc{
		{File: "c/templates/ok.yaml", YAML: []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n")},
		{File: "c/templates/bad.yaml", YAML: []byte("# a comment\n\napiVersion: v1\nmetadata:\n  name: b\n")},
	}
	var got []string
	err := render.Read(docs, nil, func(d manifest.Doc) error {
		got = append(got, d.Kind+" "+d.File)
		if d.Line != 0 {
			t.Errorf("%s: line %d, want none", d.File, d.Line)
		}
		return nil
	})
	if diff := cmp.Diff([]string{"Service c/templates/ok.yaml"}, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	if err == nil || err.Error() != "c/templates/bad.yaml: object has no kind (line 3 of its rendered output)" {
		t.Errorf("error %v", err)
	}
}

func TestKustomizeKeepsAskedOrigins(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"kustomization.yaml": "buildMetadata: [originAnnotations]\nresources: [cm.yaml]\n",
		"cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := render.Kustomize(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Two objects of one kind in a file: each gets its own line.
	want := []obj{
		{Kind: "ConfigMap", Name: "a", File: filepath.Join(dir, "cm.yaml"), Line: 1, Annotations: []string{"config.kubernetes.io/origin"}},
		{Kind: "ConfigMap", Name: "b", File: filepath.Join(dir, "cm.yaml"), Line: 6, Annotations: []string{"config.kubernetes.io/origin"}},
	}
	if diff := cmp.Diff(want, summarise(t, docs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
