package cli

import (
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/kubegap/kubetest"
	"github.com/incidentlib/incidentlib/internal/kubegap/report/sariftest"
)

// TestLiveNeverSilent against a real kube-apiserver: an identity that may
// read nothing evaluates no check, and the scan exits 2 after a report
// that says so; an identity that may read everything says what it read,
// and its SARIF passes the schema.
func TestLiveNeverSilent(t *testing.T) {
	c := kubetest.Start(t)
	code, out, stderr := run(t, "", "scan", "--kubeconfig", c.Kubeconfig, "--context", "limited", "-o", "json")
	if code != 2 || !strings.Contains(stderr, "no check could be evaluated") {
		t.Errorf("an identity that may read nothing: exit %d, stderr %q", code, stderr)
	}
	r := decode(t, out)
	if r.Checks.Evaluated != 0 || r.Checks.NotEvaluated == 0 || r.Checks.NotEvaluated != r.Checks.Selected {
		t.Errorf("checks %+v", r.Checks)
	}

	code, out, stderr = run(t, "", "scan", "--kubeconfig", c.Kubeconfig, "--context", "scanner", "-o", "json")
	if code != 0 {
		t.Fatalf("scanner on an empty cluster: exit %d, %s", code, stderr)
	}
	r = decode(t, out)
	if r.Input.Objects == 0 || r.Input.Files != 0 || r.Checks.Evaluated == 0 {
		t.Errorf("live report says too little: %+v %+v", r.Input, r.Checks)
	}
	_, sarif, _ := run(t, "", "scan", "--kubeconfig", c.Kubeconfig, "--context", "scanner", "-o", "sarif")
	sariftest.Validate(t, []byte(sarif))
	if !strings.Contains(sarif, `"objectsRead"`) || !strings.Contains(sarif, `"checksEvaluated"`) {
		t.Errorf("SARIF invocation lacks the counts:\n%s", sarif)
	}
	_, text, _ := run(t, "", "scan", "--kubeconfig", c.Kubeconfig, "--context", "scanner")
	if !strings.Contains(text, "from the cluster") || !strings.Contains(text, "checks evaluated") {
		t.Errorf("table report:\n%s", text)
	}
}
