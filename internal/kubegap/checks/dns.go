package checks

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// dnsChecks are the checks of cluster DNS: a check of this file is listed here, and
// registry.go lists the files.
func dnsChecks() []*Check {
	return []*Check{
		dnsMemoryLimit(),
		dnsAutoscalerConntrack(),
		dnsFewReplicas(),
		dnsNdotsExternalNames(),
		externalDNSOwnerID(),
	}
}

// CoreDNS's own sizing guide: MB = (pods + services) / 1000 + 54 for the
// kubernetes plugin, and about 2 kB for every concurrent forwarded query.
const (
	corednsBaseMiB     = 54
	bytesPerConcurrent = 2 << 10
)

// forwardConcurrency reads a Corefile: the sum of max_concurrent over its
// forward blocks, and whether some forward (or the older proxy) has none,
// which leaves upstream concurrency unbounded.
func forwardConcurrency(corefile string) (total int, unbounded bool, forwards int) {
	lines := strings.Split(corefile, "\n")
	for i := 0; i < len(lines); i++ {
		f := fields(lines[i])
		if len(f) == 0 || (f[0] != "forward" && f[0] != "proxy") {
			continue
		}
		forwards++
		limit := 0
		if strings.Contains(lines[i], "{") {
			depth := strings.Count(lines[i], "{") - strings.Count(lines[i], "}")
			for i+1 < len(lines) && depth > 0 {
				i++
				g := fields(lines[i])
				if len(g) >= 2 && g[0] == "max_concurrent" {
					if n, err := strconv.Atoi(g[1]); err == nil && n > 0 {
						limit = n
					}
				}
				depth += strings.Count(lines[i], "{") - strings.Count(lines[i], "}")
			}
		}
		if f[0] == "proxy" || limit == 0 {
			unbounded = true
		}
		total += limit
	}
	return total, unbounded, forwards
}

func fields(line string) []string {
	if i := strings.Index(line, "#"); i >= 0 {
		line = line[:i]
	}
	return strings.Fields(strings.NewReplacer("{", " ", "}", " ").Replace(line))
}

// corefileFor finds the Corefile a DNS workload mounts.
func corefileFor(inv *inventory.Inventory, w workload) (string, bool) {
	for _, v := range w.Template.Spec.Volumes {
		if v.ConfigMap == nil {
			continue
		}
		for _, cm := range inv.ConfigMaps {
			if cm.Namespace == w.Ref.Namespace && cm.Name == v.ConfigMap.Name {
				if s, ok := cm.Data["Corefile"]; ok {
					return s, true
				}
			}
		}
	}
	return "", false
}

func dnsContainer(w workload) *corev1.Container {
	for i := range w.Template.Spec.Containers {
		c := &w.Template.Spec.Containers[i]
		if imageIs(c.Image, "coredns", "k8s-dns-node-cache", "dns-node-cache") || c.Name == "coredns" || c.Name == "node-cache" {
			return c
		}
	}
	return nil
}

// dnsMemoryLimit builds the dns-memory-limit check.
func dnsMemoryLimit() *Check {
	c := &Check{
		ID:       "dns-memory-limit",
		Severity: High,
		Title: incidentlib.Text{
			EN: "Cluster DNS memory limit too small for its query concurrency",
			KO: "클러스터 DNS의 메모리 제한이 동시 질의 수에 비해 너무 작음",
		},
		Remediation: incidentlib.Text{
			EN: "Bound upstream concurrency with max_concurrent in every forward block, and give CoreDNS (and node-local-dns) a memory limit of at least 54 MiB + (pods + services)/1000 MiB + max_concurrent × 2 KiB, with room to spare; raise it before a query spike does it for you. Consider a node-local DNS cache so one application's burst stays on its node.",
			KO: "모든 forward 블록에 max_concurrent로 업스트림 동시 질의 수를 제한하고, CoreDNS(와 node-local-dns)의 메모리 제한을 최소 54 MiB + (파드 + 서비스)/1000 MiB + max_concurrent × 2 KiB 이상으로, 여유를 두고 잡으세요. 질의 폭증이 닥치기 전에 올려 두어야 합니다. 한 애플리케이션의 폭증이 그 노드에만 머물도록 노드 로컬 DNS 캐시도 고려하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The CoreDNS / kube-dns Deployment and node-local-dns DaemonSet, their container memory limits, and the Corefile in the ConfigMap they mount (kube-system). A memory limit with a forward (or proxy) block that has no max_concurrent is reported: memory then grows with the query rate until every replica, sharing the same load, is OOM-killed at the same moment. With max_concurrent set, the limit is compared with CoreDNS's sizing guide: 54 MiB + (pods + services)/1000 MiB for CoreDNS, plus 2 KiB per concurrent query.",
			KO: "CoreDNS / kube-dns Deployment와 node-local-dns DaemonSet, 그 컨테이너의 메모리 제한, 그리고 마운트한 ConfigMap(kube-system)의 Corefile을 봅니다. 메모리 제한이 있는데 forward(또는 proxy) 블록에 max_concurrent가 없으면 보고합니다. 그러면 메모리가 질의량을 따라 늘어나, 같은 부하를 나눠 받는 모든 복제본이 같은 순간에 OOM으로 죽습니다. max_concurrent가 있으면 CoreDNS 크기 산정 지침(CoreDNS는 54 MiB + (파드 + 서비스)/1000 MiB, 여기에 동시 질의당 2 KiB)과 제한을 비교합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Actual query rates, cache size and plugin mix (autopath, large caches and many zones need more memory); the memory used per query by other resolvers; a Corefile kept somewhere other than a kube-system ConfigMap. Pod counts are estimated from the workloads when pods were not counted.",
			KO: "실제 질의량, 캐시 크기와 플러그인 구성(autopath, 큰 캐시, 많은 존은 메모리를 더 씁니다), 다른 리졸버의 질의당 메모리, kube-system ConfigMap이 아닌 곳에 둔 Corefile은 보지 못합니다. 파드 수를 세지 않았을 때는 워크로드에서 추정합니다.",
		},
		Kinds: []inventory.Kind{inventory.ConfigMap, inventory.Service},
		AnyOf: [][]inventory.Kind{{inventory.Deployment, inventory.DaemonSet}},
		Citations: []Citation{
			{Case: "IL-0313",
				Quote:   "all CoreDNS pods were OOM Killed at the same time and kept getting OOM killed (memory limit `100Mi`).",
				QuoteKO: "모든 CoreDNS 파드가 동시에 OOM Killed 된 뒤 계속 다시 OOM 으로 죽었다(메모리 한도 `100Mi`)."},
			{Case: "IL-0461",
				Quote:   "Because node-local-dns pods were being OOM-killed, the team raised their memory limit from 64 MB to 256 MB",
				QuoteKO: "node-local-dns 파드가 OOM 으로 죽고 있었기에 팀은 원래 64 MB 이던 메모리 한도를 256 MB 로 올렸다"},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		targets := append(clusterDNS(inv), nodeLocalDNS(inv)...)
		for _, w := range targets {
			ctr := dnsContainer(w)
			if ctr == nil {
				continue
			}
			lim, ok := memLimit(ctr)
			if !ok {
				continue
			}
			limit := lim.Value()
			corefile, haveCF := corefileFor(inv, w)
			conc, unbounded, forwards := forwardConcurrency(corefile)
			if haveCF && forwards > 0 && unbounded {
				out = append(out, c.findingAt(0, w.Ref, containerPath(w.Ref.Kind, w.Template, ctr.Name)+".resources.limits.memory",
					fmt.Sprintf("container %s has a %s memory limit but its Corefile forwards without max_concurrent: a query spike grows memory until every replica is OOM-killed at once", ctr.Name, mib(limit)),
					fmt.Sprintf("컨테이너 %s의 메모리 제한은 %s인데 Corefile의 forward에 max_concurrent가 없습니다. 질의가 폭증하면 메모리가 늘어 모든 복제본이 한꺼번에 OOM으로 죽습니다", ctr.Name, mib(limit))))
				continue
			}
			need := int64(conc) * bytesPerConcurrent
			if w.Ref.Kind == "Deployment" {
				need += (corednsBaseMiB + int64(estimatedPods(inv)+len(inv.Services))/1000) << 20
			} else {
				need += corednsBaseMiB << 20
			}
			if limit < need {
				out = append(out, c.findingAt(0, w.Ref, containerPath(w.Ref.Kind, w.Template, ctr.Name)+".resources.limits.memory",
					fmt.Sprintf("container %s has a %s memory limit; CoreDNS's sizing guide asks for at least %s here (max_concurrent %d, about %d pods and %d services)", ctr.Name, mib(limit), mib(need), conc, estimatedPods(inv), len(inv.Services)),
					fmt.Sprintf("컨테이너 %s의 메모리 제한은 %s입니다. CoreDNS 크기 산정 지침으로는 여기서 최소 %s가 필요합니다(max_concurrent %d, 파드 약 %d개, 서비스 %d개)", ctr.Name, mib(limit), mib(need), conc, estimatedPods(inv), len(inv.Services))))
			}
		}
		return out
	}
	return c
}

// dnsAutoscalerConntrack builds the dns-autoscaler-conntrack check.
func dnsAutoscalerConntrack() *Check {
	a := &Check{
		ID:       "dns-autoscaler-conntrack",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "CoreDNS autoscaler can remove DNS endpoints while kube-proxy keeps UDP conntrack entries and no node-local DNS cache runs",
			KO: "kube-proxy가 UDP conntrack 항목을 유지하고 노드 로컬 DNS 캐시가 없는데 CoreDNS 오토스케일러가 DNS 엔드포인트를 없앨 수 있음",
		},
		Remediation: incidentlib.Text{
			EN: "Run a node-local DNS cache (NodeLocal DNSCache), which talks to CoreDNS over TCP and keeps pods' UDP DNS traffic off kube-proxy's conntrack path; or stop the autoscaler from scaling CoreDNS down (a fixed floor, or no autoscaler), and watch kube-proxy logs for failed conntrack deletions.",
			KO: "노드 로컬 DNS 캐시(NodeLocal DNSCache)를 운영하세요. CoreDNS와 TCP로 통신하고 파드의 UDP DNS 트래픽을 kube-proxy conntrack 경로에서 빼 줍니다. 아니면 오토스케일러가 CoreDNS를 축소하지 못하게 하고(고정 하한 또는 오토스케일러 제거), kube-proxy 로그에서 conntrack 삭제 실패를 감시하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "A cluster-proportional-autoscaler Deployment or a HorizontalPodAutoscaler that targets the CoreDNS / kube-dns Deployment, a kube-proxy DaemonSet, and whether a node-local-dns DaemonSet runs. All three conditions together are reported on the autoscaler: each scale-down removes a DNS endpoint, and if kube-proxy fails to clear the UDP conntrack entries for it, part of the cluster's DNS queries keep going to a pod that no longer exists.",
			KO: "CoreDNS / kube-dns Deployment를 대상으로 하는 cluster-proportional-autoscaler Deployment나 HorizontalPodAutoscaler, kube-proxy DaemonSet, 그리고 node-local-dns DaemonSet이 도는지를 봅니다. 세 조건이 함께 있으면 오토스케일러에 보고합니다. 축소할 때마다 DNS 엔드포인트가 사라지고, kube-proxy가 그에 대한 UDP conntrack 항목을 지우지 못하면 클러스터 DNS 질의 일부가 이미 없는 파드로 계속 갑니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "kube-proxy's mode and version (newer versions clear stale UDP entries more reliably), replacements for kube-proxy (Cilium, eBPF dataplanes) that run under another name, the autoscaler's actual min/max parameters kept in its ConfigMap, and DNS caches inside applications.",
			KO: "kube-proxy의 모드와 버전(새 버전일수록 오래된 UDP 항목을 더 확실히 지웁니다), 다른 이름으로 도는 kube-proxy 대체재(Cilium, eBPF 데이터플레인), ConfigMap에 있는 오토스케일러의 실제 최소/최대 값, 애플리케이션 안의 DNS 캐시는 보지 못합니다.",
		},
		Kinds:    []inventory.Kind{inventory.Deployment, inventory.DaemonSet},
		Optional: []inventory.Kind{inventory.HPA},
		Citations: []Citation{
			{Case: "IL-0049",
				Quote:   "Shrinking CoreDNS has a cost: when kube-proxy fails to clear a removed pod's conntrack entries, DNS queries keep flowing to that pod.",
				QuoteKO: "CoreDNS 를 줄이는 데에도 대가가 따른다. 빠진 파드의 conntrack 항목을 kube-proxy 가 치우지 못하면 클라이언트는 계속 그 파드로 DNS 질의를 보낸다."},
		},
	}
	a.Run = func(inv *inventory.Inventory) []Finding {
		if len(nodeLocalDNS(inv)) > 0 || !runsKubeProxy(inv) {
			return nil
		}
		dns := map[string]bool{}
		for _, w := range clusterDNS(inv) {
			dns[w.Ref.Name] = true
		}
		if len(dns) == 0 {
			return nil
		}
		var out []Finding
		for _, s := range dnsAutoscalers(inv) {
			if !dns[s.Target] {
				continue
			}
			out = append(out, a.finding(0, s.Ref,
				fmt.Sprintf("scales Deployment %s, kube-proxy runs and no node-local DNS cache does: a scale-down whose UDP conntrack entries kube-proxy fails to clear sends DNS queries to a removed pod", s.Target),
				fmt.Sprintf("Deployment %s를 스케일링하는데 kube-proxy는 돌고 노드 로컬 DNS 캐시는 없습니다. 축소 뒤 kube-proxy가 UDP conntrack 항목을 지우지 못하면 DNS 질의가 없어진 파드로 갑니다", s.Target)))
		}
		for _, h := range inv.HPAs {
			t := h.Spec.ScaleTargetRef
			if h.Namespace == "kube-system" && t.Kind == "Deployment" && dns[t.Name] {
				out = append(out, a.finding(0, ref("HorizontalPodAutoscaler", h.Namespace, h.Name),
					fmt.Sprintf("scales Deployment %s, kube-proxy runs and no node-local DNS cache does: a scale-down whose UDP conntrack entries kube-proxy fails to clear sends DNS queries to a removed pod", t.Name),
					fmt.Sprintf("Deployment %s를 스케일링하는데 kube-proxy는 돌고 노드 로컬 DNS 캐시는 없습니다. 축소 뒤 kube-proxy가 UDP conntrack 항목을 지우지 못하면 DNS 질의가 없어진 파드로 갑니다", t.Name)))
			}
		}
		return out
	}
	return a
}

// dnsFewReplicas builds the dns-few-replicas check.
func dnsFewReplicas() *Check {
	r := &Check{
		ID:       "dns-few-replicas",
		Severity: High,
		Title: incidentlib.Text{
			EN: "Cluster DNS runs too few replicas to lose one",
			KO: "클러스터 DNS 복제본이 너무 적어 하나를 잃으면 버티지 못함",
		},
		Remediation: incidentlib.Text{
			EN: "Run at least three CoreDNS replicas (more on large clusters, e.g. scaled with the node count), spread over nodes and zones, each sized for its share of the load after losing one, not for the average.",
			KO: "CoreDNS 복제본을 최소 세 개 이상(큰 클러스터에서는 노드 수에 맞춰 더) 노드와 존에 나눠 두고, 평균 부하가 아니라 하나를 잃은 뒤 떠안을 몫에 맞춰 자원을 주세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The replica count of the CoreDNS / kube-dns Deployment in kube-system, the minimum of a HorizontalPodAutoscaler that targets it, or the floor a cluster-proportional-autoscaler that targets it allows: its linear parameters (min, preventSinglePointFailure, which keeps two replicas on any cluster of more than one node) or ladder, read from the ConfigMap it watches in kube-system or from its --default-params. One replica is reported as high: losing its node is a cluster-wide DNS outage. Two are reported as medium: losing one doubles the load on the other at once.",
			KO: "kube-system의 CoreDNS / kube-dns Deployment 복제본 수, 이를 대상으로 하는 HorizontalPodAutoscaler의 최솟값, 또는 이를 대상으로 하는 cluster-proportional-autoscaler가 허용하는 하한을 봅니다. 하한은 kube-system에서 그 오토스케일러가 지켜보는 ConfigMap이나 --default-params의 linear 매개변수(min, 그리고 노드가 둘 이상인 클러스터에서 복제본을 두 개 유지하는 preventSinglePointFailure) 또는 ladder에서 읽습니다. 복제본 하나는 높음으로 보고합니다. 그 노드를 잃으면 클러스터 전체 DNS가 멈춥니다. 둘은 중간으로 보고합니다. 하나를 잃으면 남은 하나의 부하가 즉시 두 배가 됩니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Whether the replicas have headroom for the load they take over (in the cited case three times the average was not enough), DNS served by something other than CoreDNS/kube-dns, and the floor of a cluster-proportional-autoscaler whose parameters are in no kube-system ConfigMap and no --default-params: such a Deployment is not judged, since the autoscaler, not its replicas field, sets the count.",
			KO: "복제본들이 넘겨받을 부하를 감당할 여유가 있는지(인용한 사례에서는 평균의 세 배도 모자랐습니다), CoreDNS/kube-dns가 아닌 DNS, 그리고 매개변수가 kube-system ConfigMap에도 --default-params에도 없는 cluster-proportional-autoscaler의 하한은 보지 못합니다. 그런 Deployment는 복제본 수를 replicas 필드가 아니라 오토스케일러가 정하므로 판단하지 않습니다.",
		},
		Kinds: []inventory.Kind{inventory.Deployment, inventory.HPA, inventory.ConfigMap},
		Citations: []Citation{
			{Case: "IL-0357",
				Quote:   "Headroom sized against average load is not enough for CoreDNS: losing a single replica shifts its traffic onto the rest at once, and even three times the average capacity per pod did not absorb that spike.",
				QuoteKO: "평균 부하를 기준으로 잡은 여유만으로는 CoreDNS 에 충분하지 않다. 레플리카 하나가 빠지면 그 트래픽이 한꺼번에 나머지로 넘어가며, 파드마다 평균의 3배 용량을 주었어도 이 급증을 흡수하지 못했다."},
		},
	}
	r.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		scalers := dnsAutoscalers(inv)
		for _, w := range clusterDNS(inv) {
			n, by := w.Replicas, ""
			for _, h := range inv.HPAs {
				if h.Namespace == w.Ref.Namespace && h.Spec.ScaleTargetRef.Kind == "Deployment" && h.Spec.ScaleTargetRef.Name == w.Ref.Name {
					n, by = replicas(h.Spec.MinReplicas), "HorizontalPodAutoscaler "+h.Name
				}
			}
			known := true
			for _, s := range scalers {
				if s.Ref.Namespace != w.Ref.Namespace || s.Target != w.Ref.Name {
					continue
				}
				// The autoscaler owns the replica count: the Deployment's
				// own field says nothing.
				n, by, known = s.Floor, "cluster-proportional-autoscaler "+s.Ref.Name+" ("+s.How+")", s.Floor > 0
			}
			if !known {
				continue
			}
			en, ko := "", ""
			if by != "" {
				en, ko = fmt.Sprintf(" (the floor %s allows)", by), fmt.Sprintf("(%s가 허용하는 하한)", by)
			}
			switch {
			case n < 2:
				out = append(out, r.findingAt(High, w.Ref, "spec.replicas",
					fmt.Sprintf("runs %d %s%s: losing its node takes DNS away from the whole cluster", n, plural(n, "replica", "replicas"), en),
					fmt.Sprintf("복제본이 %d개입니다%s. 그 노드를 잃으면 클러스터 전체의 DNS가 사라집니다", n, ko)))
			case n == 2:
				out = append(out, r.findingAt(Medium, w.Ref, "spec.replicas",
					fmt.Sprintf("runs 2 replicas%s: losing one during node maintenance doubles the load on the other at once", en),
					fmt.Sprintf("복제본이 2개입니다%s. 노드 유지보수 중 하나를 잃으면 남은 하나의 부하가 즉시 두 배가 됩니다", ko)))
			}
		}
		return out
	}
	return r
}

func runsKubeProxy(inv *inventory.Inventory) bool {
	for _, d := range inv.DaemonSets {
		if d.Name == "kube-proxy" {
			return true
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if imageIs(c.Image, "kube-proxy") {
				return true
			}
		}
	}
	return false
}

// dnsScaler is a cluster-proportional-autoscaler Deployment and the
// Deployment it scales.
type dnsScaler struct {
	Ref    inventory.Ref
	Target string
	// Floor is the fewest replicas its parameters allow (on a cluster of
	// more than one node); 0 when the parameters could not be read.
	Floor int
	// How says where Floor comes from.
	How string
}

// cpaParams are the cluster-proportional-autoscaler's two control modes.
type cpaParams struct {
	Linear *struct {
		Min                       int  `json:"min"`
		PreventSinglePointFailure bool `json:"preventSinglePointFailure"`
	} `json:"linear"`
	Ladder *struct {
		CoresToReplicas [][]float64 `json:"coresToReplicas"`
		NodesToReplicas [][]float64 `json:"nodesToReplicas"`
	} `json:"ladder"`
}

// floor is the fewest replicas p allows, and how that was found.
func (p cpaParams) floor() (int, string) {
	switch {
	case p.Linear != nil:
		n := max(p.Linear.Min, 1)
		if p.Linear.PreventSinglePointFailure {
			n = max(n, 2)
		}
		return n, fmt.Sprintf("linear: min %d, preventSinglePointFailure %v", p.Linear.Min, p.Linear.PreventSinglePointFailure)
	case p.Ladder != nil:
		n := 0
		for _, steps := range [][][]float64{p.Ladder.CoresToReplicas, p.Ladder.NodesToReplicas} {
			if len(steps) > 0 && len(steps[0]) == 2 {
				n = max(n, int(steps[0][1]))
			}
		}
		if n > 0 {
			return n, fmt.Sprintf("ladder: %d at its first step", n)
		}
	}
	return 0, ""
}

// dnsAutoscalers finds the cluster-proportional-autoscalers and reads the
// replica floor each allows: from the ConfigMap it watches (kube-system
// only), else from its --default-params.
func dnsAutoscalers(inv *inventory.Inventory) []dnsScaler {
	var out []dnsScaler
	for _, d := range inv.Deployments {
		for _, ctr := range d.Spec.Template.Spec.Containers {
			if !imageIs(ctr.Image, "cluster-proportional-autoscaler", "cluster-proportional-autoscaler-amd64") {
				continue
			}
			args := append(append([]string{}, ctr.Command...), ctr.Args...)
			target := flagValue(args, "target")
			kind, name, ok := strings.Cut(target, "/")
			if !ok || !strings.EqualFold(kind, "deployment") {
				continue
			}
			s := dnsScaler{Ref: ref("Deployment", d.Namespace, d.Name), Target: name}
			ns := flagValue(args, "namespace")
			if ns == "" {
				ns = d.Namespace
			}
			var p cpaParams
			if cmName := flagValue(args, "configmap"); cmName != "" {
				for _, cm := range inv.ConfigMaps {
					if cm.Namespace != ns || cm.Name != cmName {
						continue
					}
					for _, key := range []string{"linear", "ladder"} {
						if v, ok := cm.Data[key]; ok {
							var one cpaParams
							if json.Unmarshal([]byte(`{"`+key+`":`+v+`}`), &one) == nil {
								p = one
							}
						}
					}
					if n, how := p.floor(); n > 0 {
						s.Floor, s.How = n, "ConfigMap "+cmName+" "+how
					}
				}
			}
			if s.Floor == 0 {
				if v := flagValue(args, "default-params"); v != "" && json.Unmarshal([]byte(v), &p) == nil {
					if n, how := p.floor(); n > 0 {
						s.Floor, s.How = n, "--default-params "+how
					}
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// flagValue returns the value of --name=value or --name value in args
// (an argument may hold several words, as in a shell command line).
func flagValue(args []string, name string) string {
	var words []string
	for _, a := range args {
		words = append(words, strings.Fields(a)...)
	}
	for i, w := range words {
		if !strings.HasPrefix(w, "-") {
			continue
		}
		w = strings.TrimLeft(w, "-")
		if v, ok := strings.CutPrefix(w, name+"="); ok {
			return strings.Trim(v, `'"`)
		}
		if w == name && i+1 < len(words) {
			return strings.Trim(words[i+1], `'"`)
		}
	}
	return ""
}

// servesDNS reports whether w is cluster DNS or a node-local DNS cache:
// those resolve outside names for every pod, through the node, on purpose.
func servesDNS(w workload) bool {
	if isClusterDNS(w) || w.Ref.Name == "node-local-dns" || w.Template.Labels["k8s-app"] == "node-local-dns" {
		return true
	}
	for _, c := range w.Template.Spec.Containers {
		if imageIs(c.Image, "k8s-dns-node-cache", "dns-node-cache") {
			return true
		}
	}
	return false
}

// defaultNdots is the ndots option the kubelet writes into a ClusterFirst
// pod's resolv.conf.
const defaultNdots = 5

// podNdots returns the ndots a pod template's resolver uses.
func podNdots(spec *corev1.PodSpec) int {
	n := defaultNdots
	if spec.DNSConfig != nil {
		for _, o := range spec.DNSConfig.Options {
			if o.Name == "ndots" && o.Value != nil {
				if v, err := strconv.Atoi(*o.Value); err == nil {
					n = v
				}
			}
		}
	}
	return n
}

// externalHost returns the host an environment value names when it is a
// URL (scheme://host…) or host:port outside the cluster: a name with two
// dots or more, not an address, not fully qualified, and not a cluster
// name. A cluster name has a label svc (name.namespace.svc, with or without
// the cluster domain), ends in cluster.local, or ends in a namespace of
// namespaces (a Service or a pod of a headless Service,
// kafka-0.kafka-headless.kafka).
func externalHost(v string, namespaces map[string]bool) string {
	v = strings.TrimSpace(v)
	if v == "" || strings.ContainsAny(v, " \t,;") {
		return ""
	}
	host := ""
	if strings.Contains(v, "://") {
		u, err := url.Parse(v)
		if err != nil {
			return ""
		}
		host = u.Hostname()
	} else if h, port, err := net.SplitHostPort(v); err == nil {
		if _, err := strconv.Atoi(port); err != nil {
			return ""
		}
		host = h
	}
	host = strings.ToLower(host)
	if host == "" || strings.HasSuffix(host, ".") || net.ParseIP(host) != nil {
		return ""
	}
	labels := strings.Split(host, ".")
	// name.namespace is a Service of the cluster: an outside name has a
	// domain and a top-level domain at least.
	if len(labels) < 3 || namespaces[labels[len(labels)-1]] || host == "cluster.local" || strings.HasSuffix(host, ".cluster.local") {
		return ""
	}
	if slices.Contains(labels[1:], "svc") {
		return ""
	}
	return host
}

// inputNamespaces returns the namespaces the input holds: those of its
// Deployments, StatefulSets, DaemonSets and Services, and its Namespace
// objects (the kinds dns-ndots-external-names reads, so that it finds the
// same whatever else a scan reads).
func inputNamespaces(inv *inventory.Inventory) map[string]bool {
	m := map[string]bool{}
	for _, d := range inv.Deployments {
		m[d.Namespace] = true
	}
	for _, s := range inv.StatefulSets {
		m[s.Namespace] = true
	}
	for _, d := range inv.DaemonSets {
		m[d.Namespace] = true
	}
	for _, s := range inv.Services {
		m[s.Namespace] = true
	}
	for _, n := range inv.Namespaces {
		m[n.Name] = true
	}
	delete(m, "")
	return m
}

func dnsNdotsExternalNames() *Check {
	c := &Check{
		ID:       "dns-ndots-external-names",
		Severity: Low,
		Title: incidentlib.Text{
			EN: "Pods look up outside names with fewer dots than their ndots (5 by default): every lookup goes through the search domains first",
			KO: "파드가 ndots(기본 5)보다 점이 적은 클러스터 밖 이름을 찾음: 찾을 때마다 검색 도메인부터 거침",
		},
		Remediation: incidentlib.Text{
			EN: "Give the pods a dnsConfig option ndots of 2 (or write outside names fully qualified, with a trailing dot), cache lookups in the process or run a node-local DNS cache, and keep connections to outside hosts open long enough that a surge of requests does not become a surge of DNS queries.",
			KO: "파드에 dnsConfig의 ndots 옵션을 2로 주거나(또는 바깥 이름을 끝에 점을 붙인 완전한 이름으로 쓰고), 프로세스 안에서 조회 결과를 캐시하거나 node-local DNS 캐시를 두며, 바깥 호스트로 가는 연결을 충분히 오래 유지해 요청 폭증이 DNS 쿼리 폭증이 되지 않게 하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The environment of the containers of the Deployments, StatefulSets and DaemonSets that resolve through cluster DNS (dnsPolicy ClusterFirst, not on the host network): values that are URLs or host:port pairs naming a host outside the cluster (a name with two dots or more, not an address, not a cluster name: none with a svc label or ending in cluster.local, none whose last label is a namespace of the workload or of the input, as kafka-0.kafka-headless.kafka). With the kubelet's default ndots 5 such a name has fewer dots than ndots, so each lookup first tries every search domain of the pod, with A and AAAA queries each, before the name itself: several queries to cluster DNS for every lookup, and a request spike from a client without a DNS cache becomes a query spike that can take cluster DNS down. Jobs and CronJobs, whose pods run once and go, are left out.",
			KO: "클러스터 DNS로 이름을 푸는(dnsPolicy ClusterFirst, 호스트 네트워크가 아닌) Deployment, StatefulSet, DaemonSet 컨테이너의 환경 변수를 봅니다. 값이 클러스터 밖 호스트(점이 둘 이상인 이름, 주소가 아닌 것, 클러스터 이름이 아닌 것: svc 레이블이 있거나 cluster.local로 끝나는 이름, 마지막 레이블이 워크로드나 입력의 네임스페이스인 이름(kafka-0.kafka-headless.kafka 같은)은 빼고)를 가리키는 URL이나 host:port이면, kubelet 기본값 ndots 5에서는 그 이름의 점이 ndots보다 적어 조회할 때마다 파드의 검색 도메인을 하나씩, 그것도 A와 AAAA로 각각 먼저 시도한 뒤에야 이름 자체를 찾습니다. 조회 한 번이 클러스터 DNS 쿼리 여러 개가 되고, DNS 캐시 없는 클라이언트의 요청 폭증은 클러스터 DNS를 쓰러뜨릴 수 있는 쿼리 폭증이 됩니다. 파드가 한 번 돌고 사라지는 Job과 CronJob은 보지 않습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Names the code or a ConfigMap holds rather than the environment, names with a single dot (example.com), which cannot be told from a Service's name.namespace, outside names whose top-level domain is also the name of a namespace of the input (a namespace dev and api.example.dev), whether the client caches lookups, and how many search domains the nodes add.",
			KO: "코드나 ConfigMap에 있는 이름(환경 변수가 아닌 것), Service의 name.namespace와 구별할 수 없는 점 하나짜리 이름(example.com), 최상위 도메인이 입력의 네임스페이스 이름과 같은 바깥 이름(네임스페이스 dev와 api.example.dev), 클라이언트가 조회 결과를 캐시하는지, 노드가 검색 도메인을 몇 개 더하는지는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{{inventory.Deployment, inventory.StatefulSet, inventory.DaemonSet}},
		// Services and Namespaces name more namespaces of the input; without
		// them a name ending in one of those is reported.
		Optional: []inventory.Kind{inventory.Service, inventory.Namespace},
		Citations: []Citation{
			{Case: "IL-0313",
				Quote:   "runs with the default Kubernetes DNS settings (the ndots 5 problem: 10 queries for every lookup of a cluster-external name)",
				QuoteKO: "쿠버네티스 기본 DNS 설정(ndots 5 문제: 클러스터 밖 이름 하나를 찾을 때마다 쿼리 10개)으로 돌았으며"},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		namespaces := inputNamespaces(inv)
		for _, w := range workloads(inv) {
			if w.Ref.Kind == "Job" || w.Ref.Kind == "CronJob" {
				continue // one-shot pods: a run's lookups end with it
			}
			spec := &w.Template.Spec
			policy := spec.DNSPolicy
			if policy == "" {
				policy = corev1.DNSClusterFirst
			}
			if policy != corev1.DNSClusterFirst || spec.HostNetwork || servesDNS(w) {
				continue
			}
			ndots := podNdots(spec)
			var hosts []string
			seen := map[string]bool{}
			path := ""
			for _, ctr := range allContainers(w.Template) {
				for i, e := range ctr.Env {
					h := externalHost(e.Value, namespaces)
					if h == "" || strings.Count(h, ".") >= ndots || seen[h] {
						continue
					}
					if path == "" {
						path = fmt.Sprintf("%s.env[%d]", containerPath(w.Ref.Kind, w.Template, ctr.Name), i)
					}
					seen[h] = true
					hosts = append(hosts, h)
				}
			}
			if len(hosts) == 0 {
				continue
			}
			l := strings.Join(hosts, ", ")
			out = append(out, c.findingAt(0, w.Ref, path,
				fmt.Sprintf("looks up %s with ndots %d: each lookup tries every search domain first, several queries to cluster DNS each time", l, ndots),
				fmt.Sprintf("%s를 ndots %d로 찾습니다. 찾을 때마다 검색 도메인을 모두 먼저 시도해 클러스터 DNS에 쿼리를 여러 번 보냅니다", l, ndots)))
		}
		return out
	}
	return c
}

// isExternalDNS recognises external-dns containers.
func isExternalDNS(c *corev1.Container) bool {
	return imageIs(c.Image, "external-dns") || c.Name == "external-dns"
}

// placeholderOwners are owner ids that name no cluster: external-dns's own
// default, and the chart default of the cited case.
var placeholderOwners = map[string]bool{"": true, "default": true, "xx": true}

func externalDNSOwnerID() *Check {
	c := &Check{
		ID:       "external-dns-owner-id",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "external-dns runs with a placeholder TXT owner id",
			KO: "external-dns가 자리 표시용 TXT owner id로 돎",
		},
		Remediation: incidentlib.Text{
			EN: "Set --txt-owner-id to a value unique to the cluster (its name), never a chart default, and check it after renaming chart values. When changing an owner id, migrate or delete the TXT records the old id owns, since external-dns will not touch records another owner holds.",
			KO: "--txt-owner-id를 클러스터마다 고유한 값(클러스터 이름)으로 주고 차트 기본값을 쓰지 마세요. 차트 값 이름을 바꾼 뒤에는 이 값을 확인하세요. owner id를 바꿀 때는 예전 id가 소유한 TXT 레코드를 옮기거나 지우세요. external-dns는 다른 소유자의 레코드를 건드리지 않습니다.",
		},
		LooksAt: incidentlib.Text{
			EN: "The arguments and environment of external-dns containers that use the TXT registry (the default). An owner id that is not set (external-dns then uses \"default\"), or is \"default\" or the placeholder \"xx\", is reported: external-dns claims records through TXT records carrying its owner id and leaves alone every record another owner id holds, so a placeholder shared with another or an earlier installation keeps it from creating or fixing the cluster's names, and lets two clusters fight over the same ones.",
			KO: "TXT 레지스트리(기본값)를 쓰는 external-dns 컨테이너의 인자와 환경 변수를 봅니다. owner id가 없거나(그러면 external-dns는 \"default\"를 씁니다) \"default\" 또는 자리 표시용 \"xx\"이면 보고합니다. external-dns는 자기 owner id를 담은 TXT 레코드로 레코드를 차지하고 다른 owner id의 레코드는 건드리지 않으므로, 다른 설치나 예전 설치와 같은 자리 표시 값은 클러스터의 이름을 만들거나 고치지 못하게 막고, 두 클러스터가 같은 이름을 두고 다투게 합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Other placeholder values, owner ids that collide with another cluster's, the TXT records already in the zone, and an owner id set through a file or a ConfigMap rather than flags or the EXTERNAL_DNS_TXT_OWNER_ID variable.",
			KO: "다른 자리 표시 값, 다른 클러스터와 겹치는 owner id, 존에 이미 있는 TXT 레코드, 플래그나 EXTERNAL_DNS_TXT_OWNER_ID 변수가 아니라 파일이나 ConfigMap으로 준 owner id는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{{inventory.Deployment, inventory.StatefulSet}},
		Citations: []Citation{
			{Case: "IL-0770",
				Quote:   "so external-dns was deployed with the default owner id \"xx\" and earlier TXT records with that owner id blocked it from managing the cluster's names.",
				QuoteKO: "external-dns 가 기본 owner id \"xx\" 로 배포됐고, 같은 owner id 를 단 기존 TXT 레코드가 클러스터 이름 관리를 가로막았다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			if w.Ref.Kind != "Deployment" && w.Ref.Kind != "StatefulSet" {
				continue
			}
			for i := range w.Template.Spec.Containers {
				ctr := &w.Template.Spec.Containers[i]
				if !isExternalDNS(ctr) {
					continue
				}
				args := append(append([]string(nil), ctr.Command...), ctr.Args...)
				if r := flagValue(args, "registry"); r != "" && r != "txt" {
					continue
				}
				owner, set := "", false
				if flagPresent(args, "txt-owner-id") {
					owner, set = flagValue(args, "txt-owner-id"), true
				} else {
					for _, e := range ctr.Env {
						if e.Name == "EXTERNAL_DNS_TXT_OWNER_ID" {
							owner, set = e.Value, true
							if e.ValueFrom != nil {
								owner = "(from elsewhere)" // not ours to judge
							}
						}
					}
				}
				if !set {
					owner = "default" // external-dns's own default
				}
				if !placeholderOwners[owner] || inv.FieldUnknown(w.Ref, fmt.Sprintf(".containers[%d].args", i)) {
					continue
				}
				path := containerPath(w.Ref.Kind, w.Template, ctr.Name)
				if len(ctr.Args) > 0 {
					path += ".args"
				}
				what, whatKO := fmt.Sprintf("runs with the placeholder owner id %q", owner), fmt.Sprintf("자리 표시용 owner id %q로 돕니다", owner)
				if !set {
					what, whatKO = "sets no --txt-owner-id, so it owns records as \"default\"", "--txt-owner-id가 없어 레코드를 \"default\"로 소유합니다"
				}
				out = append(out, c.findingAt(0, w.Ref, path,
					fmt.Sprintf("container %s %s: TXT records that another or an earlier installation left under that id keep it from managing the cluster's names", ctr.Name, what),
					fmt.Sprintf("컨테이너 %s가 %s. 다른 설치나 예전 설치가 그 id로 남긴 TXT 레코드가 있으면 클러스터 이름을 관리하지 못합니다", ctr.Name, whatKO)))
			}
		}
		return out
	}
	return c
}

// flagPresent reports whether args hold --name, with or without a value.
func flagPresent(args []string, name string) bool {
	for _, a := range args {
		for _, w := range strings.Fields(a) {
			if !strings.HasPrefix(w, "-") {
				continue
			}
			w = strings.TrimLeft(w, "-")
			if w == name || strings.HasPrefix(w, name+"=") {
				return true
			}
		}
	}
	return false
}
