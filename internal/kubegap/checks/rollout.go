package checks

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// rolloutChecks are the checks of rollouts and traffic: a check of this file is listed here, and
// registry.go lists the files.
func rolloutChecks() []*Check {
	return []*Check{
		serviceSelectorExtraLabel(),
		noPrestopBehindLB(),
		externalDNSWeightMissing(),
		updatesOnDelete(),
		budgetBlocksDrain(),
		localTrafficPolicy(),
		singleReplicaBehindService(),
	}
}

// serviceSelectorExtraLabel builds the service-selector-extra-label check.
func serviceSelectorExtraLabel() *Check {
	s := &Check{
		ID:       "service-selector-extra-label",
		Severity: High,
		Title: incidentlib.Text{
			EN: "Service selector requires a label its workload's selector does not guarantee",
			KO: "Service 셀렉터가 워크로드 셀렉터가 보장하지 않는 레이블을 요구함",
		},
		Remediation: incidentlib.Text{
			EN: "Make the Service select on labels the workload's own selector already requires (usually the same selector labels); keep labels that mark other memberships (gossip rings, versions, experiments) on pods only. If the label is new, add it to every running pod first, or roll out before changing the Service.",
			KO: "Service는 워크로드 자체 셀렉터가 이미 요구하는 레이블(보통 같은 셀렉터 레이블)로 고르게 하세요. 다른 소속(gossip 링, 버전, 실험)을 표시하는 레이블은 파드에만 두세요. 새 레이블이라면 실행 중인 모든 파드에 먼저 붙이거나, 롤아웃을 마친 뒤 Service를 바꾸세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Each Service's selector and the Deployments, StatefulSets and DaemonSets in its namespace whose pod template it matches. When the Service requires a label (key and value) that the workload's own selector does not, only pods created from a template carrying that label receive traffic: during the rollout that introduces it, the few new pods take all of it.",
			KO: "각 Service의 셀렉터와, 같은 네임스페이스에서 그 셀렉터가 파드 템플릿과 일치하는 Deployment, StatefulSet, DaemonSet을 봅니다. Service가 워크로드 자체 셀렉터에 없는 레이블(키와 값)을 요구하면, 그 레이블을 가진 템플릿으로 만든 파드만 트래픽을 받습니다. 그 레이블을 도입하는 롤아웃 동안에는 몇 안 되는 새 파드가 트래픽을 모두 받습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Labels running pods actually carry (a label that every pod already has is harmless), Services meant to pick a subset on purpose by a label the template also sets, and selectors built by other controllers (service meshes, Gateway API).",
			KO: "실행 중인 파드가 실제로 가진 레이블(모든 파드가 이미 가진 레이블이면 문제없음), 템플릿에도 있는 레이블로 일부러 일부만 고르는 Service, 다른 컨트롤러(서비스 메시, Gateway API)가 만드는 셀렉터는 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.Service},
		AnyOf: [][]inventory.Kind{{inventory.Deployment, inventory.StatefulSet, inventory.DaemonSet}},
		Citations: []Citation{
			{Case: "IL-0191",
				Quote:   "As soon as the rollout began, the distributor Service therefore matched only the new pods that already carried the label, all write traffic landed on those few pods, and they were OOM-killed and restarted again and again.",
				QuoteKO: "롤아웃이 시작되자 distributor Service 는 레이블을 이미 단 새 파드만 가리키게 됐고, 쓰기 트래픽 전부가 그 몇 안 되는 파드로 쏠려 파드들이 OOM 으로 죽고 다시 뜨기를 거듭했다."},
		},
	}
	s.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		// A Service only selects pods of its own namespace: compare it
		// with those workloads alone, not with every workload.
		byNS := map[string][]workload{}
		for _, w := range workloads(inv) {
			byNS[w.Ref.Namespace] = append(byNS[w.Ref.Namespace], w)
		}
		for _, svc := range inv.Services {
			sel := svc.Spec.Selector
			if len(sel) == 0 {
				continue
			}
			for _, w := range byNS[svc.Namespace] {
				if w.Ref.Kind == "Job" || w.Ref.Kind == "CronJob" || w.Selector == nil {
					continue
				}
				if !mapSelects(sel, w.Template.Labels) {
					continue
				}
				var extra []string
				for k, v := range sel {
					if !selectorRequires(w, k, v) {
						extra = append(extra, k+"="+v)
					}
				}
				if len(extra) == 0 {
					continue
				}
				sort.Strings(extra)
				l := strings.Join(extra, ", ")
				out = append(out, s.findingAt(0, ref("Service", svc.Namespace, svc.Name), "spec.selector."+strings.SplitN(extra[0], "=", 2)[0],
					fmt.Sprintf("selects %s %s's pods but also requires %s, which that workload's selector does not: pods without it (all older pods during the rollout that adds it) get no traffic", w.Ref.Kind, w.Ref.Name, l),
					fmt.Sprintf("%s %s의 파드를 고르지만, 그 워크로드의 셀렉터에 없는 %s도 요구합니다. 이 레이블이 없는 파드(이 레이블을 추가하는 롤아웃 동안의 모든 기존 파드)는 트래픽을 받지 못합니다", w.Ref.Kind, w.Ref.Name, l)))
			}
		}
		return out
	}
	return s
}

// noPrestopBehindLB builds the no-prestop-behind-lb check.
func noPrestopBehindLB() *Check {
	p := &Check{
		ID:       "no-prestop-behind-lb",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Pods behind an Ingress or load balancer stop on SIGTERM with no preStop delay",
			KO: "Ingress나 로드밸런서 뒤의 파드가 preStop 지연 없이 SIGTERM에 멈춤",
		},
		Remediation: incidentlib.Text{
			EN: "Add a preStop hook that waits (lifecycle.preStop.sleep, or exec sleep) longer than the load balancer takes to drop the endpoint, keep serving after SIGTERM, and make terminationGracePeriodSeconds longer than that wait plus the time to finish in-flight requests.",
			KO: "로드밸런서가 엔드포인트를 빼는 데 걸리는 시간보다 오래 기다리는 preStop 훅(lifecycle.preStop.sleep 또는 exec sleep)을 추가하고, SIGTERM 뒤에도 계속 응답하게 하며, terminationGracePeriodSeconds를 그 대기 시간과 처리 중인 요청을 마칠 시간의 합보다 길게 잡으세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Services that an Ingress routes to or that are of type LoadBalancer, the Deployments and StatefulSets they select, and those pods' preStop hooks and termination grace. Endpoint removal and SIGTERM happen at the same time; an Ingress or cloud load balancer takes seconds to stop sending new connections, so a pod that stops listening at SIGTERM turns those into 502s. A pod with no preStop hook, or with terminationGracePeriodSeconds not longer than its preStop sleep, is reported.",
			KO: "Ingress가 라우팅하거나 LoadBalancer 타입인 Service, 그 Service가 고르는 Deployment와 StatefulSet, 그리고 그 파드들의 preStop 훅과 종료 유예 시간을 봅니다. 엔드포인트 제거와 SIGTERM은 동시에 일어납니다. Ingress나 클라우드 로드밸런서는 새 연결을 멈추는 데 몇 초가 걸리므로, SIGTERM에 바로 리슨을 멈추는 파드는 그 연결을 502로 만듭니다. preStop 훅이 없거나 terminationGracePeriodSeconds가 preStop 대기보다 길지 않은 파드를 보고합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Applications that already keep serving after SIGTERM, load balancers that drain connections themselves, readiness gates, and Gateway API routes.",
			KO: "SIGTERM 뒤에도 이미 계속 응답하는 애플리케이션, 스스로 연결을 드레인하는 로드밸런서, readiness gate, Gateway API 라우트는 보지 못합니다.",
		},
		Kinds:    []inventory.Kind{inventory.Service},
		AnyOf:    [][]inventory.Kind{{inventory.Deployment, inventory.StatefulSet}},
		Optional: []inventory.Kind{inventory.Ingress},
		Citations: []Citation{
			{Case: "IL-0323",
				Quote:   "With plain Services the endpoint change is so fast that it rarely shows, but ingresses react much more slowly, so a pod can get SIGTERM well before the ingress stops sending it new connections.",
				QuoteKO: "일반 서비스에서는 엔드포인트 반영이 워낙 빨라 잘 드러나지 않지만 ingress 는 반응이 훨씬 느려서, 파드가 SIGTERM 을 받은 뒤에도 한참 동안 ingress 가 새 연결을 보낼 수 있다."},
			{Case: "IL-0703",
				Quote:   "when a pod is scaled down, for example during a deployment, the ingress controller sometimes keeps its IP for another one to four minutes, and requests routed to that vanished pod came back as 502.",
				QuoteKO: "배포 등으로 파드가 줄어들 때 그 파드의 IP 가 인그레스 컨트롤러에서 제때 빠지지 않고 1~4분가량 더 남는 경우가 있었다. 이미 내려간 파드의 IP 로 간 트래픽은 502 로 돌아왔다."},
		},
	}
	p.Run = func(inv *inventory.Inventory) []Finding {
		return p.unstoppedBehindLB(inv, lbFronted(inv))
	}
	return p
}

// lbFronted names the Services an Ingress routes to or that are of type
// LoadBalancer, by namespace/name, with what fronts them.
func lbFronted(inv *inventory.Inventory) map[string]string {
	fronted := map[string]string{} // ns/name -> how
	for _, ing := range inv.Ingresses {
		if d := ing.Spec.DefaultBackend; d != nil && d.Service != nil {
			fronted[ing.Namespace+"/"+d.Service.Name] = "Ingress " + ing.Name
		}
		for _, r := range ing.Spec.Rules {
			if r.HTTP == nil {
				continue
			}
			for _, path := range r.HTTP.Paths {
				if path.Backend.Service != nil {
					fronted[ing.Namespace+"/"+path.Backend.Service.Name] = "Ingress " + ing.Name
				}
			}
		}
	}
	for _, svc := range inv.Services {
		if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
			fronted[svc.Namespace+"/"+svc.Name] = "a LoadBalancer Service"
		}
	}
	return fronted
}

// unstoppedBehindLB is no-prestop-behind-lb's findings: the Deployments and
// StatefulSets a fronted Service selects whose pods have no preStop hook,
// or a grace period not longer than its wait.
func (p *Check) unstoppedBehindLB(inv *inventory.Inventory, fronted map[string]string) []Finding {
	var out []Finding
	seen := map[inventory.Ref]bool{}
	for _, svc := range inv.Services {
		how, ok := fronted[svc.Namespace+"/"+svc.Name]
		if !ok || len(svc.Spec.Selector) == 0 {
			continue
		}
		for _, w := range workloads(inv) {
			if (w.Ref.Kind != "Deployment" && w.Ref.Kind != "StatefulSet") || w.Ref.Namespace != svc.Namespace || seen[w.Ref] {
				continue
			}
			if !mapSelects(svc.Spec.Selector, w.Template.Labels) {
				continue
			}
			grace := int64(30)
			if g := w.Template.Spec.TerminationGracePeriodSeconds; g != nil {
				grace = *g
			}
			hook, wait := preStop(w.Template.Spec.Containers)
			switch {
			case !hook:
				seen[w.Ref] = true
				out = append(out, p.findingAt(0, w.Ref, podSpecPath(w.Ref.Kind)+".containers[0].lifecycle",
					fmt.Sprintf("serves %s through Service %s and has no preStop hook: at SIGTERM it stops while the load balancer still sends it new connections", how, svc.Name),
					fmt.Sprintf("Service %s를 통해 %s 뒤에서 응답하는데 preStop 훅이 없습니다. SIGTERM을 받으면 로드밸런서가 아직 새 연결을 보내는 동안 멈춥니다", svc.Name, how)))
			case wait > 0 && grace <= wait:
				seen[w.Ref] = true
				out = append(out, p.findingAt(0, w.Ref, podSpecPath(w.Ref.Kind)+".terminationGracePeriodSeconds",
					fmt.Sprintf("its preStop waits %ds but terminationGracePeriodSeconds is %d: the pod is killed before it finishes", wait, grace),
					fmt.Sprintf("preStop이 %d초 기다리는데 terminationGracePeriodSeconds가 %d입니다. 파드가 마치기 전에 강제 종료됩니다", wait, grace)))
			}
		}
	}
	return out
}

// externalDNSWeightMissing builds the external-dns-weight-missing check.
func externalDNSWeightMissing() *Check {
	e := &Check{
		ID:       "external-dns-weight-missing",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Ingress lacks the external-dns weighted-record annotations the others use",
			KO: "다른 Ingress가 쓰는 external-dns 가중치 레코드 어노테이션이 빠진 Ingress",
		},
		Remediation: incidentlib.Text{
			EN: "Give every Ingress and Service that external-dns publishes the same routing-policy annotations (external-dns.alpha.kubernetes.io/set-identifier together with aws-weight), enforce them with an admission policy, and alert on external-dns errors: one bad record fails the whole batch of changes.",
			KO: "external-dns가 게시하는 모든 Ingress와 Service에 같은 라우팅 정책 어노테이션(external-dns.alpha.kubernetes.io/set-identifier와 aws-weight를 함께)을 달고, 어드미션 정책으로 강제하며, external-dns 오류에 알림을 거세요. 레코드 하나가 잘못되면 변경 묶음 전체가 실패합니다.",
		},
		LooksAt: incidentlib.Text{
			EN: "Ingresses and Services with external-dns annotations. When some of them use weighted routing (set-identifier / aws-weight), an Ingress with hosts that carries neither, or only one of the pair, is reported: external-dns submits changes in batches, and a record that conflicts with the weighted ones makes every write fail, so deleted records are not recreated.",
			KO: "external-dns 어노테이션이 달린 Ingress와 Service를 봅니다. 그중 일부가 가중치 라우팅(set-identifier / aws-weight)을 쓰는데, 호스트가 있는 Ingress가 둘 다 없거나 한쪽만 있으면 보고합니다. external-dns는 변경을 묶음으로 제출하므로 가중치 레코드와 충돌하는 레코드 하나가 모든 쓰기를 실패하게 만들고, 지워진 레코드가 다시 만들어지지 않습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "external-dns's provider, domain filters and ingress-class filters (an Ingress it ignores is harmless), records already in the DNS zone, and routing policies other than AWS weights.",
			KO: "external-dns의 프로바이더, 도메인 필터와 ingress-class 필터(무시되는 Ingress는 해가 없음), DNS 존에 이미 있는 레코드, AWS 가중치 이외의 라우팅 정책은 보지 못합니다.",
		},
		Kinds:    []inventory.Kind{inventory.Ingress},
		Optional: []inventory.Kind{inventory.Service},
		Citations: []Citation{
			{Case: "IL-0415",
				Quote:   "external-dns was trying to put the records back but its writes kept failing, because an unrelated ingress was missing the `external-dns.alpha.kubernetes.io/aws-weight` annotation.",
				QuoteKO: "external-dns 는 레코드를 되살리려 하고 있었지만 쓰기가 계속 실패했다. 관련 없는 ingress 하나에 `external-dns.alpha.kubernetes.io/aws-weight` 어노테이션이 빠져 있었기 때문이다."},
		},
	}
	e.Run = func(inv *inventory.Inventory) []Finding {
		const setID, weight = "external-dns.alpha.kubernetes.io/set-identifier", "external-dns.alpha.kubernetes.io/aws-weight"
		weighted := 0
		for _, ing := range inv.Ingresses {
			if ing.Annotations[setID] != "" && ing.Annotations[weight] != "" {
				weighted++
			}
		}
		for _, svc := range inv.Services {
			if svc.Annotations[setID] != "" && svc.Annotations[weight] != "" {
				weighted++
			}
		}
		if weighted == 0 {
			return nil
		}
		var out []Finding
		for _, ing := range inv.Ingresses {
			hasHost := false
			for _, r := range ing.Spec.Rules {
				if r.Host != "" {
					hasHost = true
				}
			}
			if !hasHost && ing.Annotations["external-dns.alpha.kubernetes.io/hostname"] == "" {
				continue
			}
			s, w := ing.Annotations[setID] != "", ing.Annotations[weight] != ""
			if s && w {
				continue
			}
			var missing []string
			if !s {
				missing = append(missing, setID)
			}
			if !w {
				missing = append(missing, weight)
			}
			m := strings.Join(missing, ", ")
			out = append(out, e.findingAt(0, ref("Ingress", ing.Namespace, ing.Name), "metadata.annotations",
				fmt.Sprintf("lacks %s while %d other objects publish weighted records: its record can fail external-dns's whole batch of changes", m, weighted),
				fmt.Sprintf("다른 객체 %d개가 가중치 레코드를 게시하는데 %s이(가) 없습니다. 이 레코드 때문에 external-dns의 변경 묶음 전체가 실패할 수 있습니다", weighted, m)))
		}
		return out
	}
	return e
}

// selectorRequires reports whether w's own selector requires label k=v.
func selectorRequires(w workload, k, v string) bool {
	if got, ok := w.Selector.MatchLabels[k]; ok && got == v {
		return true
	}
	for _, e := range w.Selector.MatchExpressions {
		if e.Key == k && e.Operator == "In" && len(e.Values) == 1 && e.Values[0] == v {
			return true
		}
	}
	return false
}

// preStop reports whether some container has a preStop hook, and the
// longest sleep among them (0 when unknown).
func preStop(cs []corev1.Container) (bool, int64) {
	hook, wait := false, int64(0)
	for _, c := range cs {
		if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
			continue
		}
		hook = true
		ps := c.Lifecycle.PreStop
		if ps.Sleep != nil && ps.Sleep.Seconds > wait {
			wait = ps.Sleep.Seconds
		}
		if ps.Exec != nil {
			cmd := ps.Exec.Command
			for i, a := range cmd {
				if (a == "sleep" || strings.HasSuffix(a, "/sleep")) && i+1 < len(cmd) {
					var n int64
					if _, err := fmt.Sscanf(cmd[i+1], "%d", &n); err == nil && n > wait {
						wait = n
					}
				}
				if f := strings.Fields(a); len(f) == 2 && f[0] == "sleep" {
					var n int64
					if _, err := fmt.Sscanf(f[1], "%d", &n); err == nil && n > wait {
						wait = n
					}
				}
			}
		}
	}
	return hook, wait
}

// updatesOnDelete builds the updates-on-delete check.
func updatesOnDelete() *Check {
	c := &Check{
		ID:       "updates-on-delete",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "StatefulSet or DaemonSet updates wait for someone to delete each pod (updateStrategy OnDelete)",
			KO: "StatefulSet이나 DaemonSet의 업데이트가 누군가 파드를 하나씩 지울 때까지 기다림(updateStrategy OnDelete)",
		},
		Remediation: incidentlib.Text{
			EN: "Use the RollingUpdate strategy (the default in apps/v1) so that a changed template reaches the pods when it is applied, where it can be watched and rolled back. If OnDelete is deliberate, make deleting the pods part of every deploy and alert when the pods' revision lags the object's.",
			KO: "RollingUpdate 전략(apps/v1의 기본값)을 써서, 바뀐 템플릿이 적용되는 그때 파드에 반영되고 그 자리에서 지켜보고 되돌릴 수 있게 하세요. OnDelete가 의도된 것이라면 파드 삭제를 모든 배포의 한 단계로 넣고, 파드의 리비전이 객체의 리비전보다 뒤처지면 알림을 거세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The update strategy of StatefulSets and DaemonSets. With OnDelete, applying a new template (a new image, new flags) changes no running pod: each keeps the old spec until it is deleted, by hand or by a node drain, so a deploy seems to succeed while nothing changes, and a bad change starts much later, when nobody is watching it.",
			KO: "StatefulSet과 DaemonSet의 업데이트 전략을 봅니다. OnDelete이면 새 템플릿(새 이미지, 새 플래그)을 적용해도 돌고 있는 파드는 하나도 바뀌지 않습니다. 파드는 손으로든 노드 drain으로든 지워질 때까지 옛 스펙을 유지하므로, 배포는 성공한 듯 보여도 바뀐 것이 없고, 잘못된 변경은 한참 뒤 아무도 지켜보지 않을 때 시작됩니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Whether the pods already run the current template (the revisions in the object's status are not compared), and rollouts paused or partitioned in other ways (a RollingUpdate partition).",
			KO: "파드가 이미 현재 템플릿으로 돌고 있는지(객체 status의 리비전은 비교하지 않습니다), 다른 방식으로 멈추거나 나뉜 롤아웃(RollingUpdate partition)은 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{{inventory.StatefulSet, inventory.DaemonSet}},
		Citations: []Citation{
			{Case: "IL-0434",
				Quote:   "The Boskos StatefulSet was not set up to roll out updates, so an update silently did nothing.",
				QuoteKO: "Boskos StatefulSet 은 업데이트를 롤아웃하도록 설정돼 있지 않아, 갱신이 조용히 아무 일도 하지 않았다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		report := func(r inventory.Ref) {
			out = append(out, c.findingAt(0, r, "spec.updateStrategy.type",
				"updateStrategy is OnDelete: a new template reaches a pod only when that pod is deleted, so an applied update can do nothing until a drain or a restart starts it unwatched",
				"updateStrategy가 OnDelete입니다. 새 템플릿은 파드가 지워질 때에야 그 파드에 반영되므로, 적용한 업데이트가 drain이나 재시작으로 아무도 지켜보지 않을 때 시작될 때까지 아무 일도 하지 않을 수 있습니다"))
		}
		for _, s := range inv.StatefulSets {
			if s.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
				report(ref("StatefulSet", s.Namespace, s.Name))
			}
		}
		for _, d := range inv.DaemonSets {
			if d.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType {
				report(ref("DaemonSet", d.Namespace, d.Name))
			}
		}
		return out
	}
	return c
}

// budgetBlocksDrain builds the disruption-budget-blocks-drain check.
func budgetBlocksDrain() *Check {
	c := &Check{
		ID:       "disruption-budget-blocks-drain",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "PodDisruptionBudget allows no eviction, so node drains stall",
			KO: "축출을 하나도 허용하지 않아 노드 drain을 멈춰 세우는 PodDisruptionBudget",
		},
		Remediation: incidentlib.Text{
			EN: "Let every budget allow at least one disruption when all its pods are healthy: maxUnavailable: 1 (or a percentage), or minAvailable below the replica count; run two or more replicas of anything with a budget. Check the budgets that charts install by default, and watch drains for evictions refused by a budget.",
			KO: "모든 파드가 건강할 때 적어도 하나는 중단할 수 있게 예산을 두세요. maxUnavailable: 1(또는 비율)이나 복제본 수보다 작은 minAvailable을 쓰고, 예산이 있는 것은 복제본을 둘 이상 두세요. 차트가 기본으로 설치하는 예산을 확인하고, drain 중 예산 때문에 거절되는 축출을 지켜보세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "PodDisruptionBudgets and the Deployments and StatefulSets they select. A budget with maxUnavailable 0 (or 0%), minAvailable 100%, or a minAvailable count at or above the replicas of the workloads it selects allows no eviction even when every pod is healthy: a drain waits on it forever, the node stays in service with its pods, and node pool changes that count on drains (upgrades, replacing a pool) stall or leave traffic on the old nodes.",
			KO: "PodDisruptionBudget과 그것이 고르는 Deployment, StatefulSet을 봅니다. maxUnavailable이 0(또는 0%)이거나 minAvailable이 100%이거나, minAvailable 개수가 고르는 워크로드의 복제본 수 이상이면, 모든 파드가 건강해도 축출을 하나도 허용하지 않습니다. drain은 끝없이 기다리고, 노드는 파드를 품은 채 남으며, drain에 기대는 노드 풀 변경(업그레이드, 풀 교체)이 멈추거나 트래픽이 옛 노드에 남습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Budgets that block only while pods are unhealthy, workloads other than Deployments and StatefulSets (their replicas are not counted, so a minAvailable count is judged only against those), and drains that bypass budgets.",
			KO: "파드가 건강하지 않을 때만 막는 예산, Deployment와 StatefulSet이 아닌 워크로드(그 복제본은 세지 않으므로 minAvailable 개수는 이 둘에 대해서만 판단합니다), 예산을 우회하는 drain은 보지 못합니다.",
		},
		Kinds:    []inventory.Kind{inventory.PDB},
		Optional: []inventory.Kind{inventory.Deployment, inventory.StatefulSet},
		Citations: []Citation{
			{Case: "IL-1020",
				Quote:   "The drain stalled on disruption budgets misconfigured on the team's side: it did not need them and had kept them from a Helm chart's defaults.",
				QuoteKO: "드레인은 팀 쪽에서 잘못 설정된 PodDisruptionBudget 에 걸려 멈췄다. 팀에는 필요 없었고, Helm 차트의 기본값을 그대로 둔 것이었다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		ws := workloadsIn(inv, "Deployment", "StatefulSet")
		for _, p := range inv.PDBs {
			why, field := "", "spec.minAvailable"
			switch mu, ma := p.Spec.MaxUnavailable, p.Spec.MinAvailable; {
			case mu != nil && (mu.String() == "0" || mu.String() == "0%"):
				why, field = "maxUnavailable "+mu.String(), "spec.maxUnavailable"
			case ma != nil && ma.String() == "100%":
				why = "minAvailable 100%"
			case ma != nil && ma.Type == intstr.Int:
				total, names := 0, []string{}
				for _, w := range ws[p.Namespace] {
					if selectorMatches(p.Spec.Selector, w.Template.Labels) {
						total += w.Replicas
						names = append(names, w.Ref.Kind+" "+w.Ref.Name)
					}
				}
				if len(names) > 0 && int(ma.IntVal) >= total {
					why = fmt.Sprintf("minAvailable %d with %s selected (%s)", ma.IntVal, replicaCount(total), strings.Join(names, ", "))
				}
			}
			if why == "" {
				continue
			}
			out = append(out, c.findingAt(0, ref("PodDisruptionBudget", p.Namespace, p.Name), field,
				fmt.Sprintf("%s allows no eviction even with every pod healthy: a node drain waits on it and the pods stay on the old node", why),
				fmt.Sprintf("%s: 모든 파드가 건강해도 축출을 하나도 허용하지 않습니다. 노드 drain이 이 예산에서 멈추고 파드는 옛 노드에 남습니다", why)))
		}
		return out
	}
	return c
}

// localTrafficPolicy builds the lb-local-traffic-policy check.
func localTrafficPolicy() *Check {
	c := &Check{
		ID:       "lb-local-traffic-policy",
		Severity: Low,
		Title: incidentlib.Text{
			EN: "Load balancer Service with externalTrafficPolicy Local sends traffic only to nodes that run one of its pods",
			KO: "externalTrafficPolicy Local인 로드 밸런서 Service는 파드가 도는 노드로만 트래픽을 보냄",
		},
		Remediation: incidentlib.Text{
			EN: "Keep externalTrafficPolicy Local only where the client address is needed, and then run the backing pods on every node the load balancer uses (a DaemonSet), or make sure that node pool changes move the pods to the new nodes before the old ones leave the load balancer. Otherwise use Cluster.",
			KO: "externalTrafficPolicy Local은 클라이언트 주소가 꼭 필요할 때만 쓰세요. 그럴 때는 로드 밸런서가 쓰는 모든 노드에 뒤의 파드를 띄우거나(DaemonSet), 노드 풀을 바꿀 때 옛 노드가 로드 밸런서에서 빠지기 전에 파드가 새 노드로 옮겨 가게 하세요. 그렇지 않다면 Cluster를 쓰세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Services of type LoadBalancer with externalTrafficPolicy Local whose pods come from a Deployment or StatefulSet of the input. With Local, a node without one of the Service's pods fails the load balancer's health check on purpose and gets no traffic. When nodes are replaced and the pods have not moved (a drain that is blocked or not yet done), the new nodes forward nothing and the Service is unreachable.",
			KO: "externalTrafficPolicy가 Local인 LoadBalancer 타입 Service 가운데 파드가 입력의 Deployment나 StatefulSet에서 오는 것을 봅니다. Local에서는 Service의 파드가 없는 노드가 로드 밸런서 헬스 체크에 일부러 떨어져 트래픽을 받지 않습니다. 노드를 교체하는데 파드가 옮겨 가지 않았다면(drain이 막혔거나 아직 끝나지 않았다면), 새 노드는 아무것도 넘기지 않고 Service에 닿을 수 없게 됩니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "How nodes are replaced, where the pods run now, and load balancers that check pods directly (container-native load balancing).",
			KO: "노드를 어떻게 교체하는지, 파드가 지금 어디서 도는지, 파드를 직접 검사하는 로드 밸런서(컨테이너 네이티브 부하 분산)는 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.Service},
		AnyOf: [][]inventory.Kind{{inventory.Deployment, inventory.StatefulSet}},
		Citations: []Citation{
			{Case: "IL-1020",
				Quote:   "Check Service definitions more than once: externalTrafficPolicy Local, a default of the ingress-nginx manifests for GCP, makes nodes without an ingress pod fail the load balancer's health check on purpose.",
				QuoteKO: "Service 정의는 두 번, 세 번 확인한다. GCP 용 ingress-nginx 매니페스트의 기본값인 externalTrafficPolicy Local 은 인그레스 파드가 없는 노드가 로드 밸런서 헬스 체크에 일부러 떨어지게 만든다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		ws := workloadsIn(inv, "Deployment", "StatefulSet")
		for _, s := range inv.Services {
			if s.Spec.Type != corev1.ServiceTypeLoadBalancer || s.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal {
				continue
			}
			var backs []string
			for _, w := range ws[s.Namespace] {
				if mapSelects(s.Spec.Selector, w.Template.Labels) {
					backs = append(backs, fmt.Sprintf("%s %s (%s)", w.Ref.Kind, w.Ref.Name, replicaCount(w.Replicas)))
				}
			}
			if len(backs) == 0 {
				continue
			}
			l := strings.Join(backs, ", ")
			out = append(out, c.findingAt(0, ref("Service", s.Namespace, s.Name), "spec.externalTrafficPolicy",
				fmt.Sprintf("externalTrafficPolicy Local in front of %s: only nodes running one of its pods pass the load balancer's health check, so nodes replaced before the pods move forward nothing", l),
				fmt.Sprintf("%s 앞의 externalTrafficPolicy Local: 파드가 도는 노드만 로드 밸런서 헬스 체크를 통과하므로, 파드가 옮겨 가기 전에 노드를 교체하면 아무것도 넘겨지지 않습니다", l)))
		}
		return out
	}
	return c
}

// singleReplicaBehindService builds the single-replica-behind-service check.
func singleReplicaBehindService() *Check {
	c := &Check{
		ID:       "single-replica-behind-service",
		Severity: Low,
		Title: incidentlib.Text{
			EN: "Deployment behind a Service runs a single replica",
			KO: "Service 뒤의 Deployment가 복제본 하나로 돎",
		},
		Remediation: incidentlib.Text{
			EN: "Run two or more replicas of a Deployment whose Service must keep answering, spread over nodes and covered by a PodDisruptionBudget, so that draining, replacing or losing one node leaves a pod to serve. Where the workload cannot run twice (a single writer, a volume one node mounts), plan its node replacements so that its pod moves before the old node goes.",
			KO: "Service가 계속 답해야 하는 Deployment는 복제본을 둘 이상 두고 노드에 나눠 배치한 뒤 PodDisruptionBudget으로 덮으세요. 그래야 노드 하나를 drain하거나 교체하거나 잃어도 요청을 받을 파드가 남습니다. 두 개를 돌릴 수 없는 워크로드(쓰는 쪽이 하나여야 하거나, 한 노드만 붙일 수 있는 볼륨)라면, 이전 노드가 사라지기 전에 파드가 옮겨 가도록 노드 교체를 계획하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Deployments whose pods a Service of the input selects (Services that only expose metrics left out), whose replicas are one, written or left to the default, and which no HorizontalPodAutoscaler of the input keeps at two or more. When that one pod's node is drained, replaced or lost, the Service has no pod to send requests to until a new one is scheduled and ready. Cluster DNS is left to dns-few-replicas.",
			KO: "입력의 Service가 파드를 고르는 Deployment(메트릭만 내놓는 Service는 빼고) 가운데, 복제본이 하나(적었든 기본값이든)이고 입력의 HorizontalPodAutoscaler가 둘 이상으로 유지하지 않는 것을 봅니다. 그 파드 하나가 있는 노드가 drain되거나 교체되거나 사라지면, 새 파드가 스케줄돼 준비될 때까지 Service는 요청을 보낼 파드가 없습니다. 클러스터 DNS는 dns-few-replicas가 봅니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Whether an interruption matters for this workload (a single replica can be a fair choice outside production), replicas set later by a tool or an autoscaler outside the input, and StatefulSets, whose single replica is often a single-writer database.",
			KO: "이 워크로드에 중단이 문제가 되는지(운영 밖에서는 복제본 하나도 합당한 선택일 수 있습니다), 입력 밖의 도구나 오토스케일러가 나중에 정하는 복제본 수, 그리고 복제본 하나가 흔히 쓰는 쪽이 하나인 데이터베이스인 StatefulSet은 보지 못합니다.",
		},
		Kinds:    []inventory.Kind{inventory.Service, inventory.Deployment},
		Optional: []inventory.Kind{inventory.HPA},
		Citations: []Citation{
			{Case: "IL-1185",
				Quote:   "Teams' own ingress controllers ran a single replica in non-production namespaces, and that single replica caused some of the Pingdom alerts and health check failures when the nodes were terminated.",
				QuoteKO: "팀들이 직접 둔 ingress controller 는 비운영 네임스페이스에서 레플리카가 하나뿐이었고, 노드가 종료될 때 이 하나뿐인 레플리카가 Pingdom 알림과 헬스 체크 실패의 일부를 일으켰다."},
			{Case: "IL-1184",
				Quote:   "The write-up names production Deployments configured with only one replica as a contributing factor of the downtime during the node rollover",
				QuoteKO: "보고서는 레플리카 하나로만 설정된 운영 Deployment 를 노드 교체 중 서비스 중단의 기여 요인으로 꼽았고"},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		byNS := servicesIn(inv)
		for _, w := range workloads(inv) {
			if w.Ref.Kind != "Deployment" || w.Replicas != 1 || hpaFloor(inv, w) >= 2 || isClusterDNS(w) {
				continue
			}
			var svcs []string
			for _, s := range byNS[w.Ref.Namespace] {
				if mapSelects(s.Spec.Selector, w.Template.Labels) && !metricsOnly(s) {
					svcs = append(svcs, s.Name)
				}
			}
			if len(svcs) == 0 {
				continue
			}
			sv := strings.Join(svcs, ", ")
			out = append(out, c.findingAt(0, w.Ref, "spec.replicas",
				fmt.Sprintf("runs one replica behind Service %s: while its node is drained, replaced or lost, the Service has no pod to answer", sv),
				fmt.Sprintf("Service %s 뒤에서 복제본 하나로 돕니다. 그 노드가 drain되거나 교체되거나 사라지는 동안 Service에는 답할 파드가 없습니다", sv)))
		}
		return out
	}
	return c
}
