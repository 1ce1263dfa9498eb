package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const renderData = "../render/testdata"

func TestScanChartAndKustomize(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		// uris are the SARIF locations of the findings, in order.
		uris []string
		err  string
	}{
		{"chart", []string{"scan", "--chart", renderData + "/charts/web", "-n", "web", "--values", renderData + "/charts/prod-values.yaml", "--checks", "no-memory-limit", "-o", "sarif"}, 1,
			[]string{renderData + "/charts/web/templates/deployment.yaml"}, ""},
		{"chart set wins", []string{"scan", "--chart", renderData + "/charts/web", "--values", renderData + "/charts/prod-values.yaml", "--set", "memoryLimit=1Gi", "--checks", "no-memory-limit", "-o", "sarif"}, 0,
			nil, ""},
		{"kustomize", []string{"scan", "-k", renderData + "/kustomize/prod", "--checks", "no-memory-limit,replicas-not-spread", "-o", "sarif"}, 1,
			[]string{renderData + "/kustomize/base/deployment.yaml", renderData + "/kustomize/base/deployment.yaml", renderData + "/kustomize/prod/worker.yaml"}, ""},
		{"template error", []string{"scan", "--chart", renderData + "/charts/broken"}, 2, nil, "broken/templates/configmap.yaml:6:18"},
		{"missing dependency", []string{"scan", "--chart", renderData + "/charts/nodeps"}, 2, nil, "depends on redis, which is not in charts/"},
		{"remote base", []string{"scan", "-k", renderData + "/kustomize/remote"}, 2, nil, "is a remote base, which kubegap does not fetch"},
		{"folder of charts", []string{"scan", "--chart", renderData + "/charts/nodeps/..", "--checks", "no-memory-limit"}, 2, nil, "no Chart.yaml"},
		{"chart and -k", []string{"scan", "--chart", renderData + "/charts/web", "-k", renderData + "/kustomize/prod"}, 2, nil, "--chart and -k cannot be used together"},
		{"chart and -f", []string{"scan", "--chart", renderData + "/charts/web", "-f", "x.yaml"}, 2, nil, "-f cannot be used with --chart or -k"},
		{"set without chart", []string{"scan", "-f", renderData + "/kustomize/base", "--set", "a=b"}, 2, nil, "--set applies only with --chart"},
		{"values with -k", []string{"scan", "-k", renderData + "/kustomize/prod", "--values", "v.yaml"}, 2, nil, "apply to --chart only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "", tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if tc.err != "" && !strings.Contains(stderr, tc.err) {
				t.Errorf("stderr %q lacks %q", stderr, tc.err)
			}
			if tc.code == 2 {
				return
			}
			var log struct {
				Runs []struct {
					Results []struct {
						Locations []struct {
							PhysicalLocation struct {
								ArtifactLocation struct{ URI string } `json:"artifactLocation"`
							} `json:"physicalLocation"`
						} `json:"locations"`
					} `json:"results"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(stdout), &log); err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			var uris []string
			for _, r := range log.Runs[0].Results {
				uris = append(uris, r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
			}
			// Relative paths stay relative references, as for -f.
			var want []string
			for _, u := range tc.uris {
				want = append(want, filepath.ToSlash(u))
			}
			if strings.Join(uris, "\n") != strings.Join(want, "\n") {
				t.Errorf("locations %q, want %q", uris, want)
			}
		})
	}
}

// TestRender: kubegap render prints what scan --chart and scan -k read,
// each document under a comment naming its source, and scanning that
// output finds the same checks on the same objects.
func TestRender(t *testing.T) {
	chart := []string{"--chart", renderData + "/charts/web", "--values", renderData + "/charts/prod-values.yaml", "--release", "shop", "-n", "web"}
	for _, tc := range []struct {
		name   string
		input  []string
		source string
		// pipe are scan -f -'s own flags: the chart's objects name no
		// namespace, and -n gives them the release's, as helm install does.
		pipe []string
	}{
		{"chart", chart, "# Source: " + renderData + "/charts/web/templates/deployment.yaml\n", []string{"-n", "web"}},
		{"kustomize", []string{"-k", renderData + "/kustomize/prod"}, "# Source: " + renderData + "/kustomize/base/deployment.yaml (line ", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, rendered, stderr := run(t, "", append([]string{"render"}, tc.input...)...)
			if code != 0 {
				t.Fatalf("render: exit %d: %s", code, stderr)
			}
			if !strings.Contains(rendered, tc.source) {
				t.Errorf("the rendered stream lacks %q:\n%s", tc.source, rendered)
			}
			if n := strings.Count(rendered, "---\n# Source: "); n < 2 || n != strings.Count(rendered, "\n---\n")+1 {
				t.Errorf("%d documents, each should follow its own source comment:\n%s", n, rendered)
			}
			_, direct, stderr := run(t, "", append(append([]string{"scan"}, tc.input...), "-o", "json", "--fail-on", "none")...)
			_, piped, stderr2 := run(t, rendered, append([]string{"scan", "-f", "-", "-o", "json", "--fail-on", "none"}, tc.pipe...)...)
			want, got := checksOnObjects(t, direct, stderr), checksOnObjects(t, piped, stderr2)
			if len(want) == 0 || strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("scan of the rendered stream found\n%s\nscan %s found\n%s", strings.Join(got, "\n"), tc.name, strings.Join(want, "\n"))
			}
		})
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, "render needs --chart"},
		{[]string{"--chart", renderData + "/charts/web", "-k", renderData + "/kustomize/prod"}, "cannot be used together"},
		{[]string{"-k", renderData + "/kustomize/prod", "-n", "web"}, "--namespace applies to --chart only"},
		{[]string{"-k", renderData + "/kustomize/prod", "--set", "a=b", "--release", "x"}, "--set, --release apply to --chart only"},
		{[]string{"--chart", renderData + "/charts/nodeps"}, "depends on redis"},
		{[]string{"--chart", renderData + "/charts/web", "--kube-version", "2.0"}, "--kube-version: bad Kubernetes version"},
		{[]string{"-f", "x.yaml"}, "unknown shorthand flag: 'f'"},
	} {
		code, stdout, stderr := run(t, "", append([]string{"render"}, tc.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.err) {
			t.Errorf("render %v: exit %d, stdout %q, stderr %q; want 2, nothing, %q", tc.args, code, stdout, stderr, tc.err)
		}
	}
}

// checksOnObjects is the sorted "check kind namespace/name" of a JSON report.
func checksOnObjects(t *testing.T, report, stderr string) []string {
	t.Helper()
	var r struct {
		Findings []struct {
			Check  string
			Object struct{ Kind, Namespace, Name string }
		}
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("%v: %s (stderr %s)", err, report, stderr)
	}
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Check+" "+f.Object.Kind+" "+f.Object.Namespace+"/"+f.Object.Name)
	}
	slices.Sort(out)
	return out
}
