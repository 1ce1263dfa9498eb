package checks

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// resourceChecks are the checks of resources: a check of this file is listed here, and
// registry.go lists the files.
func resourceChecks() []*Check {
	return []*Check{
		noMemoryLimit(),
		prometheusStartupWindow(),
		jobRetriesUnboundedMemory(),
	}
}

// defaultMemoryLimit reports whether a LimitRange in ns gives containers a
// default memory limit.
func defaultMemoryLimit(inv *inventory.Inventory, ns string) bool {
	for _, lr := range inv.LimitRanges {
		if lr.Namespace != ns {
			continue
		}
		for _, it := range lr.Spec.Limits {
			if it.Type != corev1.LimitTypeContainer {
				continue
			}
			if q, ok := it.Default[corev1.ResourceMemory]; ok && !q.IsZero() {
				return true
			}
		}
	}
	return false
}

func unlimitedMemory(inv *inventory.Inventory, r inventory.Ref, t *corev1.PodTemplateSpec) []string {
	var out []string
	for i := range t.Spec.Containers {
		if _, ok := memLimit(&t.Spec.Containers[i]); !ok && !inv.FieldUnknown(r, fmt.Sprintf(".containers[%d].resources.limits.memory", i)) {
			out = append(out, t.Spec.Containers[i].Name)
		}
	}
	return out
}

// probeWindow is how many seconds a probe lets a container take before the
// kubelet restarts it.
func probeWindow(p *corev1.Probe) int64 {
	period, failures := int64(p.PeriodSeconds), int64(p.FailureThreshold)
	if period == 0 {
		period = 10
	}
	if failures == 0 {
		failures = 3
	}
	return int64(p.InitialDelaySeconds) + period*failures
}

// noMemoryLimit builds the no-memory-limit check.
func noMemoryLimit() *Check {
	m := &Check{
		ID:       "no-memory-limit",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Containers run without a memory limit and no namespace default",
			KO: "메모리 제한도 네임스페이스 기본값도 없이 실행되는 컨테이너",
		},
		Remediation: incidentlib.Text{
			EN: "Set a memory limit on every container, and give each namespace a LimitRange with a default memory limit (or enforce one with an admission policy), so that a new tool or rule cannot grow until the node's kernel kills processes (SystemOOM) and the node goes NotReady.",
			KO: "모든 컨테이너에 메모리 제한을 두고, 네임스페이스마다 기본 메모리 제한이 있는 LimitRange를 두거나(또는 어드미션 정책으로 강제해), 새 도구나 규칙이 노드 커널이 프로세스를 죽이고(SystemOOM) 노드가 NotReady가 될 때까지 커지지 못하게 하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The containers of every workload's pod template and the LimitRanges of its namespace. A workload with a container that has no memory limit, in a namespace with no LimitRange default for memory, is reported.",
			KO: "모든 워크로드 파드 템플릿의 컨테이너와 그 네임스페이스의 LimitRange를 봅니다. 메모리 기본값을 주는 LimitRange가 없는 네임스페이스에서 메모리 제한이 없는 컨테이너를 가진 워크로드를 보고합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Admission policies or mutating webhooks that add limits at creation, init containers, bare pods, and whether the node has enough memory reserved for the system (kube-reserved, eviction thresholds).",
			KO: "생성 시 제한을 붙이는 어드미션 정책이나 mutating 웹훅, init 컨테이너, 단독 파드, 노드가 시스템용 메모리를 충분히 예약했는지(kube-reserved, eviction 임계값)는 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.LimitRange},
		AnyOf: [][]inventory.Kind{allWorkloads},
		Citations: []Citation{
			{Case: "IL-0331",
				Quote:   "New ElastAlert rule drives unlimited pod memory up, nodes hit SystemOOM and go NotReady",
				QuoteKO: "새 ElastAlert 규칙으로 limit 없는 파드의 메모리가 치솟아 노드가 SystemOOM 을 겪고 NotReady 가 됐다"},
			{Case: "IL-0547",
				Quote:   "The report's explanation is that a build container probably used up the node's memory, since build pods had no memory limits at the time.",
				QuoteKO: "보고서의 설명은 당시 빌드 파드에 메모리 제한이 없어서 빌드 컨테이너 하나가 노드 메모리를 다 썼을 것이라는 추정이다."},
			{Case: "IL-0777",
				Quote:   "Without resource limits, one service's spike on the site could get the database on the same server OOM-killed.",
				QuoteKO: "리소스 한도가 없으니 사이트 한 서비스의 급증이 같은 서버의 데이터베이스를 OOM 으로 죽게 할 수 있었다."},
		},
	}
	m.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			names := unlimitedMemory(inv, w.Ref, w.Template)
			if len(names) == 0 || defaultMemoryLimit(inv, w.Ref.Namespace) {
				continue
			}
			l := strings.Join(names, ", ")
			out = append(out, m.findingAt(0, w.Ref, containerPath(w.Ref.Kind, w.Template, names[0])+".resources.limits",
				fmt.Sprintf("container %s has no memory limit and the namespace sets no default: its memory can grow until the node runs out", l),
				fmt.Sprintf("컨테이너 %s에 메모리 제한이 없고 네임스페이스 기본값도 없습니다. 노드 메모리가 바닥날 때까지 커질 수 있습니다", l)))
		}
		return out
	}
	return m
}

// prometheusStartupWindow builds the prometheus-startup-window check.
func prometheusStartupWindow() *Check {
	p := &Check{
		ID:       "prometheus-startup-window",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Prometheus gets 15 minutes or less to replay its WAL before the kubelet restarts it",
			KO: "Prometheus가 WAL을 재생할 시간이 15분 이하라서 kubelet이 먼저 재시작함",
		},
		Remediation: incidentlib.Text{
			EN: "Give Prometheus a startupProbe whose failureThreshold × periodSeconds comfortably exceeds the longest WAL replay you have measured (at the highest WAL count), restart it when the WAL is small, and test changes against a live-sized WAL.",
			KO: "측정한 가장 긴 WAL 재생 시간(WAL 수가 가장 많을 때)을 넉넉히 넘는 failureThreshold × periodSeconds의 startupProbe를 Prometheus에 주고, WAL이 작을 때 재시작하며, 변경은 운영 크기의 WAL로 시험하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Containers running the Prometheus image in StatefulSets and Deployments, and how long their startupProbe (or, without one, their livenessProbe) lets them start: initialDelaySeconds + failureThreshold × periodSeconds. A window of 15 minutes or less is reported: replaying a large WAL takes longer, the kubelet restarts Prometheus before it finishes, and it never comes up.",
			KO: "StatefulSet과 Deployment에서 Prometheus 이미지를 실행하는 컨테이너와, startupProbe(없으면 livenessProbe)가 기동에 허용하는 시간 initialDelaySeconds + failureThreshold × periodSeconds를 봅니다. 15분 이하면 보고합니다. 큰 WAL 재생은 그보다 오래 걸리고, kubelet이 끝나기 전에 Prometheus를 재시작해 영영 뜨지 못합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "The WAL's actual size and replay time (a small Prometheus starts well within 15 minutes), and other servers that replay logs at start (Loki, Thanos receive, databases).",
			KO: "WAL의 실제 크기와 재생 시간(작은 Prometheus는 15분 안에 충분히 뜹니다), 시작할 때 로그를 재생하는 다른 서버(Loki, Thanos receive, 데이터베이스)는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{{inventory.StatefulSet, inventory.Deployment}},
		Citations: []Citation{
			{Case: "IL-0416",
				Quote:   "The WAL count was high when Prometheus restarted, so replaying it took longer than the default startupProbe allowance of 15 minutes, and the container was restarted each time before the reload could finish.",
				QuoteKO: "재시작 시점의 WAL 개수가 많아 재생에 기본 startupProbe 허용 시간인 15분보다 오래 걸렸고, 그래서 재로드가 끝나기 전에 컨테이너가 매번 재시작됐다."},
		},
	}
	p.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			if w.Ref.Kind != "StatefulSet" && w.Ref.Kind != "Deployment" {
				continue
			}
			for _, c := range w.Template.Spec.Containers {
				if !imageIs(c.Image, "prometheus") {
					continue
				}
				probe, which := c.StartupProbe, "startupProbe"
				if probe == nil {
					probe, which = c.LivenessProbe, "livenessProbe"
				}
				if probe == nil {
					continue
				}
				if win := probeWindow(probe); win <= 15*60 {
					out = append(out, p.findingAt(0, w.Ref, containerPath(w.Ref.Kind, w.Template, c.Name)+"."+which,
						fmt.Sprintf("container %s: its %s restarts it after %ds, which a large WAL replay outlasts", c.Name, which, win),
						fmt.Sprintf("컨테이너 %s: %s가 %d초 뒤에 재시작시키는데, 큰 WAL 재생은 그보다 오래 걸립니다", c.Name, which, win)))
				}
			}
		}
		return out
	}
	return p
}

// deployHook reports whether a Job is a Helm or Argo CD hook: a step of an
// install or a sync (a certificate, a migration) that the tool runs and
// deletes, not a batch job of the workload.
func deployHook(ann map[string]string) bool {
	_, helm := ann["helm.sh/hook"]
	_, argo := ann["argocd.argoproj.io/hook"]
	return helm || argo
}

// jobRetriesUnboundedMemory builds the job-retries-unbounded-memory check.
func jobRetriesUnboundedMemory() *Check {
	j := &Check{
		ID:       "job-retries-unbounded-memory",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Job retries on new nodes with no memory limit",
			KO: "메모리 제한 없이 새 노드에서 재시도하는 Job",
		},
		Remediation: incidentlib.Text{
			EN: "Set memory (and CPU) limits on Job containers, set backoffLimit to the retries you really want (0 for a run that must not repeat), consider activeDeadlineSeconds and podFailurePolicy, and remember that restartPolicy: Never applies to the pod, not to the Job.",
			KO: "Job 컨테이너에 메모리(와 CPU) 제한을 두고, backoffLimit을 정말 원하는 재시도 수로(반복되면 안 되는 작업은 0) 정하고, activeDeadlineSeconds와 podFailurePolicy도 고려하세요. restartPolicy: Never는 Job이 아니라 파드에 적용됩니다.",
		},
		LooksAt: incidentlib.Text{
			EN: "Jobs and CronJobs whose backoffLimit is not 0 (the default is 6) and whose containers have no memory limit. When such a run exhausts its node, the node fails, and the Job controller starts a new pod on another node, which fails the same way, node after node. Jobs that are Helm or Argo CD hooks (the helm.sh/hook or argocd.argoproj.io/hook annotation) are left out: they are steps of an install or a sync, such as issuing a certificate, not the batch work of the cited case.",
			KO: "backoffLimit이 0이 아니고(기본값 6) 컨테이너에 메모리 제한이 없는 Job과 CronJob을 봅니다. 그런 실행이 노드를 고갈시키면 노드가 죽고, Job 컨트롤러가 다른 노드에 새 파드를 띄워 같은 식으로 노드를 하나씩 쓰러뜨립니다. Helm이나 Argo CD 훅인 Job(helm.sh/hook 또는 argocd.argoproj.io/hook 어노테이션)은 보지 않습니다. 인증서 발급처럼 설치나 동기화의 한 단계일 뿐, 인용한 장애의 배치 작업이 아니기 때문입니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "LimitRange defaults and admission policies that add limits, how much memory the job really uses, a hook Job that does heavy work (a large migration), and node auto-repair settings.",
			KO: "제한을 붙이는 LimitRange 기본값과 어드미션 정책, 작업이 실제로 쓰는 메모리, 무거운 일을 하는 훅 Job(큰 마이그레이션), 노드 자동 복구 설정은 보지 못합니다.",
		},
		Kinds: []inventory.Kind{inventory.LimitRange},
		AnyOf: [][]inventory.Kind{{inventory.Job, inventory.CronJob}},
		Citations: []Citation{
			{Case: "IL-0361",
				Quote:   "The job used up all the resources on its node, the node became unhealthy and was killed, and Kubernetes placed the job on another node, which met the same fate.",
				QuoteKO: "작업이 노드의 자원을 모두 써 버리자 노드가 비정상 상태가 되어 제거됐고, Kubernetes 는 작업을 다른 노드에 다시 배치했으며 그 노드도 같은 운명을 맞았다."},
		},
	}
	j.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		check := func(r inventory.Ref, backoff *int32, t *corev1.PodTemplateSpec) {
			if backoff != nil && *backoff == 0 {
				return
			}
			names := unlimitedMemory(inv, r, t)
			if len(names) == 0 || defaultMemoryLimit(inv, r.Namespace) {
				return
			}
			tries := 6
			if backoff != nil {
				tries = int(*backoff)
			}
			l := strings.Join(names, ", ")
			out = append(out, j.findingAt(0, r, containerPath(r.Kind, t, names[0])+".resources.limits",
				fmt.Sprintf("may retry %d times, each possibly on another node, while container %s has no memory limit", tries, l),
				fmt.Sprintf("최대 %d번 재시도하며 매번 다른 노드로 갈 수 있는데, 컨테이너 %s에 메모리 제한이 없습니다", tries, l)))
		}
		for _, jb := range inv.Jobs {
			if len(jb.OwnerReferences) > 0 || deployHook(jb.Annotations) {
				continue
			}
			check(ref("Job", jb.Namespace, jb.Name), jb.Spec.BackoffLimit, &jb.Spec.Template)
		}
		for _, cj := range inv.CronJobs {
			check(ref("CronJob", cj.Namespace, cj.Name), cj.Spec.JobTemplate.Spec.BackoffLimit, &cj.Spec.JobTemplate.Spec.Template)
		}
		return out
	}
	return j
}
