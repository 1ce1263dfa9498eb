package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// backendChecks are the checks of the backends of webhooks and meshes: a check of this file is listed here, and
// registry.go lists the files.
func backendChecks() []*Check {
	return []*Check{
		webhookBackendFragile(),
		jobIstioSidecar(),
		istioPortNames(),
	}
}

// hpaFloor returns the minimum of a HorizontalPodAutoscaler that scales w,
// or w's own replica count.
func hpaFloor(inv *inventory.Inventory, w workload) int {
	for _, h := range inv.HPAs {
		t := h.Spec.ScaleTargetRef
		if h.Namespace == w.Ref.Namespace && t.Kind == w.Ref.Kind && t.Name == w.Ref.Name {
			return replicas(h.Spec.MinReplicas)
		}
	}
	return w.Replicas
}

func webhookBackendFragile() *Check {
	c := &Check{
		ID:       "webhook-backend-fragile",
		Severity: High,
		Title: incidentlib.Text{
			EN: "Fail-closed admission webhook served by one replica or by pods without a liveness probe",
			KO: "실패 시 막는 어드미션 웹훅을 복제본 하나나 liveness 프로브 없는 파드가 처리함",
		},
		Remediation: incidentlib.Text{
			EN: "Run the webhook's backend with at least two replicas spread over nodes (and a PodDisruptionBudget), give it a liveness probe so that a hung server is restarted and a readiness probe so that it leaves the Service, keep timeoutSeconds short, and scope the webhook's rules and namespaces to what its policy needs; apply new admission controllers to a test cluster first.",
			KO: "웹훅 백엔드를 노드에 나눈 복제본 둘 이상(그리고 PodDisruptionBudget)으로 돌리고, 멈춘 서버가 재시작되도록 liveness 프로브를, Service에서 빠지도록 readiness 프로브를 주세요. timeoutSeconds는 짧게 두고, 웹훅의 규칙과 네임스페이스를 정책에 필요한 만큼으로 좁히세요. 새 어드미션 컨트롤러는 먼저 시험 클러스터에 적용하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Validating and mutating webhooks that fail closed (failurePolicy Fail, the default) on CREATE or UPDATE, the Service their clientConfig names, and the Deployments and StatefulSets that Service selects. A backend with one replica (or an autoscaler minimum of one) is reported as high: one restart, eviction or lost node and every write in the webhook's scope is refused or times out. A backend whose containers have no liveness probe is reported as medium: a server that hangs keeps its pod running and the writes keep waiting on it.",
			KO: "CREATE나 UPDATE에서 실패 시 막는(failurePolicy Fail, 기본값) validating/mutating 웹훅, 그 clientConfig가 가리키는 Service, 그 Service가 고르는 Deployment와 StatefulSet을 봅니다. 백엔드 복제본이 하나(또는 오토스케일러 최솟값이 하나)면 높음으로 보고합니다. 재시작, 축출, 노드 손실 한 번이면 웹훅 범위의 모든 쓰기가 거부되거나 시간 초과됩니다. 백엔드 컨테이너에 liveness 프로브가 없으면 중간으로 보고합니다. 멈춘 서버의 파드는 계속 살아 있고 쓰기는 계속 그 서버를 기다립니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Webhooks served from a URL outside the cluster, backends whose Service or workload is not in the input, how fast the backend answers, and whether a liveness probe that exists would notice the hang.",
			KO: "클러스터 밖 URL로 처리하는 웹훅, Service나 워크로드가 입력에 없는 백엔드, 백엔드의 응답 속도, 있는 liveness 프로브가 그 멈춤을 알아챌지는 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.Service, inventory.HPA},
		AnyOf: [][]inventory.Kind{{inventory.ValidatingWebhook, inventory.MutatingWebhook}, {inventory.Deployment, inventory.StatefulSet}},
		Citations: []Citation{
			{Case: "IL-0324",
				Quote:   "Add a liveness probe so OPA is restarted when it becomes unresponsive",
				QuoteKO: "OPA 가 응답하지 않으면 재시작되도록 liveness probe 를 추가하고"},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		served, backends := webhookBackends(inv)
		return c.fragileBackends(inv, served, backends)
	}
	return c
}

// webhookBackends finds the Deployments and StatefulSets that serve a
// fail-closed webhook on writes: for each, the webhooks it serves, and the
// workload itself.
func webhookBackends(inv *inventory.Inventory) (map[inventory.Ref][]string, map[inventory.Ref]workload) {
	served := map[inventory.Ref][]string{} // backend -> webhooks
	ws := workloads(inv)
	backends := map[inventory.Ref]workload{}
	for _, h := range hooks(inv) {
		if !h.failsClosed() || h.Service == nil {
			continue
		}
		writesSome := false
		for _, r := range h.Rules {
			writesSome = writesSome || writes(r)
		}
		if !writesSome {
			continue
		}
		for _, svc := range inv.Services {
			if svc.Namespace != h.Service.Namespace || svc.Name != h.Service.Name {
				continue
			}
			for _, w := range ws {
				if (w.Ref.Kind != "Deployment" && w.Ref.Kind != "StatefulSet") || w.Ref.Namespace != svc.Namespace || !mapSelects(svc.Spec.Selector, w.Template.Labels) {
					continue
				}
				name := h.Name + " (" + h.Config.Kind + " " + h.Config.Name + ")"
				if !containsString(served[w.Ref], name) {
					served[w.Ref] = append(served[w.Ref], name)
				}
				backends[w.Ref] = w
			}
		}
	}
	return served, backends
}

// fragileBackends is webhook-backend-fragile's findings: each backend with
// fewer than two replicas (high), or else with a container without a
// liveness probe (medium).
func (c *Check) fragileBackends(inv *inventory.Inventory, served map[inventory.Ref][]string, backends map[inventory.Ref]workload) []Finding {
	var out []Finding
	for r, names := range served {
		w := backends[r]
		sort.Strings(names)
		l := strings.Join(names, ", ")
		if n := hpaFloor(inv, w); n < 2 {
			out = append(out, c.findingAt(High, r, "spec.replicas",
				fmt.Sprintf("serves fail-closed webhook %s with %d %s: one restart or lost node and every write the webhook covers is refused", l, n, plural(n, "replica", "replicas")),
				fmt.Sprintf("실패 시 막는 웹훅 %s를 복제본 %d개로 처리합니다. 재시작이나 노드 손실 한 번이면 웹훅이 맡은 모든 쓰기가 거부됩니다", l, n)))
			continue
		}
		var noLive []string
		for _, ctr := range w.Template.Spec.Containers {
			if ctr.LivenessProbe == nil {
				noLive = append(noLive, ctr.Name)
			}
		}
		if len(noLive) > 0 {
			m := strings.Join(noLive, ", ")
			out = append(out, c.findingAt(Medium, r, containerPath(w.Ref.Kind, w.Template, noLive[0]),
				fmt.Sprintf("serves fail-closed webhook %s and container %s has no liveness probe: a hung server is never restarted while writes wait on it", l, m),
				fmt.Sprintf("실패 시 막는 웹훅 %s를 처리하는데 컨테이너 %s에 liveness 프로브가 없습니다. 서버가 멈춰도 재시작되지 않고 쓰기는 계속 그 서버를 기다립니다", l, m)))
		}
	}
	return out
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// istioInjected reports whether pods of template t in namespace ns get the
// Istio sidecar: a pod label or annotation sidecar.istio.io/inject decides,
// else the namespace's istio-injection or istio.io/rev label.
func istioInjected(inv *inventory.Inventory, ns string, meta map[string]string, ann map[string]string) bool {
	for _, m := range []map[string]string{meta, ann} {
		switch m["sidecar.istio.io/inject"] {
		case "true":
			return true
		case "false":
			return false
		}
	}
	for _, n := range inv.Namespaces {
		if n.Name != ns {
			continue
		}
		if n.Labels["istio-injection"] == "enabled" {
			return true
		}
		if n.Labels["istio-injection"] == "disabled" {
			return false
		}
		return n.Labels["istio.io/rev"] != ""
	}
	return false
}

func jobIstioSidecar() *Check {
	c := &Check{
		ID:       "job-istio-sidecar",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Job pods get an Istio sidecar that keeps them running after the job is done",
			KO: "Job 파드에 Istio 사이드카가 붙어 작업이 끝나도 파드가 끝나지 않음",
		},
		Remediation: incidentlib.Text{
			EN: "Turn injection off for Jobs and CronJobs that do not need the mesh (sidecar.istio.io/inject: \"false\" on the pod template), or run the proxy as a native sidecar (Istio's native sidecar mode on Kubernetes 1.29+), or have the job stop the proxy when it ends (POST to localhost:15020/quitquitquit); and set activeDeadlineSeconds so that a hung run does not stay forever.",
			KO: "메시가 필요 없는 Job과 CronJob은 주입을 끄거나(파드 템플릿에 sidecar.istio.io/inject: \"false\"), 프록시를 네이티브 사이드카로 돌리거나(Kubernetes 1.29 이상에서 Istio 네이티브 사이드카 모드), 작업이 끝날 때 프록시를 멈추게 하세요(localhost:15020/quitquitquit에 POST). 멈춘 실행이 영원히 남지 않도록 activeDeadlineSeconds도 두세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Jobs and CronJobs whose pods get the Istio proxy injected: the pod template's sidecar.istio.io/inject label or annotation, else the namespace's istio-injection or istio.io/rev label. Unless a container calls the proxy's quitquitquit endpoint, such a job never completes: its program exits, the sidecar keeps running, and the pod, the Job and the CronJob's next runs wait on it.",
			KO: "파드에 Istio 프록시가 주입되는 Job과 CronJob을 봅니다. 파드 템플릿의 sidecar.istio.io/inject 레이블이나 어노테이션을, 없으면 네임스페이스의 istio-injection 또는 istio.io/rev 레이블을 봅니다. 컨테이너가 프록시의 quitquitquit 엔드포인트를 부르지 않으면 이런 작업은 끝나지 않습니다. 프로그램은 끝나도 사이드카가 계속 돌고, 파드와 Job, CronJob의 다음 실행이 그것을 기다립니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Istio's native sidecar mode (set in its mesh configuration), injection policies set in the injector's configuration rather than by labels, and other meshes (Linkerd handles Jobs with linkerd-await).",
			KO: "메시 설정에서 켜는 Istio 네이티브 사이드카 모드, 레이블이 아니라 인젝터 설정에 둔 주입 정책, 다른 메시(Linkerd는 linkerd-await로 Job을 다룹니다)는 보지 못합니다.",
		},
		AnyOf:    [][]inventory.Kind{{inventory.Job, inventory.CronJob}},
		Optional: []inventory.Kind{inventory.Namespace},
		Citations: []Citation{
			{Case: "IL-0327",
				Quote:   "Kubernetes Jobs never finished because the Istio proxy sidecar keeps running after the job's program exits.",
				QuoteKO: "쿠버네티스 Job 은 작업 프로그램이 끝나도 Istio 프록시 사이드카가 계속 떠 있어 끝나지 않았다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			if w.Ref.Kind != "Job" && w.Ref.Kind != "CronJob" {
				continue
			}
			if !istioInjected(inv, w.Ref.Namespace, w.Template.Labels, w.Template.Annotations) {
				continue
			}
			quits := false
			for _, ctr := range allContainers(w.Template) {
				if strings.Contains(strings.Join(append(append([]string{}, ctr.Command...), ctr.Args...), " "), "quitquitquit") {
					quits = true
				}
			}
			if quits {
				continue
			}
			out = append(out, c.findingAt(0, w.Ref, podSpecPath(w.Ref.Kind)+".containers",
				"its pods get the Istio sidecar and nothing stops it: when the job's program exits the proxy keeps running and the job never completes",
				"파드에 Istio 사이드카가 붙는데 이를 멈추는 것이 없습니다. 작업 프로그램이 끝나도 프록시가 계속 돌아 작업이 완료되지 않습니다"))
		}
		return out
	}
	return c
}

// istioProtocols are the port-name prefixes by which Istio tells protocols
// apart ("<protocol>" or "<protocol>-<suffix>").
var istioProtocols = []string{"http", "http2", "https", "grpc", "grpc-web", "mongo", "mysql", "redis", "tcp", "tls", "udp"}

func istioNamed(name string) bool {
	for _, p := range istioProtocols {
		if name == p || strings.HasPrefix(name, p+"-") {
			return true
		}
	}
	return false
}

func istioPortNames() *Check {
	c := &Check{
		ID:       "istio-port-name-no-protocol",
		Severity: Low,
		Title: incidentlib.Text{
			EN: "Service port in an Istio-injected namespace names no protocol",
			KO: "Istio 주입 네임스페이스의 Service 포트가 프로토콜을 밝히지 않음",
		},
		Remediation: incidentlib.Text{
			EN: "Give every Service port in the mesh its protocol: appProtocol (http, grpc, tcp, …) or a name that starts with it (http-web, grpc-api, tcp-db), before injecting the sidecar into its pods.",
			KO: "메시 안의 모든 Service 포트에 프로토콜을 밝히세요. appProtocol(http, grpc, tcp 등)을 쓰거나 이름을 그 프로토콜로 시작하게 하고(http-web, grpc-api, tcp-db), 그다음에 파드에 사이드카를 주입하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Services in namespaces labelled for Istio injection (istio-injection=enabled or istio.io/rev) and their ports. A port with neither appProtocol nor a name starting with a protocol Istio knows (http, http2, https, grpc, grpc-web, tcp, tls, udp, mongo, mysql, redis) is reported: the proxy has to guess the protocol, and where it guesses wrong, or where its version does not guess at all, traffic through the sidecar breaks and pods that depend on it crash-loop.",
			KO: "Istio 주입 레이블(istio-injection=enabled 또는 istio.io/rev)이 붙은 네임스페이스의 Service와 그 포트를 봅니다. appProtocol도 없고 이름이 Istio가 아는 프로토콜(http, http2, https, grpc, grpc-web, tcp, tls, udp, mongo, mysql, redis)로 시작하지도 않는 포트를 보고합니다. 그러면 프록시가 프로토콜을 짐작해야 하는데, 잘못 짐작하거나 버전에 따라 아예 짐작하지 않으면 사이드카를 거치는 트래픽이 깨지고 이에 기대는 파드가 크래시 루프에 빠집니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Istio's version and its protocol sniffing (recent versions detect HTTP on unnamed ports, server-first protocols still fail), pods injected by their own label in namespaces without one, and other meshes.",
			KO: "Istio 버전과 프로토콜 감지(최근 버전은 이름 없는 포트에서 HTTP를 알아내지만, 서버가 먼저 말하는 프로토콜은 여전히 실패합니다), 네임스페이스 레이블 없이 자체 레이블로 주입되는 파드, 다른 메시는 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.Service, inventory.Namespace},
		Citations: []Citation{
			{Case: "IL-0327",
				Quote:   "Right after deployment nearly all pods were in CrashLoopBackOff because port names lacked the protocol prefix Istio uses to tell HTTP, gRPC and TCP apart.",
				QuoteKO: "배포 직후 거의 모든 파드가 CrashLoopBackOff 에 빠졌는데, Istio 가 HTTP, gRPC, TCP 를 구분하는 데 쓰는 프로토콜 접두어가 포트 이름에 없었기 때문이다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, svc := range inv.Services {
			if !istioInjected(inv, svc.Namespace, nil, nil) {
				continue
			}
			var bad []string
			field := ""
			for i, p := range svc.Spec.Ports {
				if (p.AppProtocol != nil && *p.AppProtocol != "") || istioNamed(p.Name) {
					continue
				}
				if field == "" {
					field = fmt.Sprintf("spec.ports[%d]", i)
				}
				name := p.Name
				if name == "" {
					name = "(unnamed)"
				}
				bad = append(bad, fmt.Sprintf("%s %d", name, p.Port))
			}
			if len(bad) == 0 {
				continue
			}
			l := strings.Join(bad, ", ")
			out = append(out, c.findingAt(0, ref("Service", svc.Namespace, svc.Name), field,
				fmt.Sprintf("port %s names no protocol in a namespace with Istio injection: the sidecar has to guess, and a wrong guess breaks the traffic", l),
				fmt.Sprintf("Istio 주입 네임스페이스에서 포트 %s가 프로토콜을 밝히지 않습니다. 사이드카가 짐작해야 하고, 잘못 짐작하면 트래픽이 깨집니다", l)))
		}
		return out
	}
	return c
}
