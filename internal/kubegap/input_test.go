package kubegap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
)

// TestValidateBinding: bindings the API server rejects are named with the
// field to fix; those it accepts after its defaults are not.
func TestValidateBinding(t *testing.T) {
	const ref = `"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}`
	for _, tc := range []struct {
		name, kind, json, want string
	}{
		{"valid", "ClusterRoleBinding", `{` + ref + `, "subjects": [{"kind": "ServiceAccount", "name": "a", "namespace": "n"}]}`, ""},
		{"user without apiGroup is defaulted", "ClusterRoleBinding", `{` + ref + `, "subjects": [{"kind": "User", "name": "u"}, {"kind": "Group", "name": "g"}]}`, ""},
		{"roleRef apiGroup defaulted", "ClusterRoleBinding", `{"roleRef": {"kind": "ClusterRole", "name": "view"}}`, ""},
		{"rolebinding sa takes its namespace", "RoleBinding", `{"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}, "subjects": [{"kind": "ServiceAccount", "name": "a"}]}`, ""},
		{"sa without namespace", "ClusterRoleBinding", `{` + ref + `, "subjects": [{"kind": "ServiceAccount", "name": "datadog"}]}`, "subjects[0] (ServiceAccount datadog) has no namespace"},
		{"crb to a role", "ClusterRoleBinding", `{"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}}`, `roleRef.kind is "Role": a ClusterRoleBinding can only refer to a ClusterRole`},
		{"rb to a deployment", "RoleBinding", `{"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Deployment", "name": "r"}}`, `roleRef.kind is "Deployment"`},
		{"wrong roleRef group", "RoleBinding", `{"roleRef": {"apiGroup": "apps", "kind": "Role", "name": "r"}}`, `roleRef.apiGroup is "apps"`},
		{"no role name", "RoleBinding", `{"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role"}}`, "roleRef.name is empty"},
		{"sa with a group", "RoleBinding", `{"roleRef": {"kind": "Role", "name": "r"}, "subjects": [{"kind": "ServiceAccount", "apiGroup": "rbac.authorization.k8s.io", "name": "a"}]}`, `subjects[0].apiGroup is "rbac.authorization.k8s.io"`},
		{"user in another group", "RoleBinding", `{"roleRef": {"kind": "Role", "name": "r"}, "subjects": [{"kind": "User", "apiGroup": "example.com", "name": "u"}]}`, `subjects[0].apiGroup is "example.com"`},
		{"unknown subject kind", "RoleBinding", `{"roleRef": {"kind": "Role", "name": "r"}, "subjects": [{"kind": "Robot", "name": "r"}]}`, `subjects[0].kind is "Robot"`},
		{"subject without name", "RoleBinding", `{"roleRef": {"kind": "Role", "name": "r"}, "subjects": [{"kind": "Group"}]}`, "subjects[0].name is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := validateBinding(tc.kind, []byte(tc.json))
			if tc.want == "" && got != "" || tc.want != "" && (!strings.Contains(got, tc.want) || !strings.HasPrefix(got, "the API server rejects the binding")) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRemovedAPIs: each version is served until the release that removed
// it, and the replacement is named.
func TestRemovedAPIs(t *testing.T) {
	for _, tc := range []struct {
		apiVersion, kind string
		removed          int
		use              string
	}{
		{"flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema", 26, "flowcontrol.apiserver.k8s.io/v1"},
		{"flowcontrol.apiserver.k8s.io/v1beta2", "PriorityLevelConfiguration", 29, "flowcontrol.apiserver.k8s.io/v1"},
		{"flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema", 32, "flowcontrol.apiserver.k8s.io/v1"},
		{"extensions/v1beta1", "Deployment", 16, "apps/v1"},
		{"extensions/v1beta1", "Ingress", 22, "networking.k8s.io/v1"},
		{"policy/v1beta1", "PodDisruptionBudget", 25, "policy/v1"},
		{"policy/v1beta1", "PodSecurityPolicy", 25, "Pod Security Admission"},
		{"batch/v1beta1", "CronJob", 25, "batch/v1"},
		{"autoscaling/v2beta1", "HorizontalPodAutoscaler", 25, "autoscaling/v2"},
		{"autoscaling/v2beta2", "HorizontalPodAutoscaler", 26, "autoscaling/v2"},
		{"rbac.authorization.k8s.io/v1beta1", "ClusterRoleBinding", 22, "rbac.authorization.k8s.io/v1"},
	} {
		if _, gone := manifest.Removed(tc.apiVersion, tc.kind, manifest.KubeVersion{Minor: tc.removed - 1}); gone {
			t.Errorf("%s %s reported removed in 1.%d", tc.apiVersion, tc.kind, tc.removed-1)
		}
		r, gone := manifest.Removed(tc.apiVersion, tc.kind, manifest.KubeVersion{Minor: tc.removed})
		if !gone || !strings.HasPrefix(r.Use, tc.use) {
			t.Errorf("%s %s at 1.%d: %v %+v", tc.apiVersion, tc.kind, tc.removed, gone, r)
		}
		if _, gone := manifest.Removed(tc.apiVersion, tc.kind, manifest.NewestKube); !gone {
			t.Errorf("%s %s served by the newest", tc.apiVersion, tc.kind)
		}
	}
	for _, ok := range [][2]string{{"apps/v1", "Deployment"}, {"flowcontrol.apiserver.k8s.io/v1", "FlowSchema"}, {"batch/v1", "CronJob"}, {"example.com/v1beta1", "Widget"}} {
		if _, gone := manifest.Removed(ok[0], ok[1], manifest.NewestKube); gone {
			t.Errorf("%s %s reported removed", ok[0], ok[1])
		}
	}
	for in, want := range map[string]int{"1.29": 29, "v1.26": 26, "1.30.4": 30} {
		if v, err := manifest.ParseKubeVersion(in); err != nil || v.Minor != want {
			t.Errorf("ParseKubeVersion(%q) = %v, %v", in, v, err)
		}
	}
	for _, bad := range []string{"", "1", "2.1", "1.x", "1.99", "latest"} {
		if _, err := manifest.ParseKubeVersion(bad); err == nil {
			t.Errorf("ParseKubeVersion(%q) accepted", bad)
		}
	}
}

// TestStreams: manifests that come from elsewhere than a path (rendered
// output) are read under their name, with their templates.
func TestStreams(t *testing.T) {
	out := "---\n# Source: web/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: coredns, namespace: kube-system}\nspec:\n  replicas: 1\n  selector: {matchLabels: {k8s-app: kube-dns}}\n  template:\n    metadata: {labels: {k8s-app: kube-dns}}\n    spec:\n      containers: [{name: coredns, image: coredns/coredns:1.11.1}]\n"
	cs := checks.All()
	inv, in, problems, err := ReadInput(nil, nil, cs, ReadOptions{Streams: []Stream{{Name: "chart web", R: strings.NewReader(out)}}})
	if err != nil {
		t.Fatal(err)
	}
	src := inv.Sources[inventory.Ref{Kind: "Deployment", Namespace: "kube-system", Name: "coredns"}]
	if src.File != "chart web" || src.Line != 3 || src.Template != "web/templates/deploy.yaml" || in.Files != 1 || in.Checked != 1 || len(problems) != 0 {
		t.Errorf("source %+v, input %+v, problems %+v", src, in, problems)
	}
	if _, _, _, err := ReadInput(nil, nil, cs, ReadOptions{Streams: []Stream{{Name: "chart empty", R: strings.NewReader("")}}}); err == nil || !strings.Contains(err.Error(), "the input (chart empty) holds no Kubernetes object") {
		t.Errorf("empty stream: %v", err)
	}
}

// TestDecodeProblems pins the problems made of objects that do not decode
// (AddObject's slow way): the object's kind, namespace and name, and the
// field, whether the bad field is in the metadata or elsewhere, and
// whether the namespace was given by -n.
func TestDecodeProblems(t *testing.T) {
	const yaml = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {replicas: many}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec: {template: {spec: {containers: [{name: a, ports: [{containerPort: "80"}]}]}}}
---
apiVersion: v1
kind: Service
metadata: {name: [x], namespace: shop}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: elsewhere, namespace: shop}
data: {a: [1]}
---
apiVersion: v1
kind: Service
metadata: {name: fine, namespace: shop}
`
	inv, in, problems, err := ReadInput([]string{"-"}, strings.NewReader(yaml), checks.All(), ReadOptions{Namespace: "web", NamespaceSet: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	differs := ": the object's namespace shop differs from -n web: kubectl apply -n web would refuse it; scanned in shop"
	want := []string{
		"<stdin>:1: Deployment shop/web" + differs,
		"<stdin>:1: Deployment shop/web: field spec.replicas: expected int32, got a string; fix the field, the object was not scanned",
		"<stdin>:6: Deployment/api: field spec.template.spec.containers.ports.containerPort: expected int32, got a string; fix the field, the object was not scanned",
		"<stdin>:11: Service" + differs,
		"<stdin>:11: Service: field metadata.name: expected string, got a array; fix the field, the object was not scanned",
		"<stdin>:15: ConfigMap shop/elsewhere" + differs,
		"<stdin>:20: Service shop/fine" + differs,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The ConfigMap outside kube-system is not needed, bad data or not.
	if len(inv.ConfigMaps) != 0 || in.Checked != 1 {
		t.Errorf("%d ConfigMaps filed, %d objects checked", len(inv.ConfigMaps), in.Checked)
	}
}

// TestTemplateWarnings: template text left in an object costs no more
// than its field. A placeholder in a field that is no string (a quantity)
// is dropped, named in a warning at its line, and the object is scanned;
// a Go template in a string value is a warning and is scanned as written;
// the object counts as checked, and only warnings are raised.
func TestTemplateWarnings(t *testing.T) {
	const yaml = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: "{{ .Values.image }}"
        resources:
          limits: {memory: __MEM__}
`
	file := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	inv, in, problems, err := ReadInput([]string{file}, nil, checks.All(), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, string(p.Level)+" "+strings.TrimPrefix(p.String(), file))
	}
	want := []string{
		"warning :12: Deployment shop/web: unrendered Go template `{{ .Values.image }}` in a string value: render the template first (helm template, or --chart DIR); scanned as written",
		"warning :14: Deployment shop/web: unrendered template placeholder `__MEM__` in spec.template.spec.containers[0].resources.limits.memory: render the template first; that field is unknown to the checks (none reports it missing), and the rest of the object was scanned",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(inv.Deployments) != 1 || in.Checked != 1 {
		t.Errorf("%d Deployments filed, %d objects checked; want the object scanned", len(inv.Deployments), in.Checked)
	}
}
