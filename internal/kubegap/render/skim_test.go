package render_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
	"github.com/incidentlib/incidentlib/internal/kubegap/render"
)

// bigCRD is a CustomResourceDefinition whose schema makes its file larger
// than the size skimming starts at, as an operator's CRDs are.
func bigCRD(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: %s.example.com\n  labels:\n    app: demo\nspec:\n  group: example.com\n  names:\n    kind: %s\n    plural: %s\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n", name, strings.ToUpper(name[:1])+name[1:], name)
	for i := range 900 {
		fmt.Fprintf(&b, "          field%d:\n            type: string\n            description: the field number %d of the widget's specification\n", i, i)
	}
	return b.String()
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: example/web:1
`

// writeKustomization writes a kustomization of two big CRDs (one file),
// a Deployment and extra lines of kustomization.yaml.
func writeKustomization(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"crds.yaml":          bigCRD("widgets") + "---\n" + bigCRD("gadgets"),
		"deployment.yaml":    deployment,
		"kustomization.yaml": "resources:\n- crds.yaml\n- deployment.yaml\nnamespace: demo\nlabels:\n- pairs:\n    team: a\n  includeSelectors: true\n" + extra,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSkimmedBuildSame: a scan's kustomize build hands the kinds it reads
// only the metadata of (CRDs) to kustomize without their spec, and every
// object comes out as the whole build makes it, the CRDs' apiVersion, kind
// and metadata included (labels, the namespace and a patch applied); a
// build that needs a CRD's spec (a JSON patch of it) is built again whole.
func TestSkimmedBuildSame(t *testing.T) {
	for _, tc := range []struct {
		name, extra string
		skimmed     bool // whether the CRDs come out without their spec
	}{
		{"labels, namespace and a strategic-merge patch", "patches:\n- patch: |-\n    apiVersion: apiextensions.k8s.io/v1\n    kind: CustomResourceDefinition\n    metadata:\n      name: widgets.example.com\n      annotations:\n        patched: \"yes\"\n", true},
		{"a JSON patch of a CRD's spec", "patches:\n- target:\n    kind: CustomResourceDefinition\n    name: gadgets.example.com\n  patch: |-\n    - op: replace\n      path: /spec/scope\n      value: Cluster\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeKustomization(t, tc.extra)
			whole, err := render.Kustomize(dir)
			if err != nil {
				t.Fatal(err)
			}
			skim, err := render.KustomizeWith(dir, render.KustomizeOptions{Skim: mcptools.MetadataOnly})
			if err != nil {
				t.Fatal(err)
			}
			if len(skim) != len(whole) || len(whole) != 3 {
				t.Fatalf("%d objects skimmed, %d whole, want 3", len(skim), len(whole))
			}
			for i := range whole {
				var w, s map[string]any
				if err := yaml.Unmarshal(whole[i].YAML, &w); err != nil {
					t.Fatal(err)
				}
				if err := yaml.Unmarshal(skim[i].YAML, &s); err != nil {
					t.Fatal(err)
				}
				if whole[i].File != skim[i].File || whole[i].Line != skim[i].Line {
					t.Errorf("object %d at %s:%d skimmed, %s:%d whole", i, skim[i].File, skim[i].Line, whole[i].File, whole[i].Line)
				}
				if w["kind"] != "CustomResourceDefinition" {
					if string(whole[i].YAML) != string(skim[i].YAML) {
						t.Errorf("%v differs:\n%s\nwhole:\n%s", w["kind"], skim[i].YAML, whole[i].YAML)
					}
					continue
				}
				for _, k := range []string{"apiVersion", "kind", "metadata"} {
					if fmt.Sprint(w[k]) != fmt.Sprint(s[k]) {
						t.Errorf("CRD %d: %s is %v skimmed, %v whole", i, k, s[k], w[k])
					}
				}
				if _, hasSpec := s["spec"]; hasSpec == tc.skimmed {
					t.Errorf("CRD %v: spec kept %v, want %v", s["metadata"], hasSpec, !tc.skimmed)
				}
				if !tc.skimmed && string(whole[i].YAML) != string(skim[i].YAML) {
					t.Errorf("a build again whole differs from the whole build")
				}
			}
		})
	}
}
