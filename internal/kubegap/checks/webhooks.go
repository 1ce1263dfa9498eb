package checks

import (
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// webhookChecks are the checks of admission webhooks: a check of this file is listed here, and
// registry.go lists the files.
func webhookChecks() []*Check {
	return []*Check{
		webhookCoversKubeSystem(),
		webhookAllResourcesFailClosed(),
	}
}

// hook is one webhook of either configuration kind.
type hook struct {
	Config            inventory.Ref
	Name              string
	Rules             []admissionv1.RuleWithOperations
	FailurePolicy     *admissionv1.FailurePolicyType
	NamespaceSelector *metav1.LabelSelector
	Service           *admissionv1.ServiceReference
	// Field is the webhook's path in its configuration ("webhooks[1]").
	Field string
}

func hooks(inv *inventory.Inventory) []hook {
	var out []hook
	for _, c := range inv.ValidatingWebhooks {
		for i, w := range c.Webhooks {
			out = append(out, hook{ref("ValidatingWebhookConfiguration", "", c.Name), w.Name, w.Rules, w.FailurePolicy, w.NamespaceSelector, w.ClientConfig.Service, fmt.Sprintf("webhooks[%d]", i)})
		}
	}
	for _, c := range inv.MutatingWebhooks {
		for i, w := range c.Webhooks {
			out = append(out, hook{ref("MutatingWebhookConfiguration", "", c.Name), w.Name, w.Rules, w.FailurePolicy, w.NamespaceSelector, w.ClientConfig.Service, fmt.Sprintf("webhooks[%d]", i)})
		}
	}
	return out
}

func (h hook) failsClosed() bool {
	return h.FailurePolicy == nil || *h.FailurePolicy == admissionv1.Fail // Fail is the v1 default
}

func writes(r admissionv1.RuleWithOperations) bool {
	for _, op := range r.Operations {
		if op == admissionv1.OperationAll || op == admissionv1.Create || op == admissionv1.Update {
			return true
		}
	}
	return false
}

// systemResources are what system pods and the API server itself write in
// kube-system.
var systemResources = []string{"*", "*/*", "pods", "pods/*", "configmaps", "endpoints", "endpointslices", "leases", "serviceaccounts", "daemonsets", "deployments", "replicasets"}

// kubeSystemLabels returns kube-system's labels: from the inventory when it
// was read, else the label every API server since 1.21 sets.
func kubeSystemLabels(inv *inventory.Inventory) map[string]string {
	for _, ns := range inv.Namespaces {
		if ns.Name == "kube-system" {
			return ns.Labels
		}
	}
	return map[string]string{"kubernetes.io/metadata.name": "kube-system"}
}

func selectsNamespace(sel *metav1.LabelSelector, set map[string]string) bool {
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		return true // an empty namespaceSelector matches every namespace
	}
	return selectorMatches(sel, set)
}

// webhookCoversKubeSystem builds the webhook-covers-kube-system check.
func webhookCoversKubeSystem() *Check {
	k := &Check{
		ID:       "webhook-covers-kube-system",
		Severity: High,
		Title: incidentlib.Text{
			EN: "Admission webhook intercepts system writes in kube-system",
			KO: "어드미션 웹훅이 kube-system의 시스템 쓰기를 가로챔",
		},
		Remediation: incidentlib.Text{
			EN: "Exclude kube-system (and the webhook's own namespace) with a namespaceSelector on kubernetes.io/metadata.name NotIn [kube-system], which the API server sets and nobody can remove by accident; scope rules to the resources the policy checks; give the webhook backend probes and several replicas, and a short timeoutSeconds.",
			KO: "API 서버가 붙이고 실수로 지울 수 없는 kubernetes.io/metadata.name NotIn [kube-system] namespaceSelector로 kube-system(과 웹훅 자신의 네임스페이스)을 빼세요. 규칙은 정책이 검사하는 리소스로만 좁히고, 웹훅 백엔드에 프로브와 여러 복제본, 짧은 timeoutSeconds를 주세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Every validating and mutating webhook: its rules (CREATE or UPDATE of pods, ConfigMaps, endpoints, leases, workloads or all resources), its namespaceSelector evaluated against kube-system's labels, and its failurePolicy. A webhook that intercepts such writes in kube-system is reported: as high when it fails closed (failurePolicy Fail, the default), since a slow or absent backend then blocks system pods and the API server's own writes; as medium when it fails open, since its policy still decides which system pods may run.",
			KO: "모든 validating/mutating 웹훅의 규칙(pods, ConfigMap, endpoints, lease, 워크로드 또는 모든 리소스의 CREATE/UPDATE), kube-system 레이블로 평가한 namespaceSelector, failurePolicy를 봅니다. kube-system에서 그런 쓰기를 가로채는 웹훅을 보고합니다. 실패 시 막는 경우(failurePolicy Fail, 기본값)는 높음입니다. 백엔드가 느리거나 없으면 시스템 파드와 API 서버 자신의 쓰기가 막힙니다. 실패 시 통과시키는 경우는 중간입니다. 그래도 어떤 시스템 파드가 뜰 수 있는지를 그 정책이 정합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "objectSelector and matchConditions that narrow the webhook further, what the policy behind it allows, and the health of its backend.",
			KO: "웹훅을 더 좁히는 objectSelector와 matchConditions, 그 뒤의 정책이 허용하는 것, 백엔드의 상태는 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.Namespace},
		AnyOf: [][]inventory.Kind{{inventory.ValidatingWebhook, inventory.MutatingWebhook}},
		Citations: []Citation{
			{Case: "IL-0324",
				Quote:   "a validating OPA admission webhook with an unresponsive backend intercepted writes in kube-system.",
				QuoteKO: "이때 백엔드가 응답하지 않는 OPA 검증 어드미션 웹훅이 kube-system 의 쓰기를 가로채고 있었다."},
			{Case: "IL-0411",
				Quote:   "Traced the fault to the `openpolicyagent.org/webhook` label missing from kube-system, which made OPA block calico, fluentd and other essential pods on each new master",
				QuoteKO: "kube-system 에서 `openpolicyagent.org/webhook` 레이블이 빠지는 바람에 OPA 가 새 마스터마다 calico, fluentd 등 필수 파드를 막고 있다는 것을 원인으로 찾아냈다."},
		},
	}
	k.Run = func(inv *inventory.Inventory) []Finding {
		labels := kubeSystemLabels(inv)
		var out []Finding
		for _, h := range hooks(inv) {
			if !selectsNamespace(h.NamespaceSelector, labels) {
				continue
			}
			hit := ""
			for _, r := range h.Rules {
				if !writes(r) || (r.Scope != nil && *r.Scope == admissionv1.ClusterScope) {
					continue
				}
				for _, res := range r.Resources {
					if slices.Contains(systemResources, res) {
						hit = res
						break
					}
				}
				if hit != "" {
					break
				}
			}
			if hit == "" {
				continue
			}
			if h.failsClosed() {
				out = append(out, k.findingAt(High, h.Config, h.Field+".namespaceSelector",
					fmt.Sprintf("webhook %s intercepts writes of %s in kube-system and fails closed: if its backend is slow or down, system pods and the API server's own updates there are refused", h.Name, hit),
					fmt.Sprintf("웹훅 %s가 kube-system의 %s 쓰기를 가로채며 실패 시 막습니다. 백엔드가 느리거나 죽으면 그곳의 시스템 파드와 API 서버 자신의 갱신이 거부됩니다", h.Name, hit)))
			} else {
				out = append(out, k.findingAt(Medium, h.Config, h.Field+".namespaceSelector",
					fmt.Sprintf("webhook %s intercepts writes of %s in kube-system: its policy decides whether system pods may start", h.Name, hit),
					fmt.Sprintf("웹훅 %s가 kube-system의 %s 쓰기를 가로챕니다. 시스템 파드가 뜰 수 있는지를 그 정책이 정합니다", h.Name, hit)))
			}
		}
		return out
	}
	return k
}

// webhookAllResourcesFailClosed builds the webhook-all-resources-fail-closed check.
func webhookAllResourcesFailClosed() *Check {
	a := &Check{
		ID:       "webhook-all-resources-fail-closed",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Fail-closed admission webhook intercepts every resource",
			KO: "실패 시 막는 어드미션 웹훅이 모든 리소스를 가로챔",
		},
		Remediation: incidentlib.Text{
			EN: "List only the groups and resources the policy actually validates, use failurePolicy Ignore where the policy is advisory, keep timeoutSeconds short, and alert on the API server's admission webhook latency and rejections.",
			KO: "정책이 실제로 검사하는 그룹과 리소스만 나열하고, 권고성 정책이면 failurePolicy Ignore를 쓰며, timeoutSeconds를 짧게 두고, API 서버의 어드미션 웹훅 지연과 거부에 알림을 거세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Every validating and mutating webhook whose rules match all resources (resources \"*\") for CREATE or UPDATE and whose failurePolicy is Fail (the default). Every write in its scope then waits on one backend: when it stops answering, writes across the cluster time out.",
			KO: "규칙이 CREATE나 UPDATE에 대해 모든 리소스(resources \"*\")와 일치하고 failurePolicy가 Fail(기본값)인 모든 validating/mutating 웹훅을 봅니다. 그러면 범위 안의 모든 쓰기가 한 백엔드를 기다리고, 그 백엔드가 응답을 멈추면 클러스터 전체의 쓰기가 시간 초과됩니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "How reliable the backend is, namespace and object selectors that limit the blast radius in practice, and matchConditions.",
			KO: "백엔드가 얼마나 믿을 만한지, 실제 영향 범위를 줄이는 네임스페이스·객체 셀렉터, matchConditions는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{{inventory.ValidatingWebhook, inventory.MutatingWebhook}},
		Citations: []Citation{
			{Case: "IL-0351",
				Quote:   "Responders saw the API server timing out on write operations because it could not reach admission webhooks, notably Open Policy Agent, the only webhook on that cluster that watched every resource.",
				QuoteKO: "대응자들은 API 서버가 쓰기 요청에서 타임아웃을 내는 것을 보았는데, 원인은 어드미션 웹훅, 특히 그 클러스터에서 모든 리소스를 감시하는 유일한 웹훅인 Open Policy Agent 를 호출하지 못한 데 있었다."},
			{Case: "IL-0324",
				Quote:   "CREATE and UPDATE requests across the board had become slower right after the OPA-backed webhook was first deployed.",
				QuoteKO: "OPA 기반 웹훅을 처음 배포한 직후부터 모든 CREATE·UPDATE 요청이 전반적으로 느려진 것을 알아챘을 수 있다."},
			{Case: "IL-0433",
				Quote:   "Create and update operations, mostly on Deployments but across the apiGroups \"\", \"apps\", \"batch\" and \"extensions\", began to time out.",
				QuoteKO: "주로 Deployment 에 대한, 넓게는 apiGroups \"\", \"apps\", \"batch\", \"extensions\" 전반의 생성·수정 요청이 타임아웃되기 시작했다."},
		},
	}
	a.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, h := range hooks(inv) {
			if !h.failsClosed() {
				continue
			}
			for _, r := range h.Rules {
				if writes(r) && (slices.Contains(r.Resources, "*") || slices.Contains(r.Resources, "*/*")) {
					out = append(out, a.findingAt(0, h.Config, h.Field+".rules",
						fmt.Sprintf("webhook %s intercepts every resource and fails closed: when its backend stops answering, writes across the cluster time out", h.Name),
						fmt.Sprintf("웹훅 %s가 모든 리소스를 가로채며 실패 시 막습니다. 백엔드가 응답을 멈추면 클러스터 전체의 쓰기가 시간 초과됩니다", h.Name)))
					break
				}
			}
		}
		return out
	}
	return a
}
