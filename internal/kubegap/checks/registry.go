package checks

import (
	"fmt"
	"slices"
	"sort"
)

// registry is every check kubegap has, built once from checkList; nothing
// registers itself from an init function (TestNoInit guards that).
//
// A new check is three steps (docs/ARCHITECTURE.md, "A kubegap check"):
// the check and its line in its file's list (dnsChecks in dns.go, …);
// testdata/<id>.txtar, one archive with at least two fail*.yaml and two
// pass*.yaml fixtures, each failing one giving the findings it must
// produce, "# expect: SEVERITY KIND NAMESPACE/NAME line LINE cases ID,ID",
// each followed by "# message: " and the finding's English message (see
// TestFixtures); and go generate ./internal/kubegap/checks, which writes
// the one file derived from the registry: docs/checks.md, whose closing
// comment is the index of cited cases that incidentlib serve reads.
//
//go:generate sh -c "cd ../../.. && go run ./cmd/kubegap checks -o markdown > docs/checks.md"
var registry = buildRegistry(checkList())

// checkList gathers the checks of every file of checks: each file lists
// its own (dnsChecks in dns.go, …), so a check is added in its file alone.
func checkList() []*Check {
	return slices.Concat(
		apfChecks(), backendChecks(), dnsChecks(), gitopsChecks(), imageChecks(), nodeChecks(), objectChecks(),
		probeChecks(), resourceChecks(), rolloutChecks(), schedulingChecks(), specChecks(), webhookChecks(),
	)
}

// buildRegistry sorts the checks by id, fills in each check's Cases from
// its Citations, and refuses a duplicate id, a check without a rule, a
// check that sets Cases itself or cites a case twice: all are programming
// errors, caught by every test.
func buildRegistry(cs []*Check) []*Check {
	sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	for i, c := range cs {
		if c.Run == nil {
			panic(fmt.Sprintf("check %s has no rule", c.ID))
		}
		if len(c.Cases) > 0 {
			panic(fmt.Sprintf("check %s sets Cases; set Citations, from which Cases are made", c.ID))
		}
		seen := map[string]bool{}
		for _, ct := range c.Citations {
			if seen[ct.Case] {
				panic(fmt.Sprintf("check %s cites %s twice", c.ID, ct.Case))
			}
			seen[ct.Case] = true
			c.Cases = append(c.Cases, ct.Case)
		}
		if i > 0 && cs[i-1].ID == c.ID {
			panic(fmt.Sprintf("check id %s is used twice", c.ID))
		}
	}
	return cs
}
