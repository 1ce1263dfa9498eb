package checks

import (
	"fmt"
	"sort"
)

// registry is every check kubegap has, built once from the list in
// checkList: adding a check means adding its constructor there, and nothing
// registers itself from an init function (TestNoInit guards that).
//
// A new check also needs testdata/<id>/ with at least two fail*.yaml and two
// pass*.yaml fixtures; each failing one ends or starts with the findings it
// must produce, "# expect: SEVERITY KIND NAMESPACE/NAME line LINE cases
// ID,ID", each followed by "# message: " and the finding's English message
// (see TestFixtures). Then regenerate docs/checks.md:
// go run ./cmd/kubegap checks -o markdown > docs/checks.md
var registry = buildRegistry(checkList())

// checkList is the one list of checks.
func checkList() []*Check {
	return []*Check{
		calicoIPAMGc(),
		cpuLimitCFSBugKernel(),
		dexKubernetesStorage(),
		dnsAutoscalerConntrack(),
		dnsFewReplicas(),
		dnsMemoryLimit(),
		externalDNSWeightMissing(),
		jobRetriesUnboundedMemory(),
		masterNodeLabelSelector(),
		noDisruptionBudget(),
		noMemoryLimit(),
		noPrestopBehindLB(),
		nodeAgentUnboundedList(),
		nodeDiskFullOfImages(),
		nodeDiskSmallerThanPeers(),
		prometheusStartupWindow(),
		serviceSelectorExtraLabel(),
		webhookAllResourcesFailClosed(),
		webhookCoversKubeSystem(),
		livenessSameAsReadiness(),
		livenessShortWindow(),
		imagePullAlwaysPublic(),
		imageMutableTag(),
		replicasNotSpread(),
		noResourceRequests(),
		memoryOvercommit(),
		criticalPodNoPriority(),
		hpaNoHeadroom(),
		webhookBackendFragile(),
		jobIstioSidecar(),
		istioPortNames(),
	}
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
