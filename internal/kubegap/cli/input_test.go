package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
)

const upstream = "../testdata/upstream"

// jsonReport is the part of the JSON report these tests read.
type jsonReport struct {
	Findings []struct {
		Check            string
		Severity         string
		Object           struct{ Kind, Namespace, Name string }
		Message          string
		File             string
		Line             int
		NamespaceAssumed bool `json:"namespace_assumed"`
	}
	Problems []manifest.Problem
	Input    struct {
		Files          int
		Objects        int
		Checked        int             `json:"objects_checked"`
		SkippedFiles   []manifest.Skip `json:"skipped_files"`
		SkippedObjects []struct {
			Reason string
			Count  int
			Kinds  []string
		} `json:"skipped_objects"`
		Namespace   string
		KubeVersion string `json:"kube_version"`
	}
	Checks struct {
		Selected     int `json:"selected"`
		Evaluated    int `json:"evaluated"`
		NotEvaluated int `json:"not_evaluated"`
	} `json:"checks"`
}

func decode(t *testing.T, out string) jsonReport {
	t.Helper()
	var r jsonReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	return r
}

// TestUpstreamFolder: a folder modelled on public upstream manifests, with
// an addon template, Helm output, a chart, a kustomize base, stray files,
// a removed API version, a rejected binding, a duplicate and a broken
// document, is scanned to the end; each problem comes at its FILE:LINE
// with its message, and the exit code says that part of the input could
// not be read (2 with --strict).
func TestUpstreamFolder(t *testing.T) {
	d := upstream
	p := func(rel string) string { return filepath.Join(d, rel) }
	want := []manifest.Problem{
		{File: p("agents/vector.yaml"), Line: 3, Level: "error", Kind: "ClusterRoleBinding", Name: "vector",
			Message: "the API server rejects the binding, so it was not matched: subjects[0] (ServiceAccount vector) has no namespace: set subjects[0].namespace to the service account's namespace"},
		{File: p("apps/web.yaml"), Line: 17, Level: "warning", Kind: "Deployment", Namespace: "web", Name: "web",
			Message: "unrendered Go template `{{.Target}}` in a string value: render the template first (helm template, or --chart DIR); scanned as written"},
		{File: p("apps/web2.yaml"), Line: 2, Level: "error", Kind: "Deployment", Namespace: "web", Name: "web",
			Message: "the same Deployment (group, kind, namespace and name) is also at " + p("apps/web.yaml") + ":1; only that first copy was scanned: remove one of them",
			Also:    []manifest.Place{{File: p("apps/web.yaml"), Line: 1}}},
		{File: p("broken/mixed.yaml"), Line: 6, Level: "error", Kind: "Service", Namespace: "web", Name: "broken",
			Message: "invalid YAML: did not find expected ',' or '}'"},
		{File: p("charts/web/Chart.yaml"), Line: 1, Level: "error",
			Message: "this folder is a Helm chart: use --chart " + p("charts/web") + " (or helm template " + p("charts/web") + " | kubegap scan -f -)"},
		{File: p("dns/coredns.yaml.base"), Line: 19, Level: "warning", Kind: "ConfigMap", Namespace: "kube-system", Name: "coredns",
			Message: "unrendered template placeholder `__DNS__DOMAIN__`: render the template first; scanned as written"},
		{File: p("dns/coredns.yaml.base"), Line: 48, Level: "warning", Kind: "Deployment", Namespace: "kube-system", Name: "coredns",
			Message: "unrendered template placeholder `__DNS__MEMORY__LIMIT__` in spec.template.spec.containers[0].resources.limits.memory: render the template first; that field is unknown to the checks (none reports it missing), and the rest of the object was scanned"},
		{File: p("dns/coredns.yaml.base"), Line: 61, Level: "warning", Kind: "Service", Namespace: "kube-system", Name: "kube-dns",
			Message: "unrendered template placeholder `__DNS__SERVER__`: render the template first; scanned as written"},
		{File: p("kustomize/base/kustomization.yaml"), Line: 1, Level: "error", Kind: "Kustomization",
			Message: "this folder is a kustomize folder: use -k " + p("kustomize/base") + " (or kubectl kustomize " + p("kustomize/base") + " | kubegap scan -f -)"},
		{File: p("legacy/apf.yaml"), Line: 1, Level: "error", Kind: "FlowSchema", Name: "agents",
			Message: "flowcontrol.apiserver.k8s.io/v1beta1 is not served by Kubernetes 1.37 (removed in 1.26): use flowcontrol.apiserver.k8s.io/v1 (served since 1.29; v1beta3 before); kubectl apply would fail, so the object was not scanned (--kube-version sets the target)"},
		{File: p("legacy/apf.yaml"), Line: 9, Level: "error", Kind: "Ingress", Namespace: "web", Name: "web",
			Message: "extensions/v1beta1 is not served by Kubernetes 1.37 (removed in 1.22): use networking.k8s.io/v1; kubectl apply would fail, so the object was not scanned (--kube-version sets the target)"},
	}
	code, out, stderr := run(t, "", "scan", "-f", d, "-o", "json")
	if code != ExitIncomplete || !strings.Contains(stderr, "7 input problems: part of the input could not be read") {
		t.Fatalf("exit %d, want %d (scanned, but part of the input could not be read; not fatal without --strict): %s", code, ExitIncomplete, stderr)
	}
	r := decode(t, out)
	if len(r.Problems) != len(want) {
		t.Errorf("%d problems, want %d", len(r.Problems), len(want))
	}
	for i := range max(len(want), len(r.Problems)) {
		var g, w manifest.Problem
		if i < len(r.Problems) {
			g = r.Problems[i]
		}
		if i < len(want) {
			w = want[i]
		}
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if string(gj) != string(wj) {
			t.Errorf("problem %d:\n got %s\nwant %s", i, gj, wj)
		}
	}
	wantSkipped := []manifest.Skip{
		{File: p("README.md"), Reason: manifest.SkipNotManifestExt},
		{File: p("charts/web"), Reason: manifest.SkipHelmChart},
		{File: p("kustomize/base"), Reason: manifest.SkipKustomize},
		{File: p("dashboards/api-latency.json"), Reason: manifest.SkipNotKubernetes},
		{File: p("values.yaml"), Reason: manifest.SkipNotKubernetes},
	}
	if g, w := mustJSON(r.Input.SkippedFiles), mustJSON(wantSkipped); g != w {
		t.Errorf("skipped files:\n got %s\nwant %s", g, w)
	}
	in := r.Input
	if in.Files != 9 || in.Objects != 13 || in.Checked != 8 || in.Namespace != "default" || in.KubeVersion != "1.37" {
		t.Errorf("input %+v", in)
	}
	skippedObjects := 0
	for _, so := range in.SkippedObjects {
		skippedObjects += so.Count
	}
	if skippedObjects != in.Objects-in.Checked {
		t.Errorf("%d objects skipped, %d read and %d checked", skippedObjects, in.Objects, in.Checked)
	}
	if r.Checks.Selected == 0 || r.Checks.Evaluated+r.Checks.NotEvaluated != r.Checks.Selected {
		t.Errorf("checks %+v", r.Checks)
	}
	// The agent without a namespace is matched with its binding's subject
	// default/datadog, and the finding says the namespace was assumed.
	found := false
	for _, f := range r.Findings {
		if f.Check == "node-agent-unbounded-list" && f.Object.Namespace == "default" && f.Object.Name == "datadog" {
			found = true
			if f.File != p("agents/datadog.yaml") || f.Line != 3 || !f.NamespaceAssumed || !strings.Contains(f.Message, "namespace default assumed") {
				t.Errorf("datadog finding %+v", f)
			}
		}
		if f.File == "" || f.Line == 0 {
			t.Errorf("finding without a place: %+v", f)
		}
	}
	if !found {
		t.Errorf("no node-agent-unbounded-list finding for DaemonSet default/datadog: %+v", r.Findings)
	}

	// The text report lists the problems and the counts.
	_, text, _ := run(t, "", "scan", "-f", d)
	for _, s := range []string{"warning: " + p("dns/coredns.yaml.base") + ":48: Deployment kube-system/coredns: unrendered template placeholder `__DNS__MEMORY__LIMIT__` in spec.template.spec.containers[0].resources.limits.memory",
		"warning: " + p("apps/web.yaml") + ":17:", "read 9 files, 13 objects (8 checked)", "skipped 5 files", "11 input problems"} {
		if !strings.Contains(text, s) {
			t.Errorf("text report lacks %q:\n%s", s, text)
		}
	}

	// --strict: problems are fatal, after the report.
	code, out, stderr = run(t, "", "scan", "-f", d, "-o", "json", "--strict")
	if code != 2 || !strings.Contains(stderr, "--strict: 11 input problems") || len(decode(t, out).Problems) != 11 {
		t.Errorf("--strict: exit %d, stderr %q", code, stderr)
	}
	// The CoreDNS addon template on its own: read to the end, and its
	// Deployment, whose memory limit is a placeholder, is checked
	// (replicas, priority) all the same.
	code, out, _ = run(t, "", "scan", "-f", p("dns/coredns.yaml.base"), "-o", "json")
	r = decode(t, out)
	if code > 1 || len(r.Problems) != 3 || r.Input.Objects != 4 || r.Input.Checked != 3 {
		t.Errorf("coredns.yaml.base: exit %d, %+v", code, r)
	}
	byCheck := map[string]bool{}
	for _, f := range r.Findings {
		if f.Object.Kind == "Deployment" && f.Object.Name == "coredns" {
			byCheck[f.Check] = true
		}
	}
	if !byCheck["dns-few-replicas"] || !byCheck["critical-pod-no-priority"] {
		t.Errorf("coredns.yaml.base: the CoreDNS Deployment was not checked: %+v", r.Findings)
	}
	// The placeholder's field is unknown, not unset: no check reports the
	// memory limit missing.
	if byCheck["no-memory-limit"] || byCheck["no-resource-requests"] {
		t.Errorf("coredns.yaml.base: a finding on the memory limit, which is a placeholder: %+v", r.Findings)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const vectorAgent = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: vector
spec:
  selector: {matchLabels: {app: vector}}
  template:
    metadata: {labels: {app: vector}}
    spec:
      serviceAccountName: vector
      containers:
      - {name: vector, image: timberio/vector:0.34.0, resources: {limits: {memory: 1Gi}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: vector}
rules:
- {apiGroups: [""], resources: [pods, nodes, namespaces], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: vector}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: vector}
subjects:
- {kind: ServiceAccount, name: vector, namespace: vector}
`

// TestNamespaceAsKubectl: an object without a namespace takes -n (default
// "default") when it is matched with subjects, as kubectl apply -n gives it.
func TestNamespaceAsKubectl(t *testing.T) {
	f := write(t, t.TempDir(), "vector.yaml", vectorAgent)
	agent := func(args ...string) (int, jsonReport) {
		code, out, stderr := run(t, "", append([]string{"scan", "-f", f, "-o", "json", "--checks", "node-agent-unbounded-list"}, args...)...)
		if code == 2 {
			t.Fatalf("exit 2: %s", stderr)
		}
		return code, decode(t, out)
	}
	code, r := agent("-n", "vector")
	if code != 1 || len(r.Findings) != 1 || r.Findings[0].Object.Namespace != "vector" || !r.Findings[0].NamespaceAssumed || r.Input.Namespace != "vector" {
		t.Errorf("-n vector: exit %d, %+v", code, r.Findings)
	}
	// In "default" the service account default/vector is bound to nothing.
	if code, r := agent(); code != 0 || len(r.Findings) != 0 || r.Input.Namespace != "default" {
		t.Errorf("default namespace: exit %d, %+v", code, r.Findings)
	}
	// -n other than an object's own namespace: kubectl apply -n refuses it.
	explicit := strings.Replace(vectorAgent, "  name: vector\nspec:", "  name: vector\n  namespace: vector\nspec:", 1)
	write(t, filepath.Dir(f), "vector.yaml", explicit)
	_, r = agent("-n", "logging")
	if len(r.Problems) != 1 || r.Problems[0].Level != "warning" || !strings.Contains(r.Problems[0].Message, "differs from -n logging") || r.Findings[0].NamespaceAssumed {
		t.Errorf("-n logging over namespace vector: %+v %+v", r.Problems, r.Findings)
	}
}

// TestDuplicatePlaces: the same object in two files is one problem naming
// both places, and the finding points at the file and line of the object
// it came from (not the other copy's).
func TestDuplicatePlaces(t *testing.T) {
	dir := t.TempDir()
	obj := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: coredns, namespace: kube-system}\nspec:\n  replicas: 1\n  selector: {matchLabels: {k8s-app: kube-dns}}\n  template:\n    metadata: {labels: {k8s-app: kube-dns}}\n    spec:\n      containers: [{name: coredns, image: coredns/coredns:1.11.1}]\n"
	a := write(t, dir, "a.yaml", "# first\n\n\n"+obj)
	b := write(t, dir, "b.yaml", "---\n"+obj)
	code, out, _ := run(t, "", "scan", "-f", dir, "-o", "json", "--checks", "dns-few-replicas")
	r := decode(t, out)
	if code != ExitIncomplete || len(r.Findings) != 1 {
		t.Fatalf("exit %d, findings %+v", code, r.Findings)
	}
	if f := r.Findings[0]; f.File != a || f.Line != 4 {
		t.Errorf("finding at %s:%d, want %s:4", f.File, f.Line, a)
	}
	if len(r.Problems) != 1 || r.Problems[0].File != b || r.Problems[0].Line != 2 || len(r.Problems[0].Also) != 1 ||
		r.Problems[0].Also[0] != (manifest.Place{File: a, Line: 4}) {
		t.Errorf("duplicate problem %+v", r.Problems)
	}
	// And in SARIF, the result's location is a.yaml:4.
	_, sarif, _ := run(t, "", "scan", "-f", dir, "-o", "sarif", "--checks", "dns-few-replicas")
	if !strings.Contains(sarif, `"uri": "file://`+filepath.ToSlash(a)+`"`) || !strings.Contains(sarif, `"startLine": 4`) {
		t.Errorf("SARIF does not point at %s:4:\n%s", a, sarif)
	}
}

// TestKubeVersion: an API version is a problem only from the release that
// stopped serving it.
func TestKubeVersion(t *testing.T) {
	f := write(t, t.TempDir(), "cj.yaml", "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: report, namespace: jobs}\nspec:\n  schedule: '@daily'\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: Never\n          containers: [{name: r, image: example/r:1}]\n")
	for _, tc := range []struct {
		version  string
		problems int
		code     int
	}{{"1.24", 0, -1}, {"v1.25", 1, 2}, {"", 1, 2}, {"1.38", 0, 2}, {"2.0", 0, 2}} {
		args := []string{"scan", "-f", f, "-o", "json"}
		if tc.version != "" {
			args = append(args, "--kube-version", tc.version)
		}
		code, out, stderr := run(t, "", args...)
		switch {
		case tc.code == 2 && tc.problems == 0:
			if code != 2 || !strings.Contains(stderr, "--kube-version") {
				t.Errorf("%s: exit %d %q", tc.version, code, stderr)
			}
		case tc.problems == 1:
			// The only object is not served: nothing could be read.
			if code != 2 || !strings.Contains(stderr, "batch/v1beta1 is not served by Kubernetes") || !strings.Contains(stderr, "use batch/v1") {
				t.Errorf("%s: exit %d %q", tc.version, code, stderr)
			}
		default:
			if code == 2 || len(decode(t, out).Problems) != 0 {
				t.Errorf("%s: exit %d %s %s", tc.version, code, out, stderr)
			}
		}
	}
}

// TestNeverSilent: inputs that give the checks nothing exit 2 and say why.
func TestNeverSilent(t *testing.T) {
	dir := t.TempDir()
	sa := write(t, dir, "sa.yaml", "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: x}\n")
	chart := filepath.Join(dir, "chart")
	os.MkdirAll(filepath.Join(chart, "templates"), 0o755)
	write(t, chart, "Chart.yaml", "apiVersion: v2\nname: c\nversion: 1.0.0\n")
	write(t, chart, "values.yaml", "a: 1\n")
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		err   string
	}{
		{"only kinds no check reads", "", []string{"-f", sa}, "none of the 1 Kubernetes object in the input (" + sa + ") is of a kind the selected checks read (1 kind no check reads: v1 ServiceAccount)"},
		{"only a chart", "", []string{"-f", chart}, "(1 file skipped: 1 Helm chart: use --chart); check the paths, and render Helm charts"},
		{"helm failed", "Error: template: c/templates/x.yaml:3: unexpected EOF\n", []string{"-f", "-"}, "no Kubernetes object could be read from the input (standard input)"},
		{"checks need nodes", "", []string{"-f", fixture.Path(t, checkdata, "dns-few-replicas", "fail.yaml"), "--checks", "node-disk-full-of-images"}, "is of a kind the selected checks read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, tc.stdin, append([]string{"scan"}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.err) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, tc.err)
			}
		})
	}
}

// TestKrewManifest: deploy/krew/gap.yaml installs kubectl-gap for each
// platform from the archive package.sh builds, and the README shows the
// install.
func TestKrewManifest(t *testing.T) {
	b, err := os.ReadFile("../../../deploy/krew/gap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string
		Metadata   struct{ Name string }
		Spec       struct {
			Version   string
			Platforms []struct {
				Selector struct {
					MatchLabels map[string]string `yaml:"matchLabels"`
				}
				URI    string
				SHA256 string `yaml:"sha256"`
				Bin    string
				Files  []struct{ From, To string }
			}
		}
	}
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Kind != "Plugin" || m.Metadata.Name != "gap" || !strings.HasPrefix(m.APIVersion, "krew.googlecontainertools.github.com/") {
		t.Errorf("not the gap plugin: %+v", m)
	}
	seen := map[string]bool{}
	for _, p := range m.Spec.Platforms {
		goos, arch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		seen[goos+"/"+arch] = true
		bin := "kubectl-gap"
		if goos == "windows" {
			bin += ".exe"
		}
		if p.Bin != bin || len(p.Files) != 1 || p.Files[0].From != bin ||
			!strings.HasSuffix(p.URI, "/releases/download/"+m.Spec.Version+"/kubectl-gap_"+goos+"_"+arch+".tar.gz") || len(p.SHA256) != 64 {
			t.Errorf("platform %s/%s: %+v", goos, arch, p)
		}
	}
	for _, want := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64"} {
		if !seen[want] {
			t.Errorf("no platform %s", want)
		}
	}
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "kubectl krew install --manifest=deploy/krew/gap.yaml") {
		t.Error("README does not show the krew install")
	}
}

// TestExitIncomplete: invalid YAML beside a clean file is scanned, and
// exits 3, not 0, without --strict (2 with it), whatever --fail-on says; a
// warning alone (a placeholder in a string) keeps exit 0, and the help
// lists the codes.
func TestExitIncomplete(t *testing.T) {
	dir := t.TempDir()
	clean := "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n"
	write(t, dir, "clean.yaml", clean)
	cleanOnly := write(t, t.TempDir(), "clean.yaml", clean)
	warned := write(t, t.TempDir(), "warned.yaml", strings.Replace(clean, "name: web,", "name: __NAME__,", 1))
	write(t, dir, "broken.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: broken\n")
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"-f", cleanOnly}, ExitClean, ""},
		{[]string{"-f", warned}, ExitClean, ""},
		{[]string{"-f", dir}, ExitIncomplete, "1 input problem: part of the input could not be read"},
		{[]string{"-f", dir, "--fail-on", "none"}, ExitIncomplete, "1 input problem"},
		{[]string{"-f", dir, "-o", "sarif"}, ExitIncomplete, "1 input problem"},
		{[]string{"-f", dir, "--strict"}, ExitFailed, "--strict: 1 input problem"},
	} {
		code, out, stderr := run(t, "", append([]string{"scan"}, tc.args...)...)
		if code != tc.code || (tc.err != "" && !strings.Contains(stderr, tc.err)) || (tc.err == "" && stderr != "") {
			t.Errorf("%v: exit %d, want %d; stderr %q", tc.args, code, tc.code, stderr)
		}
		if out == "" {
			t.Errorf("%v: no report", tc.args)
		}
	}
	for _, args := range [][]string{{"--help"}, {"scan", "--help"}} {
		_, out, _ := run(t, "", args...)
		if !strings.Contains(out, "3  scanned, but part of the input could not be read") || !strings.Contains(out, "1  findings at or above --fail-on") {
			t.Errorf("%v does not list the exit codes:\n%s", args, out)
		}
	}
}

// TestFileFlagOnKustomization: -f on a folder that holds a kustomization
// builds it, as -k does, and says so on stderr; one that cannot be built
// has its files read as they are, and stderr says that and why. Neither is
// an input problem.
func TestFileFlagOnKustomization(t *testing.T) {
	code, out, stderr := run(t, "", "scan", "-f", "../render/testdata/kustomize/prod", "-o", "json", "--checks", "no-memory-limit")
	r := decode(t, out)
	if code != ExitFindings || !strings.Contains(stderr, "-f ../render/testdata/kustomize/prod holds a kustomization: built it, as -k ../render/testdata/kustomize/prod does") || len(r.Problems) != 0 {
		t.Errorf("buildable: exit %d, stderr %q, problems %+v", code, stderr, r.Problems)
	}
	found := false
	for _, f := range r.Findings {
		// The overlay's namespace and name prefix: built, not read as is.
		found = found || (f.Object.Namespace == "shop" && f.Object.Name == "prod-api" && f.File == "../render/testdata/kustomize/base/deployment.yaml")
	}
	if !found {
		t.Errorf("buildable: no finding on the built Deployment shop/prod-api: %+v", r.Findings)
	}

	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", "resources:\n  - deploy.yaml\n  - github.com/example/deploy//overlays/prod?ref=v1.2.0\n")
	write(t, dir, "deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: shop}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec:\n      containers: [{name: api, image: example/api:1.0}]\n")
	code, out, stderr = run(t, "", "scan", "-f", dir, "-o", "json", "--checks", "no-memory-limit")
	r = decode(t, out)
	if code != ExitFindings || !strings.Contains(stderr, "holds a kustomization that could not be built (") || !strings.Contains(stderr, "read its files as they are instead") ||
		len(r.Problems) != 0 || len(r.Findings) != 1 || r.Findings[0].Object.Name != "api" {
		t.Errorf("not buildable: exit %d, stderr %q, problems %+v, findings %+v", code, stderr, r.Problems, r.Findings)
	}
}
