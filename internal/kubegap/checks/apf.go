package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// apfChecks are the checks of API Priority and Fairness: a check of this file is listed here, and
// registry.go lists the files.
func apfChecks() []*Check {
	return []*Check{
		nodeAgentUnboundedList(),
	}
}

// heavyResources are the kinds whose cluster-wide LIST from every node hurts
// an API server most: they are large and there is one agent per node.
var heavyResources = []string{"pods", "nodes", "endpoints", "endpointslices", "services", "networkpolicies", "ciliumendpoints", "ciliumidentities"}

// Priority levels the API server creates by default; all are Limited.
var defaultLimitedLevels = []string{"global-default", "workload-low", "workload-high", "leader-election", "node-high", "system", "catch-all"}

// nodeAgentUnboundedList builds the node-agent-unbounded-list check.
func nodeAgentUnboundedList() *Check {
	c := &Check{
		ID:       "node-agent-unbounded-list",
		Severity: High,
		Title: incidentlib.Text{
			EN: "Per-node agent may LIST cluster-wide with no dedicated API Priority and Fairness limit",
			KO: "노드마다 도는 에이전트가 클러스터 전체를 LIST할 수 있는데 전용 API 우선순위·공정성(APF) 제한이 없음",
		},
		Remediation: incidentlib.Text{
			EN: "Add a FlowSchema that matches the agent's service account (subjects: kind ServiceAccount) for list/watch requests and points to a Limited PriorityLevelConfiguration with queuing and a small share, so that all agents re-listing at once (after a restart of the agent or of the API server) queue instead of exhausting API server and etcd memory. Prefer agents that list only what their node needs, and watch-list / resourceVersion=0 lists served from the cache.",
			KO: "에이전트의 서비스 어카운트(subjects: kind ServiceAccount)의 list/watch 요청을 잡는 FlowSchema를 추가하고, 큐잉과 작은 몫을 가진 Limited PriorityLevelConfiguration에 연결하세요. 그러면 에이전트나 API 서버가 재시작된 뒤 모든 에이전트가 한꺼번에 다시 LIST해도 API 서버와 etcd 메모리를 다 쓰지 않고 줄을 섭니다. 가능하면 자기 노드에 필요한 것만 나열하고 캐시에서 답하는 watch-list / resourceVersion=0 LIST를 쓰는 에이전트를 고르세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Every DaemonSet's service account; the ClusterRoleBindings and ClusterRoles that let it list or watch pods, nodes, endpoints, endpointslices, services, network policies or Cilium objects cluster-wide; and the FlowSchemas and PriorityLevelConfigurations. It reports an agent that can list those kinds from every node when no FlowSchema names its service account and sends its list requests to a Limited priority level.",
			KO: "모든 DaemonSet의 서비스 어카운트, 그 어카운트가 클러스터 전체의 pods, nodes, endpoints, endpointslices, services, 네트워크 정책, Cilium 객체를 list/watch하게 하는 ClusterRoleBinding과 ClusterRole, 그리고 FlowSchema와 PriorityLevelConfiguration을 봅니다. 모든 노드에서 이런 종류를 나열할 수 있는 에이전트인데, 그 서비스 어카운트를 지목해 list 요청을 Limited 우선순위 수준으로 보내는 FlowSchema가 없으면 보고합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "How often the agent really lists (it may only watch, or list by field selector, which etcd still answers by reading every object); permissions granted through aggregated ClusterRoles, namespaced RoleBindings or groups other than the service-account groups; FlowSchemas with a lower matchingPrecedence that catch the requests first; and in offline mode the API server's built-in FlowSchemas and priority levels.",
			KO: "에이전트가 실제로 얼마나 자주 LIST하는지(watch만 할 수도 있고, field selector로 나열해도 etcd는 모든 객체를 읽어 답합니다), 집계(aggregated) ClusterRole·네임스페이스 RoleBinding·서비스 어카운트 그룹 이외의 그룹으로 받은 권한, matchingPrecedence가 더 낮아 요청을 먼저 잡는 FlowSchema, 그리고 오프라인 모드에서는 API 서버에 기본으로 들어 있는 FlowSchema와 우선순위 수준은 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.DaemonSet, inventory.ClusterRoleBinding, inventory.ClusterRole, inventory.FlowSchema, inventory.PriorityLevel},
		Citations: []Citation{
			{Case: "IL-0195",
				Quote:   "If a particular client's requests are put in their own API Priority and Fairness priority level, that client can flood the API without pushing user requests aside, and the API server stays up.",
				QuoteKO: "어떤 클라이언트의 요청에 API Priority and Fairness 의 전용 우선순위 수준을 따로 배정하면, 그 클라이언트가 요청을 퍼부어도 사용자 요청은 제때 처리되고 API 서버도 쓰러지지 않는다."},
			{Case: "IL-0194",
				Quote:   "Multiplied by every pod of a DaemonSet re-listing after an API server restart, such requests can overwhelm etcd.",
				QuoteKO: "API 서버 재시작 뒤 DaemonSet 파드 전부가 다시 list 하면 이런 요청이 곱해져 etcd 를 무너뜨릴 수 있다."},
			{Case: "IL-0005",
				Quote:   "Because telemetry runs on every node, its configuration made each node run resource-heavy Kubernetes API operations whose cost grew with cluster size.",
				QuoteKO: "텔레메트리는 모든 노드에서 돌기 때문에, 이 서비스의 설정 탓에 노드마다 클러스터 크기에 비례해 비용이 커지는 무거운 쿠버네티스 API 작업을 실행하게 됐다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		roles := clusterRolesByName(inv)
		levels := map[string]*flowcontrolv1.PriorityLevelConfiguration{}
		for _, l := range inv.PriorityLevels {
			levels[l.Name] = l
		}
		var out []Finding
		for _, ds := range inv.DaemonSets {
			sa := serviceAccount(&ds.Spec.Template)
			heavy := clusterListable(inv, roles, ds.Namespace, sa)
			if len(heavy) == 0 {
				continue
			}
			bounded, why := flowSchemaBounds(inv, levels, ds.Namespace, sa)
			if bounded {
				continue
			}
			list := strings.Join(heavy, ", ")
			out = append(out, c.findingAt(0, ref("DaemonSet", ds.Namespace, ds.Name), "spec.template.spec.serviceAccountName",
				fmt.Sprintf("runs on every node as service account %s/%s, which may list %s cluster-wide; %s", ds.Namespace, sa, list, why.EN),
				fmt.Sprintf("모든 노드에서 서비스 어카운트 %s/%s로 실행되며, 이 어카운트는 클러스터 전체의 %s을(를) 나열할 수 있습니다. %s", ds.Namespace, sa, list, why.KO)))
		}
		return out
	}
	return c
}

// clusterListable returns the heavy resources service account ns/sa may
// list or watch cluster-wide through ClusterRoleBindings.
func clusterListable(inv *inventory.Inventory, roles map[string]*rbacv1.ClusterRole, ns, sa string) []string {
	found := map[string]bool{}
	for _, b := range inv.ClusterRoleBindings {
		if b.RoleRef.Kind != "ClusterRole" || !bindsServiceAccount(b.Subjects, ns, sa) {
			continue
		}
		r := roles[b.RoleRef.Name]
		if r == nil {
			continue
		}
		for _, rule := range r.Rules {
			if !slices.Contains(rule.Verbs, "list") && !slices.Contains(rule.Verbs, "watch") && !slices.Contains(rule.Verbs, "*") {
				continue
			}
			for _, res := range rule.Resources {
				if res == "*" {
					found["*"] = true
					continue
				}
				if slices.Contains(heavyResources, res) {
					found[res] = true
				}
			}
		}
	}
	out := make([]string, 0, len(found))
	for r := range found {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// clusterRolesByName indexes the ClusterRoles of inv by name, as bindings
// refer to them.
func clusterRolesByName(inv *inventory.Inventory) map[string]*rbacv1.ClusterRole {
	roles := make(map[string]*rbacv1.ClusterRole, len(inv.ClusterRoles))
	for _, r := range inv.ClusterRoles {
		roles[r.Name] = r
	}
	return roles
}

func bindsServiceAccount(subjects []rbacv1.Subject, ns, sa string) bool {
	for _, s := range subjects {
		switch s.Kind {
		case "ServiceAccount":
			if s.Namespace == ns && s.Name == sa {
				return true
			}
		case "Group":
			if s.Name == "system:serviceaccounts" || s.Name == "system:serviceaccounts:"+ns {
				return true
			}
		}
	}
	return false
}

// flowSchemaBounds reports whether a FlowSchema names service account ns/sa
// and sends its list requests to a Limited priority level; why says what is
// missing when it does not.
func flowSchemaBounds(inv *inventory.Inventory, levels map[string]*flowcontrolv1.PriorityLevelConfiguration, ns, sa string) (bool, incidentlib.Text) {
	why := incidentlib.Text{
		EN: "no FlowSchema names this service account, so all agents re-listing at once share a priority level with other workloads and nothing bounds them",
		KO: "이 서비스 어카운트를 지목한 FlowSchema가 없어서, 모든 에이전트가 한꺼번에 다시 나열하면 다른 워크로드와 같은 우선순위 수준을 쓰며 아무것도 이를 제한하지 않습니다",
	}
	for _, fs := range inv.FlowSchemas {
		if !flowSchemaMatchesList(fs, ns, sa) {
			continue
		}
		name := fs.Spec.PriorityLevelConfiguration.Name
		l := levels[name]
		switch {
		case l == nil && slices.Contains(defaultLimitedLevels, name):
			return true, why
		case l == nil:
			why = incidentlib.Text{
				EN: fmt.Sprintf("FlowSchema %s names it but points to priority level %q, which does not exist", fs.Name, name),
				KO: fmt.Sprintf("FlowSchema %s가 지목하지만 존재하지 않는 우선순위 수준 %q을(를) 가리킵니다", fs.Name, name),
			}
		case l.Spec.Type == flowcontrolv1.PriorityLevelEnablementExempt:
			why = incidentlib.Text{
				EN: fmt.Sprintf("FlowSchema %s sends it to priority level %s, which is exempt from limits", fs.Name, name),
				KO: fmt.Sprintf("FlowSchema %s가 제한이 없는(Exempt) 우선순위 수준 %s로 보냅니다", fs.Name, name),
			}
		default:
			return true, why
		}
	}
	return false, why
}

func flowSchemaMatchesList(fs *flowcontrolv1.FlowSchema, ns, sa string) bool {
	for _, r := range fs.Spec.Rules {
		named := false
		for _, s := range r.Subjects {
			// Only a FlowSchema that names this account counts: the built-in
			// kube-system-service-accounts schema matches every kube-system
			// account ("*") and sends them all to the shared workload-high
			// level, which is where cilium-agent sat in IL-0195.
			if s.Kind == flowcontrolv1.SubjectKindServiceAccount && s.ServiceAccount != nil &&
				s.ServiceAccount.Namespace == ns && s.ServiceAccount.Name == sa {
				named = true
			}
		}
		if !named {
			continue
		}
		for _, rr := range r.ResourceRules {
			if slices.Contains(rr.Verbs, "list") || slices.Contains(rr.Verbs, "*") {
				return true
			}
		}
	}
	return false
}
