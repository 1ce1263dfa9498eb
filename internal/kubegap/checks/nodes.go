package checks

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// nodeChecks are the checks of nodes: a check of this file is listed here, and
// registry.go lists the files.
func nodeChecks() []*Check {
	return []*Check{
		nodeDiskFullOfImages(),
		nodeDiskSmallerThanPeers(),
		cpuLimitCFSBugKernel(),
		masterNodeLabelSelector(),
		awsCNIWarmIPTarget(),
		singleControlPlaneNode(),
		nodeNothingReserved(),
	}
}

func diskCapacity(n *corev1.Node) int64 {
	q, ok := n.Status.Capacity[corev1.ResourceEphemeralStorage]
	if !ok {
		return 0
	}
	return q.Value()
}

// nodeDiskFullOfImages builds the node-disk-full-of-images check.
func nodeDiskFullOfImages() *Check {
	d := &Check{
		ID:       "node-disk-full-of-images",
		Severity: High,
		Title: incidentlib.Text{
			EN: "Node disk is small for the images it holds",
			KO: "노드 디스크가 보유한 이미지에 비해 작음",
		},
		Remediation: incidentlib.Text{
			EN: "Give nodes root (ephemeral-storage) disks sized for the largest set of images a node runs plus logs and emptyDir, compare disk size across node groups when infrastructure modules change, and alert on root volume use and on kubelet image garbage-collection failures.",
			KO: "노드가 실행하는 가장 큰 이미지 묶음과 로그, emptyDir까지 담을 수 있는 크기로 루트(ephemeral-storage) 디스크를 주고, 인프라 모듈을 바꿀 때는 노드 그룹 간 디스크 크기를 비교하며, 루트 볼륨 사용량과 kubelet 이미지 가비지 컬렉션 실패에 알림을 거세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Each Node's ephemeral-storage capacity and the sizes of the images it reports in status.images. Images filling half the disk are reported as medium, 85% (the kubelet's default image garbage-collection threshold) as high: pulls then fail with \"no space left on device\", and images in use cannot be collected.",
			KO: "각 Node의 ephemeral-storage 용량과 status.images에 보고된 이미지 크기를 봅니다. 이미지가 디스크의 절반을 채우면 중간, 85%(kubelet 기본 이미지 가비지 컬렉션 임계값)면 높음으로 보고합니다. 그러면 이미지 풀이 \"no space left on device\"로 실패하고, 사용 중인 이미지는 지울 수 없습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Logs, emptyDir volumes and container writable layers on the same disk; images beyond the 50 the kubelet lists by default; a separate image filesystem (imagefs) when the runtime uses one.",
			KO: "같은 디스크의 로그, emptyDir 볼륨, 컨테이너 쓰기 레이어, kubelet이 기본으로 나열하는 50개를 넘는 이미지, 런타임이 별도 이미지 파일시스템(imagefs)을 쓸 때의 그 디스크는 보지 못합니다.",
		},
		Kinds:       []inventory.Kind{inventory.Node},
		NeedObjects: []inventory.Kind{inventory.Node},
		Citations: []Citation{
			{Case: "IL-0019",
				Quote:   "The module's version 18 had changed the launch template so that the disk size dropped from 100 GB to 20 GB, which was too small to hold the images that workloads pull.",
				QuoteKO: "모듈 18 버전이 launch template 을 바꾸면서 디스크 크기가 100GB 에서 20GB 로 줄었고, 워크로드가 받아 오는 이미지를 담기에는 부족했다."},
			{Case: "IL-0305",
				Quote:   "the kubelet could not free space because containerd image garbage collection found nothing it was allowed to remove, and image pulls failed.",
				QuoteKO: "containerd 이미지 GC 가 지울 수 있는 이미지를 찾지 못해 kubelet 이 공간을 확보하지 못했고, 이미지 풀이 실패했다."},
		},
	}
	d.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, n := range inv.Nodes {
			capacity := diskCapacity(n)
			if capacity <= 0 {
				continue
			}
			var images int64
			for _, img := range n.Status.Images {
				images += img.SizeBytes
			}
			share := float64(images) / float64(capacity)
			var sev Severity
			switch {
			case share >= 0.85:
				sev = High
			case share >= 0.5:
				sev = Medium
			default:
				continue
			}
			out = append(out, d.findingAt(sev, ref("Node", "", n.Name), "status.images",
				fmt.Sprintf("holds %.1f GiB of images on a %.1f GiB disk (%.0f%%)", gib(images), gib(capacity), share*100),
				fmt.Sprintf("%.1f GiB 디스크에 이미지가 %.1f GiB 있습니다(%.0f%%)", gib(capacity), gib(images), share*100)))
		}
		return out
	}
	return d
}

// nodeDiskSmallerThanPeers builds the node-disk-smaller-than-peers check.
func nodeDiskSmallerThanPeers() *Check {
	p := &Check{
		ID:       "node-disk-smaller-than-peers",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Node disk much smaller than the rest of the cluster's",
			KO: "노드 디스크가 클러스터의 다른 노드보다 훨씬 작음",
		},
		Remediation: incidentlib.Text{
			EN: "Find what changed the node's disk size (launch template, node pool, infrastructure module version), restore the size before moving workloads onto those nodes, and add a drift test that flags plans changing node disk size.",
			KO: "노드 디스크 크기를 바꾼 것(시작 템플릿, 노드 풀, 인프라 모듈 버전)을 찾아 워크로드를 옮기기 전에 크기를 되돌리고, 노드 디스크 크기를 바꾸는 계획을 잡아내는 드리프트 테스트를 추가하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The ephemeral-storage capacity of every Node. With three or more nodes, a node whose disk is less than half the median is reported: a new node group built with a smaller disk takes the same images as the old one and runs out.",
			KO: "모든 Node의 ephemeral-storage 용량을 봅니다. 노드가 셋 이상일 때 디스크가 중앙값의 절반보다 작은 노드를 보고합니다. 더 작은 디스크로 만든 새 노드 그룹은 기존 노드와 같은 이미지를 받다가 공간이 모자랍니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Whether the smaller nodes are meant for lighter workloads (taints and node selectors are not compared), and disks other than the kubelet's root filesystem.",
			KO: "작은 노드가 가벼운 워크로드용으로 의도된 것인지(테인트와 노드 셀렉터는 비교하지 않음), kubelet 루트 파일시스템 이외의 디스크는 보지 못합니다.",
		},
		Kinds:       []inventory.Kind{inventory.Node},
		NeedObjects: []inventory.Kind{inventory.Node},
		Citations: []Citation{
			{Case: "IL-0019",
				Quote:   "Comparing old and new nodes showed that the new ones had only 20 GB of root disk.",
				QuoteKO: "기존 노드와 새 노드를 비교해 보니 새 노드의 루트 디스크가 20GB 뿐이었다."},
			{Case: "IL-0541",
				Quote:   "The team added two nodes as a separate node pool, but by mistake the pool was created without the local SSDs the other nodes have.",
				QuoteKO: "팀은 노드 두 대를 별도 노드 풀로 추가했는데, 실수로 다른 노드에 있는 로컬 SSD 없이 풀을 만들었다."},
		},
	}
	p.Run = func(inv *inventory.Inventory) []Finding {
		var sizes []int64
		for _, n := range inv.Nodes {
			if c := diskCapacity(n); c > 0 {
				sizes = append(sizes, c)
			}
		}
		if len(sizes) < 3 {
			return nil
		}
		sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
		median := sizes[len(sizes)/2]
		var out []Finding
		for _, n := range inv.Nodes {
			c := diskCapacity(n)
			if c <= 0 || c*2 >= median {
				continue
			}
			out = append(out, p.findingAt(0, ref("Node", "", n.Name), "status.capacity.ephemeral-storage",
				fmt.Sprintf("has a %.1f GiB disk where the cluster's median is %.1f GiB", gib(c), gib(median)),
				fmt.Sprintf("디스크가 %.1f GiB인데 클러스터 중앙값은 %.1f GiB입니다", gib(c), gib(median))))
		}
		return out
	}
	return p
}

// cpuLimitCFSBugKernel builds the cpu-limit-cfs-bug-kernel check.
func cpuLimitCFSBugKernel() *Check {
	k := &Check{
		ID:       "cpu-limit-cfs-bug-kernel",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "CPU limits on nodes whose kernel has the CFS quota throttling bug",
			KO: "CFS 쿼터 스로틀링 버그가 있는 커널의 노드에서 CPU 제한 사용",
		},
		Remediation: incidentlib.Text{
			EN: "Upgrade node kernels to a release with the CFS bandwidth fixes (5.4+, 4.19.84+, 4.14.154+, Ubuntu 4.15.0-67+, CentOS 7 3.10.0-1062.8.1+); until then remove CPU limits (keep requests) from latency-sensitive workloads, or disable CFS quota in the kubelet, and watch throttling metrics.",
			KO: "노드 커널을 CFS 대역폭 수정이 들어간 릴리스(5.4+, 4.19.84+, 4.14.154+, Ubuntu 4.15.0-67+, CentOS 7 3.10.0-1062.8.1+)로 올리세요. 그때까지는 지연에 민감한 워크로드에서 CPU 제한을 빼고(요청은 유지) kubelet의 CFS 쿼터를 끄는 것도 방법이며, 스로틀링 지표를 지켜보세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "status.nodeInfo.kernelVersion of every Node, and the CPU limits in every workload's pod template. When some workload sets a CPU limit, each kernel version older than the fixed releases is reported once, on its first node: those kernels throttle multi-threaded containers far below their limit, which shows as stalls, failed probes and 5xx errors.",
			KO: "모든 Node의 status.nodeInfo.kernelVersion과 모든 워크로드 파드 템플릿의 CPU 제한을 봅니다. 어떤 워크로드라도 CPU 제한을 두면, 수정된 릴리스보다 오래된 커널 버전마다 그 첫 노드에 한 번씩 보고합니다. 이런 커널은 멀티스레드 컨테이너를 제한보다 훨씬 낮게 스로틀링하며, 이는 멈춤, 프로브 실패, 5xx 오류로 나타납니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Distribution kernels that carry the fix under an older version number other than the ones listed (it then over-reports), whether the limited pods run on the affected nodes, and throttling metrics.",
			KO: "목록 밖의 배포판 커널이 더 낮은 버전 번호로 수정을 담고 있는 경우(이때는 과하게 보고합니다), 제한이 걸린 파드가 실제로 해당 노드에서 도는지, 스로틀링 지표는 보지 못합니다.",
		},
		Kinds:       []inventory.Kind{inventory.Node},
		AnyOf:       [][]inventory.Kind{allWorkloads},
		NeedObjects: []inventory.Kind{inventory.Node},
		Citations: []Citation{
			{Case: "IL-0326",
				Quote:   "On top of this, a known kernel bug in the CFS scheduler caused unnecessary throttling and kept containers from reaching their allowed quota.",
				QuoteKO: "게다가 CFS 스케줄러에 알려진 커널 버그가 있어 불필요한 스로틀링을 일으키고 컨테이너가 허용된 쿼터조차 다 쓰지 못하게 했다."},
		},
	}
	k.Run = func(inv *inventory.Inventory) []Finding {
		limited := 0
		for _, w := range workloads(inv) {
			for _, c := range w.Template.Spec.Containers {
				if q, ok := c.Resources.Limits[corev1.ResourceCPU]; ok && !q.IsZero() {
					limited++
					break
				}
			}
		}
		if limited == 0 {
			return nil
		}
		type group struct {
			first string
			n     int
		}
		byKernel := map[string]*group{}
		var order []string
		for _, n := range inv.Nodes {
			kv := n.Status.NodeInfo.KernelVersion
			if kv == "" || !cfsBugKernel(kv) {
				continue
			}
			g := byKernel[kv]
			if g == nil {
				g = &group{first: n.Name}
				byKernel[kv] = g
				order = append(order, kv)
			}
			g.n++
		}
		var out []Finding
		for _, kv := range order {
			g := byKernel[kv]
			out = append(out, k.findingAt(0, ref("Node", "", g.first), "status.nodeInfo.kernelVersion",
				fmt.Sprintf("%d %s run kernel %s, which has the CFS quota throttling bug, and %d %s set CPU limits", g.n, plural(g.n, "node", "nodes"), kv, limited, plural(limited, "workload", "workloads")),
				fmt.Sprintf("노드 %d개가 CFS 쿼터 스로틀링 버그가 있는 커널 %s을(를) 쓰고, 워크로드 %d개가 CPU 제한을 둡니다", g.n, kv, limited)))
		}
		return out
	}
	return k
}

// masterNodeLabelSelector builds the master-node-label-selector check.
func masterNodeLabelSelector() *Check {
	m := &Check{
		ID:       "master-node-label-selector",
		Severity: High,
		Title: incidentlib.Text{
			EN: "Selector on the node-role.kubernetes.io/master label, removed in Kubernetes 1.24",
			KO: "Kubernetes 1.24에서 사라진 node-role.kubernetes.io/master 레이블을 고르는 셀렉터",
		},
		Remediation: incidentlib.Text{
			EN: "Select control-plane nodes with node-role.kubernetes.io/control-plane (and tolerate both taints during the move); check Calico BGPPeer nodeSelector/peerSelector and any configuration that lives only in the cluster before upgrading to 1.24 or later.",
			KO: "컨트롤 플레인 노드는 node-role.kubernetes.io/control-plane으로 고르고(옮기는 동안은 두 테인트를 모두 허용), 1.24 이상으로 업그레이드하기 전에 Calico BGPPeer의 nodeSelector/peerSelector와 클러스터 안에만 있는 설정을 확인하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "nodeSelector and required node affinity in Deployments, StatefulSets and DaemonSets, and the nodeSelector / peerSelector of Calico BGPPeers. A selector on node-role.kubernetes.io/master is reported; as high when no Node carries that label any more (it selects nothing), otherwise as medium.",
			KO: "Deployment, StatefulSet, DaemonSet의 nodeSelector와 필수 노드 어피니티, 그리고 Calico BGPPeer의 nodeSelector / peerSelector를 봅니다. node-role.kubernetes.io/master를 고르는 셀렉터를 보고합니다. 그 레이블을 가진 Node가 더는 없으면(아무것도 고르지 못하면) 높음, 아니면 중간입니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Configuration outside these objects (Calico BGPConfiguration, operators' own settings, scripts), and selectors written as preferred affinity.",
			KO: "이 객체들 밖의 설정(Calico BGPConfiguration, 오퍼레이터 자체 설정, 스크립트)과 선호(preferred) 어피니티로 쓴 셀렉터는 보지 못합니다.",
		},
		// The workloads are what the rule is about; BGPPeers (a CRD kind,
		// "read" without a request where it is not installed) only add
		// findings, and without Nodes the severity stays medium.
		AnyOf:    [][]inventory.Kind{{inventory.Deployment, inventory.StatefulSet, inventory.DaemonSet}},
		Optional: []inventory.Kind{inventory.Node, inventory.BGPPeer},
		Citations: []Citation{
			{Case: "IL-0351",
				Quote:   "Kubernetes renamed \"master\" to \"control-plane\" in the 1.20 series and, in 1.24, removed the old label even from running clusters, so the selectors stopped matching.",
				QuoteKO: "Kubernetes 는 1.20 대에서 \"master\" 라는 이름을 \"control-plane\" 으로 바꾸었고 1.24 에서는 실행 중인 클러스터에서도 옛 레이블을 지웠기 때문에 셀렉터가 더는 아무 노드와도 맞지 않게 되었다."},
		},
	}
	m.Run = func(inv *inventory.Inventory) []Finding {
		const label = "node-role.kubernetes.io/master"
		labelled := 0
		for _, n := range inv.Nodes {
			if _, ok := n.Labels[label]; ok {
				labelled++
			}
		}
		sev, en, ko := Medium, "the label was removed from nodes in Kubernetes 1.24", "이 레이블은 Kubernetes 1.24에서 노드에서 제거되었습니다"
		if len(inv.Nodes) > 0 && labelled == 0 {
			sev, en, ko = High, "no node carries that label, so it selects nothing", "그 레이블을 가진 노드가 없어 아무것도 고르지 못합니다"
		}
		var out []Finding
		for _, w := range workloads(inv) {
			if w.Ref.Kind == "Job" || w.Ref.Kind == "CronJob" {
				continue
			}
			if usesMasterLabel(w.Template, label) {
				out = append(out, m.findingAt(sev, w.Ref, podSpecPath(w.Ref.Kind)+".nodeSelector",
					fmt.Sprintf("schedules onto nodes by %s; %s", label, en),
					fmt.Sprintf("%s로 노드를 고릅니다. %s", label, ko)))
			}
		}
		for _, p := range inv.BGPPeers {
			spec, _ := p.Object["spec"].(map[string]any)
			for _, field := range []string{"nodeSelector", "peerSelector"} {
				if s, _ := spec[field].(string); strings.Contains(s, label) {
					out = append(out, m.findingAt(sev, ref("BGPPeer", p.GetNamespace(), p.GetName()), "spec."+field,
						fmt.Sprintf("%s uses %s; %s", field, label, en),
						fmt.Sprintf("%s가 %s를 씁니다. %s", field, label, ko)))
				}
			}
		}
		return out
	}
	return m
}

func usesMasterLabel(t *corev1.PodTemplateSpec, label string) bool {
	if _, ok := t.Spec.NodeSelector[label]; ok {
		return true
	}
	a := t.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, e := range term.MatchExpressions {
			if e.Key == label && e.Operator != corev1.NodeSelectorOpDoesNotExist && e.Operator != corev1.NodeSelectorOpNotIn {
				return true
			}
		}
	}
	return false
}

var kernelRE = regexp.MustCompile(`^(\d+)\.(\d+)(?:\.(\d+))?(?:-(\d+))?`)

// cfsBugKernel reports whether a kernel version predates the CFS bandwidth
// fixes (upstream de53fd7aedb1 and its stable backports).
func cfsBugKernel(v string) bool {
	m := kernelRE.FindStringSubmatch(v)
	if m == nil {
		return false
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	patch, _ := strconv.Atoi(m[3])
	abi, _ := strconv.Atoi(m[4])
	switch {
	case major > 5 || (major == 5 && minor >= 4):
		return false
	case major == 4 && minor == 19:
		return patch < 84
	case major == 4 && minor == 14:
		return patch < 154
	case major == 4 && minor == 15 && patch == 0 && m[4] != "":
		return abi < 67 // Ubuntu's 4.15.0-N
	case major == 3 && minor == 10 && patch == 0 && m[4] != "":
		return !centosFixed(v)
	}
	return true
}

// centosFixed: CentOS 7 carries the fix from 3.10.0-1062.8.1.
func centosFixed(v string) bool {
	rest := strings.TrimPrefix(v, "3.10.0-")
	parts := strings.SplitN(rest, ".", 4)
	nums := make([]int, 3)
	for i := 0; i < 3 && i < len(parts); i++ {
		n, err := strconv.Atoi(parts[i])
		if err != nil {
			break
		}
		nums[i] = n
	}
	want := []int{1062, 8, 1}
	for i := range want {
		if nums[i] != want[i] {
			return nums[i] > want[i]
		}
	}
	return true
}

// awsCNIWarmIPTarget builds the aws-cni-warm-ip-target check.
func awsCNIWarmIPTarget() *Check {
	c := &Check{
		ID:       "aws-cni-warm-ip-target",
		Severity: High,
		Title: incidentlib.Text{
			EN: "AWS VPC CNI warm IP settings can stop pod starts while pods come and go (WARM_IP_TARGET=1, or every target 0)",
			KO: "AWS VPC CNI의 웜 IP 설정이 파드가 생기고 지워지는 동안 파드 기동을 막을 수 있음(WARM_IP_TARGET=1, 또는 모든 목표치 0)",
		},
		Remediation: incidentlib.Text{
			EN: "Read the VPC CNI's documentation on WARM_IP_TARGET and MINIMUM_IP_TARGET before changing them: IPs in their 30-second cooldown count toward WARM_IP_TARGET, so give it room for the pods a node deletes in 30 seconds, or leave it unset and tune WARM_ENI_TARGET. Free subnet addresses with larger or added subnets (or prefix delegation) rather than a minimal warm pool.",
			KO: "WARM_IP_TARGET과 MINIMUM_IP_TARGET을 바꾸기 전에 VPC CNI 문서를 읽으세요. 30초 쿨다운 중인 IP도 WARM_IP_TARGET에 들어가므로, 노드가 30초 동안 지우는 파드만큼 여유를 두거나, 설정하지 말고 WARM_ENI_TARGET을 조정하세요. 서브넷 주소가 모자라면 웜 풀을 최소로 줄이기보다 서브넷을 넓히거나 더하세요(또는 prefix delegation).",
		},
		LooksAt: incidentlib.Text{
			EN: "The environment of the AWS VPC CNI DaemonSet (aws-node, or an amazon-k8s-cni image). WARM_IP_TARGET=1 is reported: IPs in the 30-second cooldown after a pod is deleted count toward the target, so on a node where pods come and go, ipamd holds no free address and every pod start there can wait 30 seconds. WARM_IP_TARGET, MINIMUM_IP_TARGET and WARM_ENI_TARGET all 0 is reported too: ipamd then allocates only when every IP is taken and no pod was deleted on the node in the last 30 seconds.",
			KO: "AWS VPC CNI DaemonSet(aws-node, 또는 amazon-k8s-cni 이미지)의 환경 변수를 봅니다. WARM_IP_TARGET=1이면 보고합니다. 파드가 지워진 뒤 30초 쿨다운 중인 IP도 목표치에 들어가므로, 파드가 생기고 지워지는 노드에서는 ipamd가 여유 주소를 하나도 두지 않아 그 노드의 파드 기동이 모두 30초씩 기다릴 수 있습니다. WARM_IP_TARGET, MINIMUM_IP_TARGET, WARM_ENI_TARGET이 모두 0이어도 보고합니다. 그러면 ipamd는 모든 IP가 쓰이고 최근 30초 동안 그 노드에서 지워진 파드가 없을 때에만 할당합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Values that come from a ConfigMap or an add-on's configuration rather than the DaemonSet's own env, how fast pods churn on each node, and other small warm targets that may hold too little under heavy churn.",
			KO: "DaemonSet 자신의 env가 아니라 ConfigMap이나 애드온 설정에서 오는 값, 노드마다 파드가 얼마나 빨리 바뀌는지, 변동이 심할 때 모자랄 수 있는 다른 작은 웜 목표치는 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.DaemonSet},
		Citations: []Citation{
			{Case: "IL-0556",
				Quote:   "WARM_IP_TARGET is not a smaller WARM_ENI_TARGET: with it set, IPs in the 30-second cooldown count toward the target, so a value of 1 can stop every pod start on that node for 30 seconds whenever a pod is removed; a value of 0 disables it.",
				QuoteKO: "WARM_IP_TARGET 은 더 작은 WARM_ENI_TARGET 이 아니다. 이 값을 쓰면 30초 쿨다운 중인 IP 도 목표치에 들어가서, 1 로 두면 파드가 지워질 때마다 그 노드의 기동이 30초 동안 모두 막힐 수 있다. 0 은 기능을 끄는 것과 같다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, d := range inv.DaemonSets {
			for ci, ctr := range d.Spec.Template.Spec.Containers {
				// The CNI container itself, not aws-node's network policy agent.
				if ctr.Name != "aws-node" && !strings.Contains(ctr.Image, "amazon-k8s-cni") {
					continue
				}
				env, at := map[string]string{}, map[string]int{}
				for i, e := range ctr.Env {
					if e.ValueFrom == nil {
						env[e.Name], at[e.Name] = strings.TrimSpace(e.Value), i
					}
				}
				field := fmt.Sprintf("spec.template.spec.containers[%d].env[%d]", ci, at["WARM_IP_TARGET"])
				var en, ko string
				switch {
				case env["WARM_IP_TARGET"] == "1":
					en = "WARM_IP_TARGET=1: IPs in their 30-second cooldown count toward it, so while pods are deleted and created the node keeps no free address and pod starts wait"
					ko = "WARM_IP_TARGET=1: 30초 쿨다운 중인 IP도 여기에 들어가므로, 파드가 지워지고 생기는 동안 노드에 여유 주소가 남지 않아 파드 기동이 기다립니다"
				case env["WARM_IP_TARGET"] == "0" && env["MINIMUM_IP_TARGET"] == "0" && env["WARM_ENI_TARGET"] == "0":
					en = "WARM_IP_TARGET, MINIMUM_IP_TARGET and WARM_ENI_TARGET are all 0: ipamd allocates only when every IP is in use and no pod was deleted on the node in the last 30 seconds"
					ko = "WARM_IP_TARGET, MINIMUM_IP_TARGET, WARM_ENI_TARGET이 모두 0입니다. ipamd는 모든 IP가 쓰이고 최근 30초 동안 그 노드에서 지워진 파드가 없을 때에만 할당합니다"
				default:
					continue
				}
				out = append(out, c.findingAt(0, ref("DaemonSet", d.Namespace, d.Name), field, en, ko))
			}
		}
		return out
	}
	return c
}

// controlPlaneRole returns the control-plane role label a Node carries
// (the current one, or the master label it replaced), or "".
func controlPlaneRole(n *corev1.Node) string {
	for _, l := range []string{"node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"} {
		if _, ok := n.Labels[l]; ok {
			return l
		}
	}
	return ""
}

func singleControlPlaneNode() *Check {
	c := &Check{
		ID:       "single-control-plane-node",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "The control plane runs on a single node",
			KO: "컨트롤 플레인이 노드 하나에서 돎",
		},
		Remediation: incidentlib.Text{
			EN: "Run three control-plane nodes (an odd number, for etcd's quorum) on separate machines, and check that their etcd and API server replicas really sit on different nodes; or hand the control plane to a managed service. Until then, alert on the API server from outside the cluster and keep a tested etcd backup and restore procedure.",
			KO: "컨트롤 플레인 노드를 서로 다른 머신에 셋(etcd 쿼럼을 위해 홀수) 두고, etcd와 API 서버 복제본이 정말 다른 노드에 있는지 확인하세요. 또는 컨트롤 플레인을 관리형 서비스에 맡기세요. 그때까지는 클러스터 밖에서 API 서버를 감시해 알림을 받고, 시험해 본 etcd 백업·복구 절차를 갖춰 두세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The Nodes and their role labels (node-role.kubernetes.io/control-plane, or the older master). When exactly one node carries one and the cluster has worker nodes besides, that node is reported: its etcd and API server have no other replica, so a reboot, a failing etcd or an exhausted master stops the API, and with it scheduling, rollouts and anything that must reach the API, until the node comes back or the cluster is rebuilt. Clusters whose control plane the provider runs (EKS, GKE, AKS) show no such node and are not reported, and neither are all-in-one clusters whose only node is the control-plane node (kind, minikube, k3d, a k3s server with no agents), where a second control-plane node is not the point.",
			KO: "Node와 그 역할 레이블(node-role.kubernetes.io/control-plane, 또는 예전의 master)을 봅니다. 이 레이블을 가진 노드가 꼭 하나이고 그 밖에 워커 노드가 있으면 그 노드를 보고합니다. 그 노드의 etcd와 API 서버에는 다른 복제본이 없으므로, 재부팅이나 etcd 고장, 마스터 자원 고갈 하나로 API가 멈추고, 노드가 돌아오거나 클러스터를 다시 지을 때까지 스케줄링과 롤아웃, API에 닿아야 하는 모든 것이 함께 멈춥니다. 제공자가 컨트롤 플레인을 운영하는 클러스터(EKS, GKE, AKS)에는 그런 노드가 보이지 않으므로 보고하지 않습니다. 컨트롤 플레인 노드가 유일한 노드인 올인원 클러스터(kind, minikube, k3d, 에이전트 없는 k3s 서버 하나)도, 두 번째 컨트롤 플레인 노드가 요점이 아니므로 보고하지 않습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Control-plane nodes that carry neither role label, an etcd kept outside the cluster (external etcd with several members), and whether a cluster with workers is meant to be disposable (a test or development cluster).",
			KO: "어느 역할 레이블도 달지 않은 컨트롤 플레인 노드, 클러스터 밖에 둔 etcd(멤버가 여럿인 외부 etcd), 워커가 있는 클러스터가 버려도 되는 것(시험·개발 클러스터)으로 의도된 것인지는 보지 못합니다.",
		},
		Kinds:       []inventory.Kind{inventory.Node},
		NeedObjects: []inventory.Kind{inventory.Node},
		Citations: []Citation{
			{Case: "IL-0775",
				Quote:   "A single-node control plane, a single worker and unpinned third-party versions combined to turn one reboot into a day-long outage.",
				QuoteKO: "노드 하나짜리 컨트롤 플레인, 하나뿐인 워커, 고정하지 않은 외부 버전이 겹쳐 재부팅 한 번이 하루 넘는 중단이 됐다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var cp []*corev1.Node
		for _, n := range inv.Nodes {
			if controlPlaneRole(n) != "" {
				cp = append(cp, n)
			}
		}
		// One control-plane node and workers besides; an all-in-one cluster,
		// whose only node is the control plane, is not reported.
		if len(cp) != 1 || len(inv.Nodes) < 2 {
			return nil
		}
		n := cp[0]
		role := controlPlaneRole(n)
		return []Finding{c.findingAt(0, ref("Node", "", n.Name), "metadata.labels",
			fmt.Sprintf("is the only control-plane node (%s) of %d nodes: one reboot, a failing etcd or an exhausted master stops the API server, and scheduling and rollouts with it", role, len(inv.Nodes)),
			fmt.Sprintf("노드 %d개 가운데 유일한 컨트롤 플레인 노드입니다(%s). 재부팅 한 번, etcd 고장, 마스터 자원 고갈 하나로 API 서버가 멈추고 스케줄링과 롤아웃도 함께 멈춥니다", len(inv.Nodes), role))}
	}
	return c
}

// kubeletEvictionMemory is the kubelet's default hard eviction threshold
// for memory (memory.available<100Mi): a node that reserves nothing else
// still shows allocatable memory this much below its capacity.
const kubeletEvictionMemory = 100 << 20

// nodeNothingReserved builds the node-nothing-reserved check.
func nodeNothingReserved() *Check {
	c := &Check{
		ID:       "node-nothing-reserved",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Node reserves no CPU or memory for the kubelet and the system",
			KO: "노드가 kubelet과 시스템 몫으로 CPU와 메모리를 하나도 떼어 두지 않음",
		},
		Remediation: incidentlib.Text{
			EN: "Set the kubelet's systemReserved and kubeReserved (CPU and memory, sized for the node and its pod count; managed node images compute them from the instance size) so that pods cannot take what the kubelet, the container runtime and the OS need. Reserving shrinks what pods can request: compare the cluster's requested CPU and memory with the new allocatable capacity and add nodes before the change lands, and alert on pods left Pending.",
			KO: "kubelet의 systemReserved와 kubeReserved(CPU와 메모리, 노드 크기와 파드 수에 맞춘 값. 관리형 노드 이미지는 인스턴스 크기로 계산합니다)를 설정해, kubelet과 컨테이너 런타임, OS에 필요한 몫을 파드가 가져가지 못하게 하세요. 예약하면 파드가 요청할 수 있는 양이 줄어듭니다. 바꾸기 전에 클러스터가 요청한 CPU·메모리를 새 할당 가능 용량과 견주어 노드를 늘려 두고, Pending으로 남은 파드에 알림을 거세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Each Node's capacity and allocatable CPU and memory. A node whose allocatable CPU equals its capacity and whose allocatable memory is at most the kubelet's default eviction threshold (100Mi) below it reserves nothing for the kubelet, the container runtime and the OS: pods may be scheduled onto all of it, and when they use it the node's own daemons starve, the node goes NotReady and its pods are evicted.",
			KO: "각 Node의 용량과 할당 가능한 CPU·메모리를 봅니다. 할당 가능 CPU가 용량과 같고 할당 가능 메모리가 용량보다 kubelet 기본 축출 임계값(100Mi) 이하만큼만 작은 노드는 kubelet, 컨테이너 런타임, OS 몫으로 아무것도 예약하지 않은 것입니다. 파드가 노드 전체에 스케줄될 수 있고, 파드가 그만큼 쓰면 노드 자신의 데몬이 굶어 노드가 NotReady가 되고 파드가 축출됩니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Whether a reservation that exists is large enough (the cited cluster had one and raised it), what the node's daemons really use, and nodes whose status gives no CPU and memory capacity (offline Node objects written by hand; one with capacity and no allocatable is read as the API server stores it, with allocatable equal to capacity).",
			KO: "있는 예약이 충분히 큰지(인용한 클러스터는 예약이 있었고 이를 늘렸습니다), 노드 데몬이 실제로 얼마를 쓰는지, status에 CPU·메모리 용량이 없는 노드(손으로 쓴 오프라인 Node 객체)는 보지 못합니다. 용량만 있고 할당 가능 수치가 없는 노드는 API 서버가 저장하는 대로, 할당 가능 수치가 용량과 같은 것으로 읽습니다.",
		},
		Kinds:       []inventory.Kind{inventory.Node},
		NeedObjects: []inventory.Kind{inventory.Node},
		Citations: []Citation{
			{Case: "IL-0504",
				Quote:   "Nodes ran short of system resources and went NotReady repeatedly; the fix, an AMI update plus a larger systemReserved on every node, then shrank allocatable capacity below what the workloads requested.",
				QuoteKO: "노드의 시스템 자원이 모자라 NotReady 가 되풀이됐고, AMI 업데이트와 노드별 systemReserved 증가로 이뤄진 수정이 할당 가능한 용량을 워크로드 요청량보다 작게 만들었다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, n := range inv.Nodes {
			// The API server stores a status without allocatable as
			// allocatable equal to capacity (SetDefaults_NodeStatus); a
			// Node read from a file is taken the same way.
			alloc := n.Status.Allocatable
			if alloc == nil {
				alloc = n.Status.Capacity
			}
			capCPU, ok1 := n.Status.Capacity[corev1.ResourceCPU]
			allocCPU, ok2 := alloc[corev1.ResourceCPU]
			capMem, ok3 := n.Status.Capacity[corev1.ResourceMemory]
			allocMem, ok4 := alloc[corev1.ResourceMemory]
			if !ok1 || !ok2 || !ok3 || !ok4 || capCPU.MilliValue() <= 0 || capMem.Value() <= 0 {
				continue // nothing to compare
			}
			memGap := capMem.Value() - allocMem.Value()
			if allocCPU.MilliValue() < capCPU.MilliValue() || memGap > kubeletEvictionMemory {
				continue
			}
			memEN := "all of its memory (" + mib(capMem.Value()) + ")"
			memKO := "메모리 " + mib(capMem.Value()) + "도 전부 그렇습니다"
			if memGap > 0 {
				memEN = fmt.Sprintf("all of its memory (%s) but the %s eviction threshold", mib(capMem.Value()), mib(memGap))
				memKO = fmt.Sprintf("메모리도 %s 가운데 축출 임계값 %s만 빼고 그렇습니다", mib(capMem.Value()), mib(memGap))
			}
			out = append(out, c.findingAt(0, ref("Node", "", n.Name), "status.allocatable",
				fmt.Sprintf("reserves nothing for the kubelet and the system: pods may request all of its CPU (%s) and %s", capCPU.String(), memEN),
				fmt.Sprintf("kubelet과 시스템 몫으로 아무것도 예약하지 않았습니다. 파드가 CPU %s 전부를 받을 수 있고, %s", capCPU.String(), memKO)))
		}
		return out
	}
	return c
}
