package checks

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// objectChecks are the checks of objects kept in the API: a check of this file is listed here, and
// registry.go lists the files.
func objectChecks() []*Check {
	return []*Check{
		dexKubernetesStorage(),
		calicoIPAMGc(),
		calicoControllersRBAC(),
	}
}

// authRequestPileUp is where dex's AuthRequests become a problem worth a
// high finding: far above what logins in flight need.
const authRequestPileUp = 10000

func countText(c inventory.Count) string {
	if c.AtLeast {
		return fmt.Sprintf("at least %d", c.N)
	}
	return fmt.Sprint(c.N)
}

func countTextKO(c inventory.Count) string {
	if c.AtLeast {
		return fmt.Sprintf("최소 %d", c.N)
	}
	return fmt.Sprint(c.N)
}

func hasCRD(inv *inventory.Inventory, name string) bool {
	for _, c := range inv.CRDs {
		if c.Name == name {
			return true
		}
	}
	return false
}

// dexKubernetesStorage builds the dex-kubernetes-storage check.
func dexKubernetesStorage() *Check {
	d := &Check{
		ID:       "dex-kubernetes-storage",
		Severity: High,
		Title: incidentlib.Text{
			EN: "dex keeps its state as objects in the Kubernetes API",
			KO: "dex가 상태를 Kubernetes API 객체로 저장함",
		},
		Remediation: incidentlib.Text{
			EN: "Move dex to its own storage (a dedicated etcd, SQL database), shorten AuthRequest expiry, rate-limit the login endpoints, and keep controllers that reconcile everything (GitOps tools) away from dex's kinds. To clean up a pile, never delete the namespace: delete in small batches or move dex to a fresh namespace with sane settings.",
			KO: "dex를 자체 저장소(전용 etcd, SQL 데이터베이스)로 옮기고, AuthRequest 만료를 줄이고, 로그인 엔드포인트에 속도 제한을 걸고, 모든 것을 조정하는 컨트롤러(GitOps 도구)가 dex 종류를 건드리지 않게 하세요. 쌓인 것을 치울 때 네임스페이스를 지우지 마세요. 작은 묶음으로 지우거나 정상 설정의 새 네임스페이스로 dex를 옮기세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Whether the authrequests.dex.coreos.com CustomResourceDefinition exists (dex's kubernetes storage), and how many AuthRequest objects there are, counted with one metadata-only request. dex with kubernetes storage is reported as medium; 10,000 AuthRequests or more as high: every login attempt, hostile ones included, adds an object to etcd, and listing or deleting a pile that size overloads the API servers.",
			KO: "authrequests.dex.coreos.com CustomResourceDefinition이 있는지(dex의 kubernetes 저장소)와 AuthRequest 객체가 몇 개인지를 메타데이터 전용 요청 한 번으로 셉니다. kubernetes 저장소를 쓰는 dex는 중간, AuthRequest가 10,000개 이상이면 높음으로 보고합니다. 적대적인 것을 포함해 로그인 시도마다 etcd에 객체가 하나씩 늘고, 그만큼 쌓인 것을 나열하거나 지우면 API 서버가 과부하됩니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "dex configured with etcd or SQL storage (its config is in a Secret, which kubegap never reads), other dex kinds (refresh tokens, offline sessions), and how fast the objects grow.",
			KO: "etcd나 SQL 저장소로 설정한 dex(설정은 kubegap이 절대 읽지 않는 Secret에 있음), 다른 dex 종류(리프레시 토큰, 오프라인 세션), 객체가 늘어나는 속도는 보지 못합니다.",
		},
		// Both needed: where dex's CRD is not installed, AuthRequests count
		// as read without a request, and the check would pass on
		// discovery alone for an identity that may list nothing.
		Kinds: []inventory.Kind{inventory.CustomResourceDefinition, inventory.AuthRequest},
		Citations: []Citation{
			{Case: "IL-0076",
				Quote:   "made dex create AuthRequest objects much faster than they went away, and the API became slow.",
				QuoteKO: "dex 가 AuthRequest 오브젝트를 사라지는 속도보다 훨씬 빨리 만들어 냈고, API 가 느려졌다."},
			{Case: "IL-0302",
				Quote:   "dex used Kubernetes as its storage backend, so every request to dex created a new authrequest resource in the cluster.",
				QuoteKO: "dex 는 쿠버네티스를 저장소 백엔드로 쓰고 있어서 dex 로 가는 요청마다 클러스터에 authrequest 리소스가 새로 생겼다."},
		},
	}
	d.Run = func(inv *inventory.Inventory) []Finding {
		const crd = "authrequests.dex.coreos.com"
		n := inv.Counts[inventory.AuthRequest]
		if !hasCRD(inv, crd) && n.N == 0 {
			return nil
		}
		r := ref("CustomResourceDefinition", "", crd)
		if n.N >= authRequestPileUp {
			return []Finding{d.finding(High, r,
				fmt.Sprintf("%s AuthRequest objects are stored in the Kubernetes API: listing or deleting them can overload the API servers", countText(n)),
				fmt.Sprintf("AuthRequest 객체 %s개가 Kubernetes API에 저장되어 있습니다. 이를 나열하거나 지우면 API 서버가 과부하될 수 있습니다", countTextKO(n)))}
		}
		return []Finding{d.finding(Medium, r,
			fmt.Sprintf("dex stores its state in the Kubernetes API (%s AuthRequests now): login traffic, hostile included, creates objects without bound", countText(n)),
			fmt.Sprintf("dex가 상태를 Kubernetes API에 저장합니다(현재 AuthRequest %s개). 적대적인 것을 포함한 로그인 트래픽이 객체를 끝없이 만듭니다", countTextKO(n)))}
	}
	return d
}

// calicoIPAMGc builds the calico-ipam-gc check.
func calicoIPAMGc() *Check {
	c := &Check{
		ID:       "calico-ipam-gc",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Calico IPAM handles are not garbage-collected",
			KO: "Calico IPAM 핸들이 가비지 컬렉션되지 않음",
		},
		Remediation: incidentlib.Text{
			EN: "Enable the node controller in calico-kube-controllers (ENABLED_CONTROLLERS includes node), which releases IPAM handles of deleted pods and nodes; clean stale handles with calicoctl ipam check / release; compact the datastore afterwards.",
			KO: "calico-kube-controllers에서 node 컨트롤러를 켜세요(ENABLED_CONTROLLERS에 node 포함). 삭제된 파드와 노드의 IPAM 핸들을 풀어 줍니다. 오래된 핸들은 calicoctl ipam check / release로 정리하고, 그 뒤 데이터 저장소를 압축하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The calico-kube-controllers Deployment's ENABLED_CONTROLLERS setting, and the number of IPAMHandle objects (one metadata-only request) against the pods and nodes there are. Controllers without node, or more than twice as many handles as pods and nodes together (and over 1,000), are reported: stale handles pile up in the datastore until snapshots and lists of it stall the API server.",
			KO: "calico-kube-controllers Deployment의 ENABLED_CONTROLLERS 설정과, 파드와 노드 수에 견준 IPAMHandle 객체 수(메타데이터 전용 요청 한 번)를 봅니다. node가 없는 컨트롤러 설정이나, 파드와 노드를 합친 것의 두 배(그리고 1,000개)를 넘는 핸들을 보고합니다. 오래된 핸들이 데이터 저장소에 쌓여, 그 스냅샷과 목록이 API 서버를 멈추게 합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Calico installed by the Tigera operator (its settings live in a KubeControllersConfiguration), the etcd datastore mode, and the size of the datastore itself. Pod counts are estimated from workloads when pods were not counted.",
			KO: "Tigera 오퍼레이터로 설치한 Calico(설정은 KubeControllersConfiguration에 있음), etcd 데이터 저장소 모드, 데이터 저장소 자체의 크기는 보지 못합니다. 파드 수를 세지 않았을 때는 워크로드에서 추정합니다.",
		},
		Kinds:    []inventory.Kind{inventory.Deployment, inventory.Node, inventory.StatefulSet, inventory.DaemonSet},
		Optional: []inventory.Kind{inventory.IPAMHandle},
		Citations: []Citation{
			{Case: "IL-0304",
				Quote:   "Calico's IPAM garbage-collection controller had never been enabled, so stale IPAM handles had piled up over years to 6,071 entries, each one a row in dqlite, the cluster's datastore.",
				QuoteKO: "Calico 의 IPAM GC 컨트롤러가 한 번도 켜진 적이 없어서 낡은 IPAM 핸들이 몇 년에 걸쳐 6,071개까지 쌓였고, 핸들 하나하나가 클러스터 데이터 저장소인 dqlite 의 행이었다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, d := range inv.Deployments {
			for _, ctr := range d.Spec.Template.Spec.Containers {
				if !isCalicoControllers(d.Name, ctr) {
					continue
				}
				if v, enabled, ok := enabledControllers(ctr); ok && !slices.Contains(enabled, "node") {
					out = append(out, c.finding(0, ref("Deployment", d.Namespace, d.Name),
						fmt.Sprintf("ENABLED_CONTROLLERS=%q leaves out the node controller, which garbage-collects IPAM handles", v),
						fmt.Sprintf("ENABLED_CONTROLLERS=%q에 IPAM 핸들을 가비지 컬렉션하는 node 컨트롤러가 빠져 있습니다", v)))
				}
			}
		}
		h := inv.Counts[inventory.IPAMHandle]
		live := estimatedPods(inv) + len(inv.Nodes)
		if h.N > 1000 && h.N > 2*live {
			out = append(out, c.finding(0, ref("CustomResourceDefinition", "", "ipamhandles.crd.projectcalico.org"),
				fmt.Sprintf("%s IPAM handles for about %d pods and nodes: stale handles are piling up", countText(h), live),
				fmt.Sprintf("파드와 노드 약 %d개에 IPAM 핸들이 %s개 있습니다. 오래된 핸들이 쌓이고 있습니다", live, countTextKO(h))))
		}
		return out
	}
	return c
}

// calicoControllersRBAC builds the calico-controllers-rbac check.
func calicoControllersRBAC() *Check {
	c := &Check{
		ID:       "calico-controllers-rbac",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "calico-kube-controllers may not list and watch what its controllers read",
			KO: "calico-kube-controllers가 컨트롤러가 읽는 것을 list·watch할 권한이 없음",
		},
		Remediation: incidentlib.Text{
			EN: "Grant calico-kube-controllers' ClusterRole get, list and watch on pods (its IPAM garbage collection checks that pods exist), and, when ENABLED_CONTROLLERS includes workloadendpoint, access to workloadendpoints in crd.projectcalico.org, as Calico's own manifests do; then check that its logs show no 403.",
			KO: "calico-kube-controllers의 ClusterRole에 pods에 대한 get, list, watch를 주고(IPAM 가비지 컬렉션이 파드가 있는지 확인합니다), ENABLED_CONTROLLERS에 workloadendpoint가 있으면 crd.projectcalico.org의 workloadendpoints 권한도 Calico 자체 매니페스트처럼 주세요. 그 뒤 로그에 403이 없는지 확인하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The calico-kube-controllers Deployment, its service account, and the ClusterRoles that ClusterRoleBindings of the input give it. When a ClusterRoleBinding of the input names its service account, the check asks that the roles it gets (by name or through its groups) together allow list and watch on pods, and on workloadendpoints when ENABLED_CONTROLLERS names workloadendpoint. A controller refused these crashes and restarts every few seconds, adding error writes to the datastore, while the pod can still report Running.",
			KO: "calico-kube-controllers Deployment와 그 서비스 어카운트, 그리고 입력의 ClusterRoleBinding이 거기에 주는 ClusterRole을 봅니다. 입력의 ClusterRoleBinding이 그 서비스 어카운트를 이름으로 묶고 있으면, 이름이나 그룹으로 받는 역할들을 합쳐 pods에 list와 watch가 있는지, ENABLED_CONTROLLERS에 workloadendpoint가 있으면 workloadendpoints에도 있는지 봅니다. 이 권한을 거부당한 컨트롤러는 몇 초마다 죽고 다시 뜨며 데이터 저장소에 오류 쓰기를 더하는데, 파드는 여전히 Running으로 보일 수 있습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Permissions given through namespaced RoleBindings, aggregated ClusterRoles or groups other than the service-account groups; a service account no binding of the input names (then nothing is judged: the built-in group bindings of a live cluster alone are not its role); Calico installed by the Tigera operator, which writes its own role; and which controllers run when ENABLED_CONTROLLERS is not set.",
			KO: "네임스페이스 RoleBinding, 집계(aggregated) ClusterRole, 서비스 어카운트 그룹 이외의 그룹으로 받은 권한, 입력의 어떤 바인딩도 이름으로 묶지 않은 서비스 어카운트(이때는 판단하지 않습니다. 라이브 클러스터의 기본 그룹 바인딩만으로는 그 역할로 보지 않습니다), 자체 역할을 쓰는 Tigera 오퍼레이터로 설치한 Calico, ENABLED_CONTROLLERS가 없을 때 어떤 컨트롤러가 도는지는 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.Deployment, inventory.ClusterRoleBinding, inventory.ClusterRole},
		Citations: []Citation{
			{Case: "IL-1190",
				Quote:   "The calico-kube-controllers ClusterRole had given only get on pods and nothing on workloadendpoints since the cluster was created, so the pod/workloadendpoint controller was refused with 403 and restarted about every 5 seconds",
				QuoteKO: "calico-kube-controllers ClusterRole 이 클러스터를 만든 뒤로 pods 에 get 만 주고 workloadendpoints 에는 아무 권한도 주지 않아서, pod/workloadendpoint 컨트롤러가 403 으로 거부되어 약 5초마다 재시작했고"},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		roles := clusterRolesByName(inv)
		var out []Finding
		for _, d := range inv.Deployments {
			i := slices.IndexFunc(d.Spec.Template.Spec.Containers, func(ctr corev1.Container) bool { return isCalicoControllers(d.Name, ctr) })
			if i < 0 {
				continue
			}
			_, enabled, _ := enabledControllers(d.Spec.Template.Spec.Containers[i])
			sa := serviceAccount(&d.Spec.Template)
			// own: the roles bound to this very service account; bound:
			// those and the roles every service account gets through its
			// groups (in a live cluster, the built-in bindings). Only a
			// role bound to it by name says that its permissions were
			// meant for it, and are in the input to judge.
			var own, bound []*rbacv1.ClusterRole
			for _, b := range inv.ClusterRoleBindings {
				r := roles[b.RoleRef.Name]
				if b.RoleRef.Kind != "ClusterRole" || r == nil || !bindsServiceAccount(b.Subjects, d.Namespace, sa) {
					continue
				}
				bound = append(bound, r)
				if namesServiceAccount(b.Subjects, d.Namespace, sa) {
					own = append(own, r)
				}
			}
			if len(own) == 0 {
				continue // its permissions are not in the input
			}
			var missing []string
			if !rolesAllow(bound, "", "pods", "list", "watch") {
				missing = append(missing, "pods")
			}
			if slices.Contains(enabled, "workloadendpoint") && !rolesAllow(bound, "crd.projectcalico.org", "workloadendpoints", "list", "watch") {
				missing = append(missing, "workloadendpoints")
			}
			if len(missing) == 0 {
				continue
			}
			m := strings.Join(missing, " and ")
			// The finding goes on the controllers' own role when it is
			// bound, else on the first bound: that is where a rule belongs.
			at := own[0]
			for _, r := range own {
				if r.Name == d.Name {
					at = r
				}
			}
			out = append(out, c.findingAt(0, ref("ClusterRole", "", at.Name), "rules",
				fmt.Sprintf("bound to calico-kube-controllers (%s/%s), does not grant list and watch on %s: its controllers are refused, crash and restart, adding error writes to the datastore", d.Namespace, sa, m),
				fmt.Sprintf("calico-kube-controllers(%s/%s)에 묶여 있지만 %s에 대한 list·watch를 주지 않습니다. 컨트롤러가 거부당해 죽고 다시 뜨며 데이터 저장소에 오류 쓰기를 더합니다", d.Namespace, sa, strings.Join(missing, "·"))))
		}
		return out
	}
	return c
}

// namesServiceAccount reports whether subjects name service account ns/sa
// itself, not a group it belongs to.
func namesServiceAccount(subjects []rbacv1.Subject, ns, sa string) bool {
	for _, s := range subjects {
		if s.Kind == "ServiceAccount" && s.Namespace == ns && s.Name == sa {
			return true
		}
	}
	return false
}

// isCalicoControllers reports whether ctr, a container of a Deployment
// called name, runs calico-kube-controllers.
func isCalicoControllers(name string, ctr corev1.Container) bool {
	return imageIs(ctr.Image, "kube-controllers") || name == "calico-kube-controllers"
}

// enabledControllers returns ctr's ENABLED_CONTROLLERS as written and as a
// list of controllers; ok is false when it is not set in the manifest (unset,
// or taken from elsewhere by valueFrom).
func enabledControllers(ctr corev1.Container) (string, []string, bool) {
	for _, e := range ctr.Env {
		if e.Name != "ENABLED_CONTROLLERS" || e.ValueFrom != nil {
			continue
		}
		var list []string
		for _, f := range strings.Split(e.Value, ",") {
			list = append(list, strings.TrimSpace(f))
		}
		return e.Value, list, true
	}
	return "", nil, false
}

// rolesAllow reports whether the rules of roles together allow every verb
// on resource of group.
func rolesAllow(roles []*rbacv1.ClusterRole, group, resource string, verbs ...string) bool {
	for _, v := range verbs {
		allowed := false
		for _, r := range roles {
			for _, rule := range r.Rules {
				if (slices.Contains(rule.APIGroups, group) || slices.Contains(rule.APIGroups, "*")) &&
					(slices.Contains(rule.Resources, resource) || slices.Contains(rule.Resources, "*")) &&
					(slices.Contains(rule.Verbs, v) || slices.Contains(rule.Verbs, "*")) {
					allowed = true
				}
			}
		}
		if !allowed {
			return false
		}
	}
	return true
}
