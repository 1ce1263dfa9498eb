package checks

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// probeChecks are the checks of probes: a check of this file is listed here, and
// registry.go lists the files.
func probeChecks() []*Check {
	return []*Check{
		livenessSameAsReadiness(),
		livenessShortWindow(),
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

// shortLiveness is the liveness window at or under which a stall of the
// kind the cited case saw (75 s) is answered with a restart.
const shortLiveness = 30

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
			EN: "The containers of Deployments, StatefulSets and DaemonSets that have both a liveness and a readiness probe. When both run the same handler (the same HTTP path and port, TCP port, gRPC service or command), the workload is reported: whatever makes the pod unready, an overloaded dependency included, then also makes the kubelet restart it, and restarts under load remove capacity and add connection storms instead of shedding load.",
			KO: "liveness와 readiness 프로브를 모두 가진 Deployment, StatefulSet, DaemonSet의 컨테이너를 봅니다. 두 프로브가 같은 핸들러(같은 HTTP 경로와 포트, TCP 포트, gRPC 서비스, 명령)를 실행하면 보고합니다. 그러면 파드를 준비되지 않은 상태로 만드는 원인이 무엇이든, 과부하된 의존 서비스까지 포함해, kubelet이 그 파드를 재시작하게 만듭니다. 부하 중의 재시작은 부하를 덜어 주기는커녕 처리 능력을 줄이고 연결 폭주를 더합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Different endpoints that check the same things inside the application, probes whose thresholds differ enough to matter (the handler alone is compared), and bare pods.",
			KO: "애플리케이션 안에서 같은 것을 확인하는 서로 다른 엔드포인트, 임계값이 충분히 달라 의미가 있는 프로브(핸들러만 비교합니다), 단독 파드는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{longRunning},
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
		for _, w := range workloads(inv) {
			if !isLongRunning(w) {
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
			out = append(out, c.finding(0, w.Ref,
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
			EN: "Liveness probe kills a container after 30 seconds or less without an answer",
			KO: "liveness 프로브가 30초 이하의 무응답에도 컨테이너를 죽임",
		},
		Remediation: incidentlib.Text{
			EN: "Give the liveness probe a window (periodSeconds × failureThreshold) well beyond the longest pause the process can have and survive: garbage collection, an agent being attached, a burst of load, a slow node. Use a startupProbe for slow starts, and readiness, not liveness, to take a busy pod out of rotation. Test images on every node architecture you run, since a stall may only happen on one.",
			KO: "liveness 프로브의 허용 시간(periodSeconds × failureThreshold)을 프로세스가 겪고도 살아날 수 있는 가장 긴 멈춤(가비지 컬렉션, 에이전트 부착, 부하 폭증, 느린 노드)보다 넉넉히 길게 잡으세요. 느린 기동에는 startupProbe를 쓰고, 바쁜 파드를 트래픽에서 빼는 일은 liveness가 아니라 readiness에 맡기세요. 멈춤이 한 아키텍처에서만 생길 수 있으니, 운영하는 모든 노드 아키텍처에서 이미지를 시험하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The liveness probes of Deployment, StatefulSet and DaemonSet containers, and how long they let a container stop answering before the kubelet kills it: periodSeconds × failureThreshold (10 s × 3 by default). A window of 30 seconds or less is reported: a process that pauses longer, even once it has started and even when it would recover, is killed mid-pause and restarted, and when every replica pauses the same way the restarts never end.",
			KO: "Deployment, StatefulSet, DaemonSet 컨테이너의 liveness 프로브가 컨테이너가 응답하지 않아도 kubelet이 죽이지 않고 기다리는 시간 periodSeconds × failureThreshold(기본 10초 × 3)를 봅니다. 30초 이하면 보고합니다. 그보다 오래 멈추는 프로세스는 기동을 마친 뒤라도, 스스로 회복할 수 있더라도 멈춘 도중에 죽어 재시작되고, 모든 복제본이 같은 식으로 멈추면 재시작이 끝나지 않습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "How long the process really pauses (many never pause for 30 seconds), the probe's timeoutSeconds against the endpoint's latency, and probes kept in bare pods.",
			KO: "프로세스가 실제로 얼마나 멈추는지(30초씩 멈추지 않는 프로세스가 많습니다), 엔드포인트 지연에 견준 프로브의 timeoutSeconds, 단독 파드의 프로브는 보지 못합니다.",
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
			for _, ctr := range w.Template.Spec.Containers {
				if p := ctr.LivenessProbe; p != nil && livenessWindow(p) <= shortLiveness {
					short = append(short, fmt.Sprintf("%s (%ds)", ctr.Name, livenessWindow(p)))
				}
			}
			if len(short) == 0 {
				continue
			}
			l := strings.Join(short, ", ")
			out = append(out, c.finding(0, w.Ref,
				fmt.Sprintf("liveness probe of container %s kills it after that long without an answer: a longer pause under load or at an agent attach becomes a restart loop", l),
				fmt.Sprintf("컨테이너 %s의 liveness 프로브는 그 시간만 응답이 없어도 컨테이너를 죽입니다. 부하나 에이전트 부착으로 그보다 오래 멈추면 재시작이 반복됩니다", l)))
		}
		return out
	}
	return c
}
