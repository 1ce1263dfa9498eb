package cli

import (
	"encoding/json"
	"path/filepath"
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
		{"kustomize", []string{"scan", "-k", renderData + "/kustomize/prod", "--checks", "no-memory-limit,no-disruption-budget", "-o", "sarif"}, 1,
			[]string{renderData + "/kustomize/base/deployment.yaml", renderData + "/kustomize/prod/worker.yaml"}, ""},
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
