package render

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTaggedBuildSame: placing each built object by the tag put on its
// resource file's objects gives the same documents (file, line, bytes) as
// kustomize's own origins, and is the way taken wherever every object has
// a tag or a generator's name; where one has neither (a List's item, a
// generated name two generators' names are in, a resource file that is
// also a patch), the build is placed by kustomize's origins.
func TestTaggedBuildSame(t *testing.T) {
	files := map[string]string{
		"base/kustomization.yaml": "resources:\n- deploy.yaml\n- svc.yaml\n",
		"base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    zeta: \"1\"\n    alpha: \"2\"\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: example/web:1\n" +
			"---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: worker\n  annotations:\nspec:\n  selector:\n    matchLabels: {app: worker}\n  template:\n    metadata:\n      labels: {app: worker}\n    spec:\n      containers:\n      - name: worker\n        image: example/worker:1\n",
		"base/svc.yaml":                "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - port: 80\n",
		"plain/kustomization.yaml":     "resources:\n- ../base\nnamePrefix: prod-\nnamespace: prod\ncommonAnnotations:\n  team: a\npatches:\n- path: replicas.yaml\n",
		"plain/replicas.yaml":          "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
		"generated/kustomization.yaml": "resources:\n- ../base\nconfigMapGenerator:\n- name: settings\n  literals: [a=b]\n",
		"twogen/kustomization.yaml":    "resources:\n- ../generated\nconfigMapGenerator:\n- name: settings-extra\n  literals: [c=d]\n",
		"genp/kustomization.yaml":      "namePrefix: p-\nconfigMapGenerator:\n- name: settings\n  literals: [a=b]\n",
		"gen2/kustomization.yaml":      "resources:\n- ../genp\nconfigMapGenerator:\n- name: settings\n  behavior: merge\n  literals: [e=f]\n",
		"quirks/kustomization.yaml":    "resources:\n- d.yaml\n",
		"quirks/d.yaml":                "# scalars a YAML 1.1 reader reads otherwise, anchors, comments\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web # trailing\n  labels: &l {app: web}\nspec:\n  selector:\n    matchLabels: *l\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: example/web:1\n        env:\n        - {name: A, value: on}\n        - {name: B, value: yes}\n        - {name: C, value: 0123}\n        - {name: D, value: '1e3'}\n        - {name: E, value: 2001-01-01}\n        - {name: F, value: ~}\n        - name: G\n          value: |\n            two\n            lines\n",
		"list/kustomization.yaml":      "resources:\n- list.yaml\n",
		"list/list.yaml":               "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: one\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: two\n",
		"both/kustomization.yaml":      "resources:\n- ../base\n- extra.yaml\npatchesStrategicMerge:\n- extra.yaml\n",
		"both/extra.yaml":              "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    extra: \"yes\"\n",
	}
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		dir    string
		tagged bool
	}{
		{"base", true}, {"plain", true}, {"quirks", true}, {"testdata/kustomize/prod", true},
		{"generated", true}, {"list", false}, {"twogen", false}, {"gen2", false},
	} {
		dir := tc.dir
		if _, err := os.Stat(dir); err != nil {
			dir = filepath.Join(root, tc.dir)
		}
		fast, tagged, err := kustomize(dir, KustomizeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.dir, err)
		}
		exact, _, err := kustomize(dir, KustomizeOptions{KustomizeOrigins: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.dir, err)
		}
		if tagged != tc.tagged {
			t.Errorf("%s: placed by tags: %v, want %v", tc.dir, tagged, tc.tagged)
		}
		if len(fast) != len(exact) {
			t.Fatalf("%s: %d objects, %d by kustomize's origins", tc.dir, len(fast), len(exact))
		}
		for i := range fast {
			if fast[i].File != exact[i].File || fast[i].Line != exact[i].Line || string(fast[i].YAML) != string(exact[i].YAML) {
				t.Errorf("%s: object %d at %s:%d, %s:%d by kustomize's origins:\n%s\n---\n%s", tc.dir, i, fast[i].File, fast[i].Line, exact[i].File, exact[i].Line, fast[i].YAML, exact[i].YAML)
			}
		}
	}
	// A file that is a resource and a patch is not tagged: as a patch it
	// would carry its tag onto the objects of other files.
	tagged, _, ok := resourceFiles(filepath.Join(root, "both"))
	if !ok {
		t.Fatal("both: the walk failed")
	}
	if _, has := tagged[filepath.Join(root, "both", "extra.yaml")]; has || len(tagged) != 2 {
		t.Errorf("both: tagged %v, want base's two files and not the patch", tagged)
	}
}
