package checks

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// schedulingChecks are the checks of scheduling: a check of this file is listed here, and
// registry.go lists the files.
func schedulingChecks() []*Check {
	return []*Check{
		replicasNotSpread(),
		noResourceRequests(),
		memoryOvercommit(),
		criticalPodNoPriority(),
		hpaNoHeadroom(),
		pinnedAntiAffinityDeadlock(),
	}
}

// spreadKeys are the topology keys that keep replicas off one node.
var spreadKeys = map[string]bool{"kubernetes.io/hostname": true, "topology.kubernetes.io/zone": true, "failure-domain.beta.kubernetes.io/zone": true}

// spreads reports whether a pod template asks the scheduler to keep its
// replicas apart: pod anti-affinity or a topology spread constraint on a
// node or zone key.
func spreads(t *corev1.PodTemplateSpec) bool {
	for _, c := range t.Spec.TopologySpreadConstraints {
		if spreadKeys[c.TopologyKey] {
			return true
		}
	}
	a := t.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return false
	}
	for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if spreadKeys[term.TopologyKey] {
			return true
		}
	}
	for _, term := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		if spreadKeys[term.PodAffinityTerm.TopologyKey] {
			return true
		}
	}
	return false
}

// isIngressController recognises the usual ingress controllers by image or
// name.
func isIngressController(w workload) bool {
	if strings.Contains(w.Ref.Name, "ingress") {
		return true
	}
	for _, c := range w.Template.Spec.Containers {
		name := imageName(c.Image)
		if strings.Contains(name, "ingress") || imageIs(c.Image, "traefik", "contour") {
			return true
		}
	}
	return false
}

func replicasNotSpread() *Check {
	c := &Check{
		ID:       "replicas-not-spread",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Replicas may all land on one node: no anti-affinity or topology spread",
			KO: "복제본이 모두 한 노드에 몰릴 수 있음: anti-affinity도 topology spread도 없음",
		},
		Remediation: incidentlib.Text{
			EN: "Add a topologySpreadConstraint on kubernetes.io/hostname (and topology.kubernetes.io/zone) selecting the workload's own pods, or a pod anti-affinity on the same keys, so that losing, cordoning or draining one node never takes every replica; for ingress controllers use DoNotSchedule or required anti-affinity, and check after node pool changes where the pods really are.",
			KO: "워크로드 자신의 파드를 고르는 kubernetes.io/hostname(과 topology.kubernetes.io/zone) topologySpreadConstraint나 같은 키의 pod anti-affinity를 추가해, 노드 하나를 잃거나 cordon·drain해도 모든 복제본이 함께 사라지지 않게 하세요. ingress 컨트롤러에는 DoNotSchedule이나 required anti-affinity를 쓰고, 노드 풀을 바꾼 뒤에는 파드가 실제로 어디 있는지 확인하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Deployments and StatefulSets with two or more replicas and their pod templates' topologySpreadConstraints and pod anti-affinity (required or preferred) on the hostname or zone keys. Without either, nothing stops the scheduler, or time and node churn, from putting every replica on one node, and that node's failure or cordon takes the whole service. Ingress controllers, through which all outside traffic enters, are reported as medium; other workloads as low.",
			KO: "복제본이 둘 이상인 Deployment와 StatefulSet, 그리고 그 파드 템플릿에 hostname이나 zone 키의 topologySpreadConstraints나 pod anti-affinity(required 또는 preferred)가 있는지를 봅니다. 둘 다 없으면 스케줄러가, 또는 시간이 흐르며 노드가 바뀌면서 모든 복제본이 한 노드에 모여도 막을 것이 없고, 그 노드가 죽거나 cordon되면 서비스 전체가 멈춥니다. 외부 트래픽이 모두 들어오는 ingress 컨트롤러는 중간, 다른 워크로드는 낮음으로 보고합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Where the pods are right now, cluster-wide default spreading set in the scheduler's configuration, the number of nodes, and node selectors that pin every replica to a small pool anyway.",
			KO: "지금 파드가 실제로 어디 있는지, 스케줄러 설정에 둔 클러스터 전체 기본 분산, 노드 수, 어차피 모든 복제본을 작은 노드 풀에 묶는 노드 셀렉터는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{{inventory.Deployment, inventory.StatefulSet}},
		Citations: []Citation{
			{Case: "IL-0542",
				Quote:   "During a node pool upgrade the last old nodes, which carried all ingress-controller pods, were cordoned and mybinder.org was down for about 40 minutes unnoticed",
				QuoteKO: "노드 풀 업그레이드 중 인그레스 컨트롤러 파드가 모두 올라가 있던 마지막 옛 노드들을 cordon 해, mybinder.org 가 아무도 모르게 약 40분 동안 내려가 있었다"},
			{Case: "IL-0560",
				Quote:   "Letting every scan controller consolidate on one node meant a single unhealthy node affected every customer",
				QuoteKO: "모든 스캔 컨트롤러가 노드 하나에 몰리게 둔 탓에 노드 하나의 고장이 모든 고객에게 번졌고"},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			if (w.Ref.Kind != "Deployment" && w.Ref.Kind != "StatefulSet") || w.Replicas < 2 || spreads(w.Template) {
				continue
			}
			if isIngressController(w) {
				out = append(out, c.findingAt(Medium, w.Ref, "spec.replicas",
					fmt.Sprintf("ingress controller with %d replicas and nothing that keeps them on different nodes: cordoning or losing the node they share takes all outside traffic down", w.Replicas),
					fmt.Sprintf("복제본 %d개인 ingress 컨트롤러인데 이들을 서로 다른 노드에 두게 하는 설정이 없습니다. 함께 있는 노드를 cordon하거나 잃으면 외부 트래픽이 모두 끊깁니다", w.Replicas)))
				continue
			}
			out = append(out, c.findingAt(Low, w.Ref, "spec.replicas",
				fmt.Sprintf("has %d replicas and nothing that keeps them on different nodes: they can end up together and fail with one node", w.Replicas),
				fmt.Sprintf("복제본이 %d개인데 이들을 서로 다른 노드에 두게 하는 설정이 없습니다. 한 노드에 모였다가 그 노드와 함께 멈출 수 있습니다", w.Replicas)))
		}
		return out
	}
	return c
}

// limitRangeDefaults reports whether a LimitRange in ns gives containers a
// default request or limit for resource r.
func limitRangeDefaults(inv *inventory.Inventory, ns string, r corev1.ResourceName) bool {
	for _, lr := range inv.LimitRanges {
		if lr.Namespace != ns {
			continue
		}
		for _, it := range lr.Spec.Limits {
			if it.Type != corev1.LimitTypeContainer {
				continue
			}
			if q, ok := it.DefaultRequest[r]; ok && !q.IsZero() {
				return true
			}
			if q, ok := it.Default[r]; ok && !q.IsZero() {
				return true
			}
		}
	}
	return false
}

func declares(c *corev1.Container, r corev1.ResourceName) bool {
	if q, ok := c.Resources.Requests[r]; ok && !q.IsZero() {
		return true
	}
	q, ok := c.Resources.Limits[r] // a limit alone sets the request
	return ok && !q.IsZero()
}

func noResourceRequests() *Check {
	c := &Check{
		ID:       "no-resource-requests",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Containers request neither CPU nor memory, and the namespace sets no default",
			KO: "CPU도 메모리도 요청하지 않는 컨테이너, 네임스페이스 기본값도 없음",
		},
		Remediation: incidentlib.Text{
			EN: "Give every container CPU and memory requests sized from what it really uses, and each namespace a LimitRange with default requests; keep platform pods (hub, proxy, ingress, monitoring) on their own nodes or give them guaranteed resources, so that busy neighbours cannot starve them.",
			KO: "모든 컨테이너에 실제 사용량을 바탕으로 CPU와 메모리 요청을 주고, 네임스페이스마다 기본 요청이 있는 LimitRange를 두세요. 플랫폼 파드(허브, 프록시, ingress, 모니터링)는 전용 노드에 두거나 보장된 자원을 주어 바쁜 이웃이 굶기지 못하게 하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The containers of every workload and the LimitRanges of its namespace. A container with no CPU and no memory request (nor a limit, which would set one), in a namespace whose LimitRange gives no default for either, is reported. The scheduler counts such pods as needing nothing, packs them onto nodes that are already busy, and the cluster autoscaler sees no reason to add nodes; the pods are the first evicted and starve whatever shares their node.",
			KO: "모든 워크로드의 컨테이너와 그 네임스페이스의 LimitRange를 봅니다. CPU 요청도 메모리 요청도 없고(요청을 정해 주는 제한도 없고), 네임스페이스의 LimitRange도 둘 중 어느 기본값도 주지 않는 컨테이너를 보고합니다. 스케줄러는 이런 파드를 아무것도 필요 없는 것으로 쳐서 이미 바쁜 노드에 몰아넣고, 클러스터 오토스케일러는 노드를 늘릴 이유를 찾지 못합니다. 이 파드는 가장 먼저 축출되고, 같은 노드의 다른 것들을 굶깁니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Admission policies or webhooks that add requests at creation, whether the requests that are set match real use (undersized requests pack nodes as well), init containers, and bare pods.",
			KO: "생성 시 요청을 붙이는 어드미션 정책이나 웹훅, 설정된 요청이 실제 사용량에 맞는지(너무 작은 요청도 노드를 과밀하게 만듭니다), init 컨테이너, 단독 파드는 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.LimitRange},
		AnyOf: [][]inventory.Kind{allWorkloads},
		Citations: []Citation{
			{Case: "IL-0712",
				Quote:   "shared nodes with JupyterHub's core pods, which had no resource guarantees, and starved the WER hub into a total outage",
				QuoteKO: "메모리를 4배 오버커밋한 학생 서버가 자원 보장이 없는 JupyterHub 핵심 파드와 같은 노드를 쓰면서 핵심 파드의 자원을 빼앗아 WER 허브가 전면 중단됐다"},
			{Case: "IL-0779",
				Quote:   "Pods without resource quotas overloaded a node in team Booking's okctl development cluster",
				QuoteKO: "리소스 쿼터가 없는 파드들이 team Booking 의 okctl 개발 클러스터 노드를 과부하에 빠뜨려"},
			{Case: "IL-0666",
				Quote:   "one node showed 102% CPU and 110% memory, and the Prow service deployments had no requests or limits.",
				QuoteKO: "한 노드는 CPU 102%, 메모리 110% 를 찍었고, Prow 서비스 디플로이먼트에는 requests 도 limits 도 없었다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			if limitRangeDefaults(inv, w.Ref.Namespace, corev1.ResourceCPU) || limitRangeDefaults(inv, w.Ref.Namespace, corev1.ResourceMemory) {
				continue
			}
			var none []string
			for i := range w.Template.Spec.Containers {
				ctr := &w.Template.Spec.Containers[i]
				unknown := inv.FieldUnknown(w.Ref, fmt.Sprintf(".containers[%d].resources", i))
				if !unknown && !declares(ctr, corev1.ResourceCPU) && !declares(ctr, corev1.ResourceMemory) {
					none = append(none, ctr.Name)
				}
			}
			if len(none) == 0 {
				continue
			}
			l := strings.Join(none, ", ")
			out = append(out, c.findingAt(0, w.Ref, containerPath(w.Ref.Kind, w.Template, none[0])+".resources",
				fmt.Sprintf("container %s requests no CPU and no memory: the scheduler packs it onto busy nodes, the autoscaler adds no node for it, and it starves its neighbours", l),
				fmt.Sprintf("컨테이너 %s가 CPU도 메모리도 요청하지 않습니다. 스케줄러는 이를 바쁜 노드에 몰아넣고, 오토스케일러는 이를 위해 노드를 늘리지 않으며, 이웃 파드를 굶깁니다", l)))
		}
		return out
	}
	return c
}

// overcommitRatio is the memory limit to request ratio that the cited case
// ran at and that starved its nodes.
const overcommitRatio = 4

func memoryOvercommit() *Check {
	c := &Check{
		ID:       "memory-overcommit",
		Severity: Low,
		Title: incidentlib.Text{
			EN: "Memory limit four times the request or more",
			KO: "메모리 제한이 요청의 네 배 이상",
		},
		Remediation: incidentlib.Text{
			EN: "Set the memory request close to what the container really uses at its busy times, and keep the limit within about twice the request (equal for important pods); measure before choosing an overcommit ratio, and keep pods that others depend on on nodes where user workloads cannot overcommit.",
			KO: "메모리 요청을 컨테이너가 바쁠 때 실제로 쓰는 양에 가깝게 잡고, 제한은 요청의 두 배 안쪽으로(중요한 파드는 같게) 두세요. 오버커밋 비율은 측정한 뒤에 정하고, 다른 것들이 기대는 파드는 사용자 워크로드가 오버커밋할 수 없는 노드에 두세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The memory request and limit of every workload container. A limit four times the request or more is reported: the scheduler places pods by their requests, so a node filled with such pods has promised each one far more memory than it holds, and when many of them grow at once (a class logging in, a traffic peak) the node runs out and starves or kills everything on it.",
			KO: "모든 워크로드 컨테이너의 메모리 요청과 제한을 봅니다. 제한이 요청의 네 배 이상이면 보고합니다. 스케줄러는 요청을 기준으로 파드를 배치하므로, 이런 파드로 찬 노드는 가진 것보다 훨씬 많은 메모리를 각 파드에 약속한 셈이 되고, 여럿이 한꺼번에 커지면(수업 시작, 트래픽 정점) 노드의 메모리가 바닥나 그 위의 모든 것이 굶거나 죽습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "What the containers really use (a ratio that matches measured use can be fine), LimitRange ratios (maxLimitRequestRatio) and defaults, and the node's eviction thresholds.",
			KO: "컨테이너가 실제로 쓰는 양(측정한 사용량에 맞는 비율이면 괜찮을 수 있습니다), LimitRange의 비율(maxLimitRequestRatio)과 기본값, 노드의 eviction 임계값은 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{allWorkloads},
		Citations: []Citation{
			{Case: "IL-0712",
				Quote:   "WER student servers had a 2G memory limit but only 512M guaranteed, the 4x overcommit 2i2c commonly applies.",
				QuoteKO: "WER 학생 서버는 메모리 한도가 2G 인데 보장은 512M 뿐인, 2i2c 가 흔히 쓰는 4배 오버커밋이었다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			var hits []string
			first := ""
			for _, ctr := range w.Template.Spec.Containers {
				req, rok := ctr.Resources.Requests[corev1.ResourceMemory]
				lim, lok := ctr.Resources.Limits[corev1.ResourceMemory]
				if !rok || !lok || req.IsZero() || lim.Value() < overcommitRatio*req.Value() {
					continue
				}
				if len(hits) == 0 {
					first = ctr.Name
				}
				hits = append(hits, fmt.Sprintf("%s (%s limit, %s request)", ctr.Name, lim.String(), req.String()))
			}
			if len(hits) == 0 {
				continue
			}
			l := strings.Join(hits, ", ")
			out = append(out, c.findingAt(0, w.Ref, containerPath(w.Ref.Kind, w.Template, first)+".resources.limits.memory",
				fmt.Sprintf("container %s may use four times the memory it is scheduled for or more: nodes full of such pods run out when they grow together", l),
				fmt.Sprintf("컨테이너 %s는 스케줄링 기준의 네 배 이상 메모리를 쓸 수 있습니다. 이런 파드로 찬 노드는 파드들이 함께 커지면 메모리가 바닥납니다", l)))
		}
		return out
	}
	return c
}

// isClusterAutoscaler recognises the cluster-autoscaler Deployment.
func isClusterAutoscaler(w workload) bool {
	if w.Ref.Name == "cluster-autoscaler" {
		return true
	}
	for _, c := range w.Template.Spec.Containers {
		if imageIs(c.Image, "cluster-autoscaler") {
			return true
		}
	}
	return false
}

func criticalPodNoPriority() *Check {
	c := &Check{
		ID:       "critical-pod-no-priority",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Cluster autoscaler or cluster DNS runs without a priority class",
			KO: "클러스터 오토스케일러나 클러스터 DNS가 우선순위 클래스 없이 실행됨",
		},
		Remediation: incidentlib.Text{
			EN: "Give the cluster-autoscaler and cluster DNS priorityClassName: system-cluster-critical (as their upstream manifests do), and size the nodes they run on (masters, system pools) for the DNS replicas that grow with the cluster.",
			KO: "cluster-autoscaler와 클러스터 DNS에 priorityClassName: system-cluster-critical을 주고(업스트림 매니페스트처럼), 이들이 도는 노드(마스터, 시스템 풀)를 클러스터와 함께 늘어나는 DNS 복제본까지 감당할 크기로 잡으세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The cluster-autoscaler Deployment and the CoreDNS / kube-dns Deployment in kube-system, and their pod templates' priorityClassName. Without one they run at the priority of any application pod: when the nodes they share fill up (for instance with DNS replicas added as the cluster grows) they can be pushed out and left Pending, and a cluster without its autoscaler cannot add the nodes that would make room.",
			KO: "cluster-autoscaler Deployment와 kube-system의 CoreDNS / kube-dns Deployment, 그리고 그 파드 템플릿의 priorityClassName을 봅니다. 이것이 없으면 일반 애플리케이션 파드와 같은 우선순위로 돕니다. 함께 쓰는 노드가 차면(예를 들어 클러스터가 커지며 늘어난 DNS 복제본으로) 밀려나 Pending에 머물 수 있고, 오토스케일러를 잃은 클러스터는 자리를 만들어 줄 노드를 더하지 못합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "The value of the priority class that is named (kubegap does not read PriorityClasses), resources reserved on the nodes these pods run on, and managed autoscalers that run outside the cluster.",
			KO: "지정된 우선순위 클래스의 값(kubegap은 PriorityClass를 읽지 않습니다), 이 파드들이 도는 노드에 예약된 자원, 클러스터 밖에서 도는 관리형 오토스케일러는 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.Deployment},
		Citations: []Citation{
			{Case: "IL-0725",
				Quote:   "As the node count grew, the kube-dns pods had scaled up, and at some point this pushed out the cluster-autoscaler and, as the team saw it, the kube-dns pods themselves too.",
				QuoteKO: "노드 수가 늘면서 kube-dns 파드가 함께 늘었는데, 어느 순간 이것이 cluster-autoscaler 를 밀어냈고 kube-dns 파드 자신도 밀려난 듯했다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			if w.Ref.Kind != "Deployment" || w.Template.Spec.PriorityClassName != "" {
				continue
			}
			what, whatKO := "", ""
			switch {
			case isClusterAutoscaler(w):
				what, whatKO = "the cluster autoscaler", "클러스터 오토스케일러"
			case w.Ref.Namespace == "kube-system" && isClusterDNS(w):
				what, whatKO = "cluster DNS", "클러스터 DNS"
			default:
				continue
			}
			out = append(out, c.findingAt(0, w.Ref, podSpecPath(w.Ref.Kind),
				fmt.Sprintf("runs %s with no priorityClassName: when its nodes fill up it can be pushed out like any application pod", what),
				fmt.Sprintf("%s를 priorityClassName 없이 돌립니다. 노드가 차면 일반 애플리케이션 파드처럼 밀려날 수 있습니다", whatKO)))
		}
		return out
	}
	return c
}

func hpaNoHeadroom() *Check {
	c := &Check{
		ID:       "hpa-no-headroom",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "HorizontalPodAutoscaler has no room to scale up",
			KO: "HorizontalPodAutoscaler가 더 늘릴 여유가 없음",
		},
		Remediation: incidentlib.Text{
			EN: "Set maxReplicas well above the replicas a normal peak needs, alert when an autoscaler sits at its maximum, and know who may raise the ceiling during an incident; protect the service from a single client's flood with rate limits rather than relying on scale alone.",
			KO: "maxReplicas를 평소 정점에 필요한 복제본보다 넉넉히 높게 잡고, 오토스케일러가 최댓값에 머물면 알림을 받으며, 장애 중에 누가 상한을 올릴 수 있는지 정해 두세요. 한 클라이언트의 폭주는 확장에만 기대지 말고 속도 제한으로 막으세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Every HorizontalPodAutoscaler's minReplicas (1 by default) and maxReplicas, and, when read from a cluster, its current replica count. An autoscaler whose maximum is not above its minimum cannot scale at all; one already running at its maximum has nothing left for the next surge, which then slows responses until health checks fail and restarts make it worse.",
			KO: "모든 HorizontalPodAutoscaler의 minReplicas(기본 1)와 maxReplicas, 그리고 클러스터에서 읽었다면 현재 복제본 수를 봅니다. 최댓값이 최솟값보다 크지 않은 오토스케일러는 전혀 늘어나지 못합니다. 이미 최댓값으로 돌고 있는 오토스케일러는 다음 폭증에 쓸 여유가 없고, 응답이 느려지다 헬스 체크가 실패하고 재시작이 사태를 키웁니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Whether the cluster has nodes for the maximum, the metrics the autoscaler follows (an autoscaler that watches the wrong metric never reaches its maximum), and other autoscalers (KEDA, VPA) that run under other kinds. Offline manifests carry no current replica count.",
			KO: "클러스터에 최댓값만큼의 노드가 있는지, 오토스케일러가 따르는 지표(엉뚱한 지표를 보는 오토스케일러는 최댓값에 닿지도 않습니다), 다른 종류로 도는 오토스케일러(KEDA, VPA)는 보지 못합니다. 오프라인 매니페스트에는 현재 복제본 수가 없습니다.",
		},
		Kinds: []inventory.Kind{inventory.HPA},
		Citations: []Citation{
			{Case: "IL-0709",
				Quote:   "The resource auto-scaler for the SunCo API was already running at its maximum, so no more resources could be added.",
				QuoteKO: "SunCo API 의 자원 오토스케일러는 이미 최대치에서 돌고 있어 자원을 더 늘릴 수 없었다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, h := range inv.HPAs {
			r := ref("HorizontalPodAutoscaler", h.Namespace, h.Name)
			lo, hi := replicas(h.Spec.MinReplicas), int(h.Spec.MaxReplicas)
			t := h.Spec.ScaleTargetRef.Kind + " " + h.Spec.ScaleTargetRef.Name
			switch {
			case hi <= lo:
				out = append(out, c.findingAt(0, r, "spec.maxReplicas",
					fmt.Sprintf("scales %s between %d and %d replicas: it cannot add any when load rises", t, lo, hi),
					fmt.Sprintf("%s를 복제본 %d개에서 %d개 사이로 조정합니다. 부하가 늘어도 하나도 더할 수 없습니다", t, lo, hi)))
			case h.Status.CurrentReplicas >= h.Spec.MaxReplicas:
				out = append(out, c.findingAt(0, r, "status.currentReplicas",
					fmt.Sprintf("already runs %s at its maximum of %d replicas: the next surge finds no room", t, hi),
					fmt.Sprintf("이미 %s를 최댓값인 복제본 %d개로 돌리고 있습니다. 다음 폭증에 쓸 여유가 없습니다", t, hi)))
			}
		}
		return out
	}
	return c
}

const hostnameKey = "kubernetes.io/hostname"

// pinnedHost returns the one node a pod template is held to: spec.nodeName,
// a nodeSelector on the hostname label, or a required node affinity whose
// every term allows a single, same hostname; "" when it is not held to one.
func pinnedHost(t *corev1.PodTemplateSpec) string {
	if t.Spec.NodeName != "" {
		return t.Spec.NodeName
	}
	if h, ok := t.Spec.NodeSelector[hostnameKey]; ok && h != "" {
		return h
	}
	a := t.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	host := ""
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		h := ""
		for _, e := range term.MatchExpressions {
			if e.Key == hostnameKey && e.Operator == corev1.NodeSelectorOpIn && len(e.Values) == 1 {
				h = e.Values[0]
			}
		}
		if h == "" || (host != "" && h != host) {
			return ""
		}
		host = h
	}
	return host
}

// selfAntiAffinity returns the index of a required pod anti-affinity term
// of t on the hostname key that selects t's own pods, or -1.
func selfAntiAffinity(ns string, t *corev1.PodTemplateSpec) int {
	a := t.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return -1
	}
	for i, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != hostnameKey || term.NamespaceSelector != nil {
			continue
		}
		if len(term.Namespaces) > 0 && !slices.Contains(term.Namespaces, ns) {
			continue
		}
		if selectorMatches(term.LabelSelector, t.Labels) {
			return i
		}
	}
	return -1
}

func pinnedAntiAffinityDeadlock() *Check {
	c := &Check{
		ID:       "pinned-anti-affinity-deadlock",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Deployment pinned to one node with anti-affinity against its own pods: a replacement cannot start while the old pod exists",
			KO: "노드 하나에 묶였는데 자기 파드에 대한 anti-affinity가 있는 Deployment: 이전 파드가 남아 있는 동안 대체 파드가 뜨지 못함",
		},
		Remediation: incidentlib.Text{
			EN: "Drop one of the two rules: a pod held to one node needs no anti-affinity against its own replicas on the hostname key (there is no other node to spread to), and a pod spread by anti-affinity should not be pinned. If both must stay, use the Recreate strategy and alert on pods stuck in Terminating, which then hold the replacement back.",
			KO: "두 규칙 가운데 하나를 없애세요. 노드 하나에 묶인 파드에는 hostname 키로 자기 복제본을 밀어내는 anti-affinity가 필요 없고(흩어질 다른 노드가 없습니다), anti-affinity로 흩는 파드는 묶지 말아야 합니다. 둘 다 남겨야 한다면 Recreate 전략을 쓰고, 대체 파드를 붙잡게 되는 Terminating에 멈춘 파드에 알림을 거세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Deployments whose pods may only run on one named node (spec.nodeName, a nodeSelector on kubernetes.io/hostname, or a required node affinity allowing one hostname) and that also carry a required pod anti-affinity on kubernetes.io/hostname selecting their own pods. The replacement of a pod (a rollout's new pod, or the pod the ReplicaSet makes for one that is being deleted) may only go to that node, and the anti-affinity keeps it off that node as long as the old pod exists, Terminating included: it stays Pending until the old pod is gone, and a rollout that waits for it never finishes.",
			KO: "파드가 이름이 정해진 노드 하나에서만 돌 수 있으면서(spec.nodeName, kubernetes.io/hostname에 대한 nodeSelector, 호스트 이름 하나만 허용하는 required 노드 어피니티) 자기 파드를 고르는 kubernetes.io/hostname의 required pod anti-affinity도 가진 Deployment를 봅니다. 파드를 대체할 파드(롤아웃의 새 파드, 또는 지워지는 파드를 대신해 ReplicaSet이 만드는 파드)는 그 노드로만 갈 수 있는데, anti-affinity는 이전 파드가 있는 동안, Terminating이라도, 그 노드를 막습니다. 그래서 이전 파드가 사라질 때까지 Pending에 머물고, 그것을 기다리는 롤아웃은 끝나지 않습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Pins through other labels that only one node carries, anti-affinity against other workloads' pods, and StatefulSets, which create a pod's replacement only once the old pod is gone.",
			KO: "노드 하나만 가진 다른 레이블을 통한 고정, 다른 워크로드의 파드에 대한 anti-affinity, 이전 파드가 사라진 뒤에야 대체 파드를 만드는 StatefulSet은 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.Deployment},
		Citations: []Citation{
			{Case: "IL-0549",
				Quote:   "The six replacement pods stayed Pending, because node affinity pinned them to k8s01 while anti-affinity kept them off it as long as their Terminating predecessors existed.",
				QuoteKO: "새로 만든 파드 6개는 Pending 에 머물렀다. 노드 어피니티가 k8s01 로 고정하는데, Terminating 상태의 이전 파드가 남아 있는 한 안티 어피니티가 k8s01 을 막았기 때문이다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			if w.Ref.Kind != "Deployment" {
				continue
			}
			host := pinnedHost(w.Template)
			if host == "" {
				continue
			}
			i := selfAntiAffinity(w.Ref.Namespace, w.Template)
			if i < 0 {
				continue
			}
			out = append(out, c.findingAt(0, w.Ref, fmt.Sprintf("%s.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[%d]", podSpecPath(w.Ref.Kind), i),
				fmt.Sprintf("may only run on node %s, and its anti-affinity keeps a new pod off that node while the old one exists: a replacement stays Pending until the old pod is gone", host),
				fmt.Sprintf("노드 %s에서만 돌 수 있는데, anti-affinity가 이전 파드가 있는 동안 새 파드를 그 노드에서 막습니다. 이전 파드가 사라질 때까지 대체 파드는 Pending에 머뭅니다", host)))
		}
		return out
	}
	return c
}
