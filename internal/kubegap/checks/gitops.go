package checks

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// gitopsChecks are the checks of GitOps controllers' own objects: a check
// of this file is listed here, and registry.go lists the files.
func gitopsChecks() []*Check {
	return []*Check{
		argoCDAutomatedPrune(),
	}
}

// argoSyncPolicy returns the automated sync policy at path (the fields
// leading to an Argo CD Application spec's syncPolicy) of u, and whether
// automated sync is on: an automated block is on unless enabled is false.
func argoSyncPolicy(u *unstructured.Unstructured, path ...string) (automated map[string]any, on bool) {
	automated, found, err := unstructured.NestedMap(u.Object, append(path, "syncPolicy", "automated")...)
	if err != nil || !found {
		return nil, false
	}
	if enabled, ok := automated["enabled"].(bool); ok && !enabled {
		return automated, false
	}
	return automated, true
}

// argoCDAutomatedPrune builds the argocd-automated-prune check.
func argoCDAutomatedPrune() *Check {
	c := &Check{
		ID:       "argocd-automated-prune",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Argo CD application deletes what leaves git without review (automated prune)",
			KO: "Argo CD 애플리케이션이 git에서 빠진 것을 검토 없이 지움(자동 prune)",
		},
		Remediation: incidentlib.Text{
			EN: "Turn automated pruning off (syncPolicy.automated.prune: false, keeping automated sync if wanted) for applications whose namespaces also hold objects made outside git, such as operators' custom resources or user data, and prune by hand after reviewing what the sync would delete; or mark such objects with the annotation argocd.argoproj.io/sync-options: Prune=false. Keep allowEmpty false, so that a change which empties an application's source is not synced.",
			KO: "네임스페이스에 git 밖에서 만든 오브젝트(오퍼레이터의 커스텀 리소스, 사용자 데이터 같은 것)가 함께 있는 애플리케이션은 자동 prune을 끄고(syncPolicy.automated.prune: false, 자동 동기화는 원하면 유지), 동기화가 지울 것을 검토한 뒤 손으로 prune하세요. 또는 그런 오브젝트에 argocd.argoproj.io/sync-options: Prune=false 어노테이션을 다세요. allowEmpty는 false로 두어, 애플리케이션의 소스를 비우는 변경이 동기화되지 않게 하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "Argo CD Applications (argoproj.io/v1alpha1) and the Application template of ApplicationSets. With automated sync on and prune set, Argo CD deletes every resource of the application that a change removes from its source, at once and with no one looking: a bad overlay or template change deletes workloads and the data beside them. allowEmpty, which lets such a sync delete every resource of the application, makes it high.",
			KO: "Argo CD Application(argoproj.io/v1alpha1)과 ApplicationSet의 Application 템플릿을 봅니다. 자동 동기화가 켜져 있고 prune이 설정되어 있으면, Argo CD는 변경으로 소스에서 빠진 애플리케이션의 자원을 아무도 보지 않는 사이 한꺼번에 지웁니다. 잘못된 오버레이나 템플릿 변경 하나로 워크로드와 그 곁의 데이터가 지워집니다. 그런 동기화가 애플리케이션의 자원을 전부 지우도록 허용하는 allowEmpty가 있으면 높음으로 보고합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Whether the application's namespaces hold objects made outside git (the cited case's user registrations), resources marked Prune=false, and the deletion of a whole Application: when an ApplicationSet's generators stop producing one, its resources go too unless the ApplicationSet sets preserveResourcesOnDeletion. ApplicationSet templatePatch strings are not read.",
			KO: "애플리케이션의 네임스페이스에 git 밖에서 만든 오브젝트(인용한 사례의 사용자 등록)가 있는지, Prune=false로 표시한 자원, Application 자체의 삭제는 보지 못합니다. ApplicationSet의 생성기가 어떤 Application을 더 만들지 않으면, ApplicationSet이 preserveResourcesOnDeletion을 설정하지 않은 한 그 자원도 함께 지워집니다. ApplicationSet의 templatePatch 문자열은 읽지 않습니다.",
		},
		// The CRDs say whether Argo CD's kinds are served at all: with them
		// read, no Application means there is none, not that none could
		// be listed.
		Kinds: []inventory.Kind{inventory.CustomResourceDefinition},
		AnyOf: [][]inventory.Kind{{inventory.Application, inventory.ApplicationSet}},
		Citations: []Citation{
			{Case: "IL-0716",
				Quote:   "A bad overlay change made Argo CD delete the toolchain member applications and, with automated pruning, every resource in the toolchain-member-operator namespace",
				QuoteKO: "잘못된 오버레이 변경으로 Argo CD 가 toolchain member 애플리케이션을 지웠고, 자동 prune 때문에 toolchain-member-operator 네임스페이스의 자원이 모두 삭제됐다"},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		// judge reports u when the Application spec at spec (its fields'
		// path) syncs automatically with prune; what names the
		// applications concerned.
		judge := func(u *unstructured.Unstructured, kind string, what incidentlib.Text, spec ...string) {
			automated, on := argoSyncPolicy(u, spec...)
			if prune, _ := automated["prune"].(bool); !on || !prune {
				return
			}
			field := strings.Join(append(spec, "syncPolicy", "automated", "prune"), ".")
			sev, en, ko := Severity(0), "", ""
			if empty, _ := automated["allowEmpty"].(bool); empty {
				sev = High
				en = ", and allowEmpty lets one sync delete all of them"
				ko = " allowEmpty가 있어 한 번의 동기화로 전부 지울 수도 있습니다"
			}
			out = append(out, c.findingAt(sev, ref(kind, u.GetNamespace(), u.GetName()), field,
				fmt.Sprintf("%s syncs automatically with prune: a change that drops resources from its source deletes them from the cluster with no review%s", what.EN, en),
				fmt.Sprintf("%s prune과 함께 자동으로 동기화합니다. 소스에서 자원을 빼는 변경이 검토 없이 클러스터에서 그 자원을 지웁니다.%s", what.KO, ko)))
		}
		for _, a := range inv.Applications {
			judge(a, "Application", incidentlib.Text{EN: "the application", KO: "이 애플리케이션은"}, "spec")
		}
		for _, s := range inv.ApplicationSets {
			judge(s, "ApplicationSet", incidentlib.Text{EN: "every application it generates", KO: "이 ApplicationSet이 만드는 애플리케이션은 모두"}, "spec", "template", "spec")
		}
		return out
	}
	return c
}
