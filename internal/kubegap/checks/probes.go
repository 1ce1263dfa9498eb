package checks

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// probeChecks are the checks of probes: a check of this file is listed here, and
// registry.go lists the files.
func probeChecks() []*Check {
	return []*Check{
		livenessSameAsReadiness(),
		livenessShortWindow(),
		readinessProbeMissing(),
	}
}

// longRunning are the workload kinds whose containers serve until stopped.
var longRunning = []inventory.Kind{inventory.Deployment, inventory.StatefulSet, inventory.DaemonSet}

func isLongRunning(w workload) bool {
	return w.Ref.Kind == "Deployment" || w.Ref.Kind == "StatefulSet" || w.Ref.Kind == "DaemonSet"
}

// livenessWindow is about how long a container may stop answering its
// liveness probe before the kubelet kills it: periodSeconds ×
// failureThreshold, with the API server's defaults (10 s, 3).
func livenessWindow(p *corev1.Probe) int64 {
	period, failures := int64(p.PeriodSeconds), int64(p.FailureThreshold)
	if period == 0 {
		period = 10
	}
	if failures == 0 {
		failures = 3
	}
	return period * failures
}

// shortLiveness is the liveness window of the cited case (IL-0564), whose
// JVM stalled for about 75 s: the kubelet's default window (10 s × 3). A
// window below it was shortened on purpose and is always reported; the
// default itself only where the case's condition holds, a JVM.
const shortLiveness = 30

// isJVM reports whether a container runs a Java virtual machine, as far as
// its spec shows: a JVM image, a java command, a JVM options variable, or a
// Spring Boot Actuator probe path.
func isJVM(c *corev1.Container) bool {
	img := strings.ToLower(imageName(c.Image))
	img = img[strings.LastIndex(img, "/")+1:]
	for _, s := range []string{"openjdk", "temurin", "corretto", "zulu", "graalvm", "liberica"} {
		if strings.Contains(img, s) {
			return true
		}
	}
	for _, t := range strings.FieldsFunc(img, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		switch t {
		case "java", "jdk", "jre", "jvm":
			return true
		}
	}
	if len(c.Command) > 0 && (c.Command[0] == "java" || strings.HasSuffix(c.Command[0], "/java")) {
		return true
	}
	for _, e := range c.Env {
		switch e.Name {
		case "JAVA_OPTS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS":
			return true
		}
	}
	if p := c.LivenessProbe; p != nil && p.HTTPGet != nil && strings.HasPrefix(p.HTTPGet.Path, "/actuator/") {
		return true
	}
	return false
}

// mayServe reports whether w may take traffic through a Service: when the
// input holds Services, one of them must select w's pods; when it holds
// none, nothing says otherwise.
func mayServe(inv *inventory.Inventory, svcs map[string][]*corev1.Service, w workload) bool {
	if len(inv.Services) == 0 {
		return true
	}
	for _, s := range svcs[w.Ref.Namespace] {
		if mapSelects(s.Spec.Selector, w.Template.Labels) {
			return true
		}
	}
	return false
}

func livenessSameAsReadiness() *Check {
	c := &Check{
		ID:       "liveness-same-as-readiness",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Liveness probe is the same check as the readiness probe",
			KO: "liveness 프로브가 readiness 프로브와 같은 검사를 함",
		},
		Remediation: incidentlib.Text{
			EN: "Make the two probes answer different questions: readiness checks what the pod needs to serve (its dependencies, a warm cache, a free connection pool) and takes it out of rotation; liveness only checks that the process itself still runs (a cheap endpoint that touches no dependency), with a longer window. A pod that is slow or whose database is overloaded should stop getting traffic, not be restarted.",
			KO: "두 프로브가 서로 다른 것을 묻게 하세요. readiness는 파드가 요청을 처리하는 데 필요한 것(의존 서비스, 데워진 캐시, 여유 있는 커넥션 풀)을 확인해 트래픽에서 빼는 용도이고, liveness는 프로세스 자체가 살아 있는지만 확인해야 합니다(의존 서비스를 건드리지 않는 가벼운 엔드포인트, 더 긴 허용 시간). 느려졌거나 데이터베이스가 과부하된 파드는 재시작할 것이 아니라 트래픽에서 빼야 합니다.",
		},
		LooksAt: incidentlib.Text{
			EN: "The containers of Deployments and StatefulSets that have both a liveness and a readiness probe and take traffic: a Service of the input selects their pods (when the input holds no Service at all, every one is looked at). When both probes run the same handler (the same HTTP path and port, TCP port, gRPC service or command), the workload is reported: whatever makes the pod unready, an overloaded dependency included, then also makes the kubelet restart it, and restarts under load remove capacity and add connection storms instead of shedding load. DaemonSets are left out: a per-node agent serves its node, not a pool of replicas that traffic can move away from.",
			KO: "liveness와 readiness 프로브를 모두 가진 Deployment와 StatefulSet 컨테이너 가운데 트래픽을 받는 것, 곧 입력의 Service가 파드를 고르는 것을 봅니다(입력에 Service가 하나도 없으면 모두 봅니다). 두 프로브가 같은 핸들러(같은 HTTP 경로와 포트, TCP 포트, gRPC 서비스, 명령)를 실행하면 보고합니다. 그러면 파드를 unready로 만드는 모든 것, 과부하된 의존 서비스까지도 kubelet의 재시작으로 이어지고, 부하 중의 재시작은 부하를 덜기는커녕 용량을 줄이고 연결 폭주를 더합니다. DaemonSet은 보지 않습니다. 노드마다 도는 에이전트는 자기 노드를 맡을 뿐, 트래픽을 옮겨 줄 복제본 풀이 없기 때문입니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Different endpoints that check the same things inside the application, probes whose thresholds differ enough to matter (the handler alone is compared), and bare pods.",
			KO: "애플리케이션 안에서 같은 것을 확인하는 서로 다른 엔드포인트, 임계값이 충분히 달라 의미가 있는 프로브(핸들러만 비교합니다), 단독 파드는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{{inventory.Deployment, inventory.StatefulSet}},
		// Services only take findings away (a workload no Service selects
		// is left out); without them every workload is looked at.
		Optional: []inventory.Kind{inventory.Service},
		Citations: []Citation{
			{Case: "IL-0710",
				Quote:   "Update readiness checks to validate the dependencies that degraded under load, for example pinging the database instead of mirroring the liveness check.",
				QuoteKO: "readiness 체크가 liveness 체크를 그대로 따라 하지 말고, 부하에서 나빠졌던 의존성(예 데이터베이스 ping)을 확인하도록 바꾼다."},
			{Case: "IL-0854",
				Quote:   "With no connections to spare, the service could not answer its health checks, so Kubernetes restarted it again and again, each time before it had a chance to settle.",
				QuoteKO: "남은 연결이 없으니 서비스는 헬스체크에 답하지 못했고, 쿠버네티스는 서비스가 안정될 틈도 없이 재시작을 거듭했다."},
			{Case: "IL-0709",
				Quote:   "health-check restarts under load remove capacity exactly when it is needed.",
				QuoteKO: "부하 중의 헬스 체크 재시작은 용량이 가장 필요한 순간에 용량을 빼 버린다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		svcs := servicesIn(inv)
		for _, w := range workloads(inv) {
			// A per-node agent (a DaemonSet) serves its own node, not a pool of
			// replicas that traffic can be moved away from, and a workload that
			// no Service of the input selects takes no traffic to shed.
			if !isLongRunning(w) || w.Ref.Kind == "DaemonSet" || !mayServe(inv, svcs, w) {
				continue
			}
			var same []string
			for _, ctr := range w.Template.Spec.Containers {
				l, r := ctr.LivenessProbe, ctr.ReadinessProbe
				if l != nil && r != nil && equality.Semantic.DeepEqual(l.ProbeHandler, r.ProbeHandler) {
					same = append(same, ctr.Name)
				}
			}
			if len(same) == 0 {
				continue
			}
			l := strings.Join(same, ", ")
			out = append(out, c.findingAt(0, w.Ref, containerPath(w.Ref.Kind, w.Template, same[0])+".livenessProbe",
				fmt.Sprintf("container %s: liveness and readiness run the same check, so a pod that is merely overloaded or whose dependency is slow is restarted instead of taken out of rotation", l),
				fmt.Sprintf("컨테이너 %s: liveness와 readiness가 같은 검사를 합니다. 과부하이거나 의존 서비스가 느릴 뿐인 파드가 트래픽에서 빠지는 대신 재시작됩니다", l)))
		}
		return out
	}
	return c
}

func livenessShortWindow() *Check {
	c := &Check{
		ID:       "liveness-short-window",
		Severity: Low,
		Title: incidentlib.Text{
			EN: "Liveness probe kills a container after less than 30 seconds without an answer, or a JVM after 30",
			KO: "liveness 프로브가 30초 미만의 무응답에도, JVM이면 30초 무응답에도 컨테이너를 죽임",
		},
		Remediation: incidentlib.Text{
			EN: "Give the liveness probe a window (periodSeconds × failureThreshold) well beyond the longest pause the process can have and survive: garbage collection, an agent being attached, a burst of load, a slow node. Use a startupProbe for slow starts, and readiness, not liveness, to take a busy pod out of rotation. Test images on every node architecture you run, since a stall may only happen on one.",
			KO: "liveness 프로브의 허용 시간(periodSeconds × failureThreshold)을 프로세스가 겪고도 살아날 수 있는 가장 긴 멈춤(가비지 컬렉션, 에이전트 부착, 부하 폭증, 느린 노드)보다 넉넉히 길게 잡으세요. 느린 기동에는 startupProbe를 쓰고, 바쁜 파드를 트래픽에서 빼는 일은 liveness가 아니라 readiness에 맡기세요. 멈춤이 한 아키텍처에서만 생길 수 있으니, 운영하는 모든 노드 아키텍처에서 이미지를 시험하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The liveness probes of Deployment, StatefulSet and DaemonSet containers, and how long they let a container stop answering before the kubelet kills it: periodSeconds × failureThreshold (10 s × 3 by default). A window shorter than the default 30 seconds is reported for every container. The default window itself is reported only where the cited incident's condition holds, a JVM (a JVM image, a java command, a JAVA_OPTS-style variable or a Spring Boot Actuator probe path): its JVM stalled for about 75 seconds. A process that pauses longer than its window, even once it has started and even when it would recover, is killed mid-pause and restarted, and when every replica pauses the same way the restarts never end.",
			KO: "Deployment, StatefulSet, DaemonSet 컨테이너의 liveness 프로브가 컨테이너가 응답하지 않아도 kubelet이 죽이지 않고 기다리는 시간 periodSeconds × failureThreshold(기본 10초 × 3)를 봅니다. 기본값 30초보다 짧으면 어느 컨테이너든 보고합니다. 기본값 30초 자체는 인용한 장애의 조건, 곧 JVM(JVM 이미지, java 명령, JAVA_OPTS 류 환경 변수, Spring Boot Actuator 프로브 경로)일 때만 보고합니다. 그 장애의 JVM은 약 75초 동안 멈췄습니다. 허용 시간보다 오래 멈추는 프로세스는 기동을 마친 뒤라도, 스스로 회복할 수 있더라도 멈춘 도중에 죽어 재시작되고, 모든 복제본이 같은 식으로 멈추면 재시작이 끝나지 않습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "How long the process really pauses (many never pause for 30 seconds), JVMs whose spec does not show them (a custom image with no JVM option variable), other runtimes that pause as long, the probe's timeoutSeconds against the endpoint's latency, and probes kept in bare pods.",
			KO: "프로세스가 실제로 얼마나 멈추는지(30초씩 멈추지 않는 프로세스가 많습니다), 스펙에 드러나지 않는 JVM(JVM 옵션 환경 변수가 없는 자체 이미지), 그만큼 오래 멈추는 다른 런타임, 엔드포인트 지연에 견준 프로브의 timeoutSeconds, 단독 파드의 프로브는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{longRunning},
		Citations: []Citation{
			{Case: "IL-0564",
				Quote:   "On ARM64 the JVM becomes completely unresponsive for about 75 seconds after the failed load, while the gateway's liveness probe tolerates only 30 seconds, so kubelet kills each pod mid-stall and restarts it, forever.",
				QuoteKO: "ARM64 에서는 로드 실패 뒤 JVM 이 약 75초 동안 완전히 응답하지 않는데, 게이트웨이의 liveness 프로브는 30초까지만 참아 주므로 kubelet 이 멈춘 파드를 죽이고 다시 띄우기를 끝없이 반복한다."},
			{Case: "IL-0854",
				Quote:   "At 08:00 UTC they adjusted the health check thresholds so the service had time to recover",
				QuoteKO: "08시에는 서비스가 회복할 시간을 벌도록 헬스체크 임계값을 조정하고"},
			{Case: "IL-0855",
				Quote:   "Starved, they stopped answering their health checks for a while and were restarted again and again.",
				QuoteKO: "CPU 가 모자란 파드는 한동안 헬스체크에 응답하지 못했고 재시작을 거듭했다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			if !isLongRunning(w) {
				continue
			}
			var short []string
			first := ""
			for _, ctr := range w.Template.Spec.Containers {
				p := ctr.LivenessProbe
				if p == nil {
					continue
				}
				n := len(short)
				switch win := livenessWindow(p); {
				case win < shortLiveness:
					short = append(short, fmt.Sprintf("%s (%ds)", ctr.Name, win))
				case win == shortLiveness && isJVM(&ctr):
					short = append(short, fmt.Sprintf("%s (%ds, a JVM)", ctr.Name, win))
				}
				if n == 0 && len(short) == 1 {
					first = ctr.Name
				}
			}
			if len(short) == 0 {
				continue
			}
			l := strings.Join(short, ", ")
			out = append(out, c.findingAt(0, w.Ref, containerPath(w.Ref.Kind, w.Template, first)+".livenessProbe",
				fmt.Sprintf("liveness probe of container %s kills it after that long without an answer: a longer pause under load or at an agent attach becomes a restart loop", l),
				fmt.Sprintf("컨테이너 %s의 liveness 프로브는 그 시간만 응답이 없어도 컨테이너를 죽입니다. 부하나 에이전트 부착으로 그보다 오래 멈추면 재시작이 반복됩니다", l)))
		}
		return out
	}
	return c
}

// readinessProbeMissing builds the readiness-probe-missing check.
func readinessProbeMissing() *Check {
	c := &Check{
		ID:       "readiness-probe-missing",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Container behind a Service has no readiness probe",
			KO: "Service 뒤의 컨테이너에 readiness 프로브가 없음",
		},
		Remediation: incidentlib.Text{
			EN: "Give every container that serves a Service's port a readiness probe that checks what the pod needs to answer requests (its port, and the dependency it cannot work without), with a window of seconds, so that a pod that cannot serve leaves the Service's endpoints quickly and a new one gets traffic only when it is ready.",
			KO: "Service 포트를 맡는 모든 컨테이너에, 파드가 요청에 답하는 데 필요한 것(그 포트와, 없으면 일할 수 없는 의존 서비스)을 확인하는 readiness 프로브를 몇 초 단위의 허용 시간으로 두세요. 그래야 일할 수 없는 파드가 Service 엔드포인트에서 빨리 빠지고, 새 파드는 준비가 됐을 때에만 트래픽을 받습니다.",
		},
		LooksAt: incidentlib.Text{
			EN: "Deployments and StatefulSets whose pods a Service of the input selects, and the containers that serve the Service's target ports (matched by port number or name; when no container declares a matching port, every container that declares ports, or the first). Such a container with no readiness probe counts as ready as soon as it starts, so the Service sends requests to a pod that cannot answer them yet, or no longer can. Services that only expose metrics for scraping (a name ending in -metrics, or only ports whose names mention metrics) are left out.",
			KO: "입력의 Service가 파드를 고르는 Deployment와 StatefulSet, 그리고 Service의 targetPort를 맡는 컨테이너(포트 번호나 이름으로 맞춥니다. 맞는 포트를 밝힌 컨테이너가 없으면 포트를 밝힌 모든 컨테이너, 그것도 없으면 첫 컨테이너)를 봅니다. 그런 컨테이너에 readiness 프로브가 없으면 뜨자마자 준비된 것으로 치므로, Service는 아직 답할 수 없거나 더는 답할 수 없는 파드로 요청을 보냅니다. 스크레이핑용 메트릭만 내놓는 Service(이름이 -metrics로 끝나거나, 포트 이름이 모두 metrics를 담은 것)는 보지 않습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Whether an existing probe checks the right thing or reacts fast enough, Services that select pods of other kinds, and traffic that reaches pods without a Service.",
			KO: "있는 프로브가 제대로 된 것을 확인하는지, 충분히 빨리 반응하는지, 다른 종류의 파드를 고르는 Service, Service를 거치지 않고 파드에 닿는 트래픽은 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.Service},
		AnyOf: [][]inventory.Kind{{inventory.Deployment, inventory.StatefulSet}},
		Citations: []Citation{
			{Case: "IL-0428",
				Quote:   "Liveness and readiness probes were not configured properly, so Kubernetes kept sending traffic to crash-looping pods for up to 45 minutes.",
				QuoteKO: "liveness, readiness probe 설정도 잘못돼 있어 Kubernetes 는 최대 45분 동안 크래시 루프 중인 파드로 트래픽을 보냈다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		byNS := servicesIn(inv)
		for _, w := range workloads(inv) {
			if w.Ref.Kind != "Deployment" && w.Ref.Kind != "StatefulSet" {
				continue
			}
			var svcs []string
			var missing []string
			seen := map[string]bool{}
			for _, s := range byNS[w.Ref.Namespace] {
				if !mapSelects(s.Spec.Selector, w.Template.Labels) || metricsOnly(s) {
					continue
				}
				svcs = append(svcs, s.Name)
				for _, ctr := range servingContainers(s, w.Template.Spec.Containers) {
					if ctr.ReadinessProbe == nil && !seen[ctr.Name] {
						seen[ctr.Name] = true
						missing = append(missing, ctr.Name)
					}
				}
			}
			if len(missing) == 0 {
				continue
			}
			l, sv := strings.Join(missing, ", "), strings.Join(svcs, ", ")
			out = append(out, c.findingAt(0, w.Ref, containerPath(w.Ref.Kind, w.Template, missing[0]),
				fmt.Sprintf("container %s serves Service %s with no readiness probe: a pod gets traffic as soon as it starts, ready or not", l, sv),
				fmt.Sprintf("컨테이너 %s는 readiness 프로브 없이 Service %s를 맡습니다. 파드는 준비가 됐든 안 됐든 뜨자마자 트래픽을 받습니다", l, sv)))
		}
		return out
	}
	return c
}

// metricsOnly reports whether a Service only exposes metrics for scraping
// (its name ends in -metrics, or every port's name mentions metrics): it
// carries no requests of users, whose failure the cited case shows.
func metricsOnly(s *corev1.Service) bool {
	if strings.HasSuffix(s.Name, "-metrics") {
		return true
	}
	for _, p := range s.Spec.Ports {
		if !strings.Contains(p.Name, "metrics") {
			return false
		}
	}
	return len(s.Spec.Ports) > 0
}

// servingContainers returns the containers that serve s's target ports:
// those declaring a matching port (by number or name); failing that, those
// declaring any port; failing that, the first.
func servingContainers(s *corev1.Service, ctrs []corev1.Container) []corev1.Container {
	if len(ctrs) == 0 {
		return nil
	}
	var match, declare []corev1.Container
	for _, ctr := range ctrs {
		if len(ctr.Ports) > 0 {
			declare = append(declare, ctr)
		}
	ports:
		for _, cp := range ctr.Ports {
			for _, sp := range s.Spec.Ports {
				tp := sp.TargetPort
				if tp.String() == "0" || tp.String() == "" {
					tp = intstr.FromInt32(sp.Port)
				}
				if (tp.Type == intstr.Int && tp.IntVal == cp.ContainerPort) || (tp.Type == intstr.String && tp.StrVal == cp.Name) {
					match = append(match, ctr)
					break ports
				}
			}
		}
	}
	switch {
	case len(match) > 0:
		return match
	case len(declare) > 0:
		return declare
	}
	return ctrs[:1]
}
