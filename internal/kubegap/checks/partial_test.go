package checks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
)

// partialFixtures hold Deployments and StatefulSets that the checks of
// TestPartial flag, a Service behind an Ingress and one behind a load
// balancer.
func partialFixtures(t *testing.T) []string {
	return []string{
		fixture.Path(t, "testdata", "replicas-not-spread", "fail-2.yaml"),
		fixture.Path(t, "testdata", "readiness-probe-missing", "fail.yaml"),
		fixture.Path(t, "testdata", "readiness-probe-missing", "fail-2.yaml"),
		fixture.Path(t, "testdata", "no-prestop-behind-lb", "fail.yaml"),
		fixture.Path(t, "testdata", "no-prestop-behind-lb", "fail-2.yaml"),
	}
}

// unreadable reads the fixtures, then leaves the given kinds out as a live
// scan does when the identity may not list them: no object, not read.
func unreadable(t *testing.T, cs []*checks.Check, ks ...inventory.Kind) *inventory.Inventory {
	t.Helper()
	inv, _, err := kubegap.ReadFiles(partialFixtures(t), nil, cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		delete(inv.Read, k)
		switch k {
		case inventory.StatefulSet:
			inv.StatefulSets = nil
		case inventory.Deployment:
			inv.Deployments = nil
		case inventory.Ingress:
			inv.Ingresses = nil
		default:
			t.Fatalf("unreadable: add %s", k)
		}
	}
	return inv
}

func findingKeys(fs []checks.Finding, skip func(checks.Finding) bool) []string {
	var out []string
	for _, f := range fs {
		if skip == nil || !skip(f) {
			out = append(out, fmt.Sprintf("%s %s %s", f.Check, f.Severity, f.Object))
		}
	}
	return out
}

// TestPartial: a check that needs a kind not read is not evaluated; one
// that can do without it is evaluated on the rest, listed as partial with
// the kind it could not see, and finds exactly what the full scan found
// less what needed the unseen objects: nothing is invented.
func TestPartial(t *testing.T) {
	ids := []string{"calico-ipam-gc", "no-prestop-behind-lb", "readiness-probe-missing", "replicas-not-spread"}
	var cs []*checks.Check
	for _, id := range ids {
		cs = append(cs, checks.Get(id))
	}
	full := kubegap.Evaluate(unreadable(t, cs), cs, nil, false)
	if len(full.NotEvaluated) != 0 || len(full.Partial) != 0 {
		t.Fatalf("the full scan: not evaluated %+v, partial %+v", full.NotEvaluated, full.Partial)
	}
	onSTS := func(f checks.Finding) bool { return f.Object.Kind == "StatefulSet" }
	if n := len(full.Findings) - len(findingKeys(full.Findings, onSTS)); n < 3 {
		t.Fatalf("the fixtures give %d findings on StatefulSets; the test needs some of every check but calico-ipam-gc", n)
	}

	t.Run("no StatefulSets", func(t *testing.T) {
		res := kubegap.Evaluate(unreadable(t, cs, inventory.StatefulSet), cs, nil, false)
		// calico-ipam-gc estimates the pods from every workload kind: it
		// needs StatefulSets.
		if len(res.NotEvaluated) != 1 || res.NotEvaluated[0].Check != "calico-ipam-gc" || strings.Join(res.NotEvaluated[0].Missing, ",") != "StatefulSet" {
			t.Errorf("not evaluated: %+v", res.NotEvaluated)
		}
		var got []string
		for _, p := range res.Partial {
			got = append(got, p.Check+":"+strings.Join(p.Missing, ","))
		}
		if want := "no-prestop-behind-lb:StatefulSet readiness-probe-missing:StatefulSet replicas-not-spread:StatefulSet"; strings.Join(got, " ") != want {
			t.Errorf("partial %v, want %s", got, want)
		}
		if res.Evaluated() != 3 || res.Checks != 4 {
			t.Errorf("evaluated %d of %d, want 3 of 4 (a partial check is evaluated)", res.Evaluated(), res.Checks)
		}
		a, b := strings.Join(findingKeys(res.Findings, nil), "\n"), strings.Join(findingKeys(full.Findings, onSTS), "\n")
		if a != b {
			t.Errorf("findings without StatefulSets:\n%s\nwant the full scan's less those on StatefulSets:\n%s", a, b)
		}
		for _, id := range ids[1:] {
			if !strings.Contains(a, id+" ") {
				t.Errorf("%s found nothing on the kinds it read", id)
			}
		}
		r := report.Build(res, "en")
		if r.Checks.Partial != 3 || r.Checks.Evaluated != 3 || r.Checks.NotEvaluated != 1 || len(r.Partial) != 3 {
			t.Errorf("report counts %+v, partial %+v", r.Checks, r.Partial)
		}
		if !strings.Contains(r.Partial[0].Reason, "without StatefulSet") {
			t.Errorf("reason %q", r.Partial[0].Reason)
		}
		if ko := report.Build(res, "ko").Partial[0].Reason; !strings.Contains(ko, "StatefulSet 없이") {
			t.Errorf("Korean reason %q", ko)
		}
	})

	t.Run("no Ingresses", func(t *testing.T) {
		// no-prestop-behind-lb can do without Ingresses: a Service behind
		// a load balancer is still seen; one behind an Ingress is not.
		res := kubegap.Evaluate(unreadable(t, cs, inventory.Ingress), cs, nil, false)
		if len(res.NotEvaluated) != 0 || len(res.Partial) != 1 || res.Partial[0].Check != "no-prestop-behind-lb" || strings.Join(res.Partial[0].Missing, ",") != "Ingress" {
			t.Errorf("not evaluated %+v, partial %+v", res.NotEvaluated, res.Partial)
		}
		behindIngress := func(f checks.Finding) bool {
			return f.Check == "no-prestop-behind-lb" && f.Object == inventory.Ref{Kind: "Deployment", Namespace: "payments", Name: "api"}
		}
		if len(findingKeys(full.Findings, behindIngress)) == len(full.Findings) {
			t.Fatal("the full scan does not flag payments/api behind its Ingress")
		}
		a, b := strings.Join(findingKeys(res.Findings, nil), "\n"), strings.Join(findingKeys(full.Findings, behindIngress), "\n")
		if a != b {
			t.Errorf("findings without Ingresses:\n%s\nwant:\n%s", a, b)
		}
		if !strings.Contains(a, "no-prestop-behind-lb medium StatefulSet edge/gateway") {
			t.Errorf("the load balancer's backend is no longer flagged:\n%s", a)
		}
	})

	t.Run("no workload at all", func(t *testing.T) {
		// An AnyOf group none of whose kinds was read: not evaluated.
		res := kubegap.Evaluate(unreadable(t, cs, inventory.Deployment, inventory.StatefulSet), cs, nil, false)
		got := map[string]string{}
		for _, n := range res.NotEvaluated {
			got[n.Check] = strings.Join(n.Missing, ",")
		}
		if got["readiness-probe-missing"] != "Deployment,StatefulSet" || got["replicas-not-spread"] != "Deployment,StatefulSet" || got["calico-ipam-gc"] != "Deployment,StatefulSet" {
			t.Errorf("not evaluated %v", got)
		}
		if len(res.Findings) != 0 {
			t.Errorf("findings with no workload read: %v", findingKeys(res.Findings, nil))
		}
	})
}

// TestNeedsABuiltinKind: a live identity that may list nothing still
// "reads" the CRD kinds whose CRDs are not installed (there are none of
// them). No check may be evaluated, even partially, on those alone, or a
// scan that read nothing would pass.
func TestNeedsABuiltinKind(t *testing.T) {
	inv := inventory.New()
	for _, k := range inventory.All() {
		if !inventory.Info(k).Builtin {
			inv.MarkRead(k)
		}
	}
	for _, c := range checks.All() {
		if len(c.Missing(inv)) == 0 {
			t.Errorf("%s can be evaluated on CRD kinds alone (%v read)", c.ID, c.Reads())
		}
	}
}
