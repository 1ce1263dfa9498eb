package checks

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// specChecks are the checks of what the API server itself would refuse: a
// check of this file is listed here, and registry.go lists the files.
func specChecks() []*Check {
	return []*Check{
		workloadSpecInvalid(),
	}
}

// specProblem is one rule of the API server's validation an object breaks.
type specProblem struct {
	field  string // where, as the manifest writes it
	en, ko string
}

// workloadSpecProblems returns what the API server's validation of w would
// refuse, in manifest order: the rules of apps/v1 and of pod templates that
// a manifest written by hand or by a template breaks most often. Fields
// left out because they held unrendered template text are unknown, and no
// rule judges them.
func workloadSpecProblems(inv *inventory.Inventory, w workload) []specProblem {
	var out []specProblem
	unknown := func(suffix string) bool { return inv.FieldUnknown(w.Ref, suffix) }
	switch w.Ref.Kind {
	case "Deployment", "StatefulSet", "DaemonSet":
		sel := w.Selector
		switch {
		case unknown("spec.selector"):
		case sel == nil:
			out = append(out, specProblem{"spec.selector",
				"spec.selector is missing, and apps/v1 requires it",
				"apps/v1이 요구하는 spec.selector가 없습니다"})
		case len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0:
			out = append(out, specProblem{"spec.selector",
				"spec.selector is empty, which the API server refuses",
				"spec.selector가 비어 있어 API 서버가 거부합니다"})
		case !unknown("template.metadata.labels") && !selectorMatches(sel, w.Template.Labels):
			out = append(out, specProblem{"spec.template.metadata.labels",
				"spec.selector does not match the pod template's labels",
				"spec.selector가 파드 템플릿의 레이블과 맞지 않습니다"})
		}
	}
	spec := podSpecPath(w.Ref.Kind)
	if len(w.Template.Spec.Containers) == 0 && !unknown("spec.containers") {
		out = append(out, specProblem{spec + ".containers",
			"the pod template has no containers",
			"파드 템플릿에 컨테이너가 없습니다"})
	}
	names := map[string]bool{}
	judge := func(list string, cs []corev1.Container) {
		for i := range cs {
			c := &cs[i]
			at := fmt.Sprintf("%s.%s[%d]", spec, list, i)
			rel := fmt.Sprintf(".%s[%d]", list, i)
			switch {
			case c.Name == "" && !unknown(rel+".name"):
				out = append(out, specProblem{at,
					fmt.Sprintf("%s[%d] has no name", list, i),
					fmt.Sprintf("%s[%d]에 이름이 없습니다", list, i)})
			case c.Name != "" && names[c.Name]:
				out = append(out, specProblem{at + ".name",
					fmt.Sprintf("container name %q is used twice", c.Name),
					fmt.Sprintf("컨테이너 이름 %q가 두 번 쓰였습니다", c.Name)})
			}
			names[c.Name] = true
			if c.Image == "" && !unknown(rel+".image") {
				out = append(out, specProblem{at,
					fmt.Sprintf("%s has no image", containerLabel(list, i, c)),
					fmt.Sprintf("%s에 이미지가 없습니다", containerLabel(list, i, c))})
			}
			if unknown(rel + ".resources") {
				continue
			}
			var res []string
			for r := range c.Resources.Requests {
				res = append(res, string(r))
			}
			sort.Strings(res)
			for _, r := range res {
				req := c.Resources.Requests[corev1.ResourceName(r)]
				lim, ok := c.Resources.Limits[corev1.ResourceName(r)]
				if !ok || req.Cmp(lim) <= 0 || unknown(rel+".resources.limits."+r) || unknown(rel+".resources.requests."+r) {
					continue
				}
				out = append(out, specProblem{at + ".resources.requests." + r,
					fmt.Sprintf("%s requests %s %s, more than its limit %s", containerLabel(list, i, c), req.String(), r, lim.String()),
					fmt.Sprintf("%s의 %s 요청 %s가 한도 %s보다 큽니다", containerLabel(list, i, c), r, req.String(), lim.String())})
			}
		}
	}
	judge("initContainers", w.Template.Spec.InitContainers)
	judge("containers", w.Template.Spec.Containers)
	return out
}

// containerLabel names a container for a message: by its name, or by its
// place when it has none.
func containerLabel(list string, i int, c *corev1.Container) string {
	if c.Name != "" {
		return "container " + c.Name
	}
	return fmt.Sprintf("%s[%d]", list, i)
}

// workloadSpecInvalid builds the workload-spec-invalid check.
func workloadSpecInvalid() *Check {
	c := &Check{
		ID:       "workload-spec-invalid",
		Severity: High,
		Title: incidentlib.Text{
			EN: "Workload manifest the API server would refuse: a required field missing or a rule of its spec broken",
			KO: "API 서버가 거부할 워크로드 매니페스트: 필수 필드가 빠졌거나 스펙 규칙을 어김",
		},
		Remediation: incidentlib.Text{
			EN: "Fix the manifest, and validate every manifest against the API before it is merged (kubectl apply --dry-run=server against a cluster of the target version, or this check in CI), so that a GitOps controller never starts a release that cannot finish: the cited release had already stopped the old version when the new one was refused.",
			KO: "매니페스트를 고치고, 병합하기 전에 모든 매니페스트를 API에 맞춰 검증하세요(대상 버전 클러스터에 kubectl apply --dry-run=server, 또는 CI에서 이 검사). 그래야 GitOps 컨트롤러가 끝날 수 없는 릴리스를 시작하지 않습니다. 인용한 릴리스는 새 버전이 거부됐을 때 이미 옛 버전을 멈춘 뒤였습니다.",
		},
		LooksAt: incidentlib.Text{
			EN: "Deployments, StatefulSets, DaemonSets, Jobs and CronJobs as written, for the rules of the API server's validation that hand-written and templated manifests break most: an apps/v1 workload without spec.selector, with an empty one or one that does not match its pod template's labels; a pod template without containers; a container without a name or an image; two containers of one name; a request above its limit. Objects read from a live cluster passed that validation and give no finding.",
			KO: "Deployment, StatefulSet, DaemonSet, Job, CronJob을 쓰인 그대로 보며, 손으로 쓰거나 템플릿으로 만든 매니페스트가 가장 자주 어기는 API 서버 검증 규칙을 봅니다. spec.selector가 없거나 비었거나 파드 템플릿 레이블과 맞지 않는 apps/v1 워크로드, 컨테이너가 없는 파드 템플릿, 이름이나 이미지가 없는 컨테이너, 이름이 같은 두 컨테이너, 한도보다 큰 요청입니다. 라이브 클러스터에서 읽은 오브젝트는 이미 이 검증을 통과했으므로 찾을 것이 없습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "The rest of the API's validation (name formats, port ranges, immutable fields on update, admission webhooks and policies), fields unknown to the Go types kubegap decodes into, and kinds other than these five. A server-side dry run sees all of it.",
			KO: "API 검증의 나머지(이름 형식, 포트 범위, 업데이트 때 바꿀 수 없는 필드, 어드미션 웹훅과 정책), kubegap이 디코드하는 Go 타입이 모르는 필드, 이 다섯 가지 밖의 종류는 보지 못합니다. 서버 측 dry run은 이 모두를 봅니다.",
		},
		AnyOf: [][]inventory.Kind{{inventory.Deployment, inventory.StatefulSet, inventory.DaemonSet, inventory.Job, inventory.CronJob}},
		Citations: []Citation{
			{Case: "IL-0700",
				Quote:   "The Kubernetes Deployment manifest in it lacked a field, so it did not follow the specification and could not be deployed.",
				QuoteKO: "그 안의 쿠버네티스 Deployment 매니페스트에 필드 하나가 빠져 있어 스펙에 맞지 않았고, 따라서 배포될 수 없었다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			ps := workloadSpecProblems(inv, w)
			if len(ps) == 0 {
				continue
			}
			en := make([]string, len(ps))
			ko := make([]string, len(ps))
			for i, p := range ps {
				en[i], ko[i] = p.en, p.ko
			}
			out = append(out, c.findingAt(0, w.Ref, ps[0].field,
				"the API server would refuse it: "+strings.Join(en, "; "),
				"API 서버가 거부할 것입니다. "+strings.Join(ko, "; ")))
		}
		return out
	}
	return c
}
