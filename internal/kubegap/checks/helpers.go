package checks

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// workload is anything with a pod template.
type workload struct {
	Ref      inventory.Ref
	Meta     *metav1.ObjectMeta
	Template *corev1.PodTemplateSpec
	// Replicas is the desired count; -1 for a DaemonSet (one a node).
	Replicas int
	Selector *metav1.LabelSelector
}

func replicas(p *int32) int {
	if p == nil {
		return 1 // the API server's default
	}
	return int(*p)
}

func ref(kind, ns, name string) inventory.Ref {
	return inventory.Ref{Kind: kind, Namespace: ns, Name: name}
}

// workloads lists the pod-carrying objects of inv that were read.
func workloads(inv *inventory.Inventory) []workload {
	var out []workload
	for _, d := range inv.Deployments {
		out = append(out, workload{ref("Deployment", d.Namespace, d.Name), &d.ObjectMeta, &d.Spec.Template, replicas(d.Spec.Replicas), d.Spec.Selector})
	}
	for _, s := range inv.StatefulSets {
		out = append(out, workload{ref("StatefulSet", s.Namespace, s.Name), &s.ObjectMeta, &s.Spec.Template, replicas(s.Spec.Replicas), s.Spec.Selector})
	}
	for _, d := range inv.DaemonSets {
		out = append(out, workload{ref("DaemonSet", d.Namespace, d.Name), &d.ObjectMeta, &d.Spec.Template, -1, d.Spec.Selector})
	}
	for _, j := range inv.Jobs {
		if len(j.OwnerReferences) > 0 {
			continue // a CronJob's run: the CronJob is reported instead
		}
		out = append(out, workload{ref("Job", j.Namespace, j.Name), &j.ObjectMeta, &j.Spec.Template, 1, j.Spec.Selector})
	}
	for _, c := range inv.CronJobs {
		out = append(out, workload{ref("CronJob", c.Namespace, c.Name), &c.ObjectMeta, &c.Spec.JobTemplate.Spec.Template, 1, nil})
	}
	return out
}

// selectorMatches reports whether sel selects the labels set. A nil or
// empty selector selects nothing here (as for PDBs and Services that have
// none).
func selectorMatches(sel *metav1.LabelSelector, set map[string]string) bool {
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false
	}
	return s.Matches(labels.Set(set))
}

// mapSelects reports whether the equality selector sel (a Service's) selects
// set. An empty selector selects nothing.
func mapSelects(sel, set map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if set[k] != v {
			return false
		}
	}
	return true
}

func imageName(img string) string {
	if i := strings.LastIndex(img, "@"); i >= 0 {
		img = img[:i]
	}
	if i := strings.LastIndex(img, ":"); i > strings.LastIndex(img, "/") {
		img = img[:i]
	}
	return img
}

// imageIs reports whether some container image's last path element is one
// of names.
func imageIs(img string, names ...string) bool {
	base := imageName(img)
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[i+1:]
	}
	for _, n := range names {
		if base == n {
			return true
		}
	}
	return false
}

// clusterDNS returns the workloads that serve cluster DNS: the CoreDNS or
// kube-dns Deployment in kube-system.
func clusterDNS(inv *inventory.Inventory) []workload {
	var out []workload
	for _, w := range workloads(inv) {
		if w.Ref.Kind != "Deployment" || w.Ref.Namespace != "kube-system" {
			continue
		}
		if isClusterDNS(w) {
			out = append(out, w)
		}
	}
	return out
}

func isClusterDNS(w workload) bool {
	if w.Ref.Name == "coredns" || w.Ref.Name == "kube-dns" {
		return true
	}
	if w.Template.Labels["k8s-app"] == "kube-dns" {
		return true
	}
	for _, c := range w.Template.Spec.Containers {
		if imageIs(c.Image, "coredns") {
			return true
		}
	}
	return false
}

// nodeLocalDNS returns the node-local DNS cache DaemonSets.
func nodeLocalDNS(inv *inventory.Inventory) []workload {
	var out []workload
	for _, w := range workloads(inv) {
		if w.Ref.Kind != "DaemonSet" {
			continue
		}
		hit := w.Ref.Name == "node-local-dns" || w.Template.Labels["k8s-app"] == "node-local-dns"
		for _, c := range w.Template.Spec.Containers {
			if imageIs(c.Image, "k8s-dns-node-cache", "dns-node-cache") {
				hit = true
			}
		}
		if hit {
			out = append(out, w)
		}
	}
	return out
}

func memLimit(c *corev1.Container) (resource.Quantity, bool) {
	q, ok := c.Resources.Limits[corev1.ResourceMemory]
	return q, ok && !q.IsZero()
}

func mib(b int64) string {
	return resource.NewQuantity(b, resource.BinarySI).String()
}

func gib(b int64) float64 { return float64(b) / (1 << 30) }

// serviceAccount returns the service account a pod template runs as.
func serviceAccount(t *corev1.PodTemplateSpec) string {
	if t.Spec.ServiceAccountName != "" {
		return t.Spec.ServiceAccountName
	}
	if t.Spec.DeprecatedServiceAccount != "" {
		return t.Spec.DeprecatedServiceAccount
	}
	return "default"
}

// estimatedPods is the number of pods the cluster runs: counted when pods
// were read, else summed from the workloads.
func estimatedPods(inv *inventory.Inventory) int {
	if c, ok := inv.Counts[inventory.Pod]; ok && c.N > 0 {
		return c.N
	}
	n := 0
	for _, d := range inv.Deployments {
		n += replicas(d.Spec.Replicas)
	}
	for _, s := range inv.StatefulSets {
		n += replicas(s.Spec.Replicas)
	}
	for _, d := range inv.DaemonSets {
		if d.Status.DesiredNumberScheduled > 0 {
			n += int(d.Status.DesiredNumberScheduled)
		} else {
			n += len(inv.Nodes)
		}
	}
	return n
}

// podSpecPath is the path of w's pod spec in its manifest.
func podSpecPath(kind string) string {
	if kind == "CronJob" {
		return "spec.jobTemplate.spec.template.spec"
	}
	return "spec.template.spec"
}

// containerPath is the path of the container named name in w's pod spec
// (an init container too), or of the pod spec when none has that name.
func containerPath(kind string, t *corev1.PodTemplateSpec, name string) string {
	for i, c := range t.Spec.Containers {
		if c.Name == name {
			return fmt.Sprintf("%s.containers[%d]", podSpecPath(kind), i)
		}
	}
	for i, c := range t.Spec.InitContainers {
		if c.Name == name {
			return fmt.Sprintf("%s.initContainers[%d]", podSpecPath(kind), i)
		}
	}
	return podSpecPath(kind)
}

// replicaCount says n replicas in English: "1 replica", "3 replicas".
func replicaCount(n int) string {
	return plural(n, "1 replica", fmt.Sprintf("%d replicas", n))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// servicesIn indexes inv's Services by namespace: a Service selects pods of
// its own namespace only, so a check compares it with those alone and stays
// linear in the size of the cluster.
func servicesIn(inv *inventory.Inventory) map[string][]*corev1.Service {
	m := map[string][]*corev1.Service{}
	for _, s := range inv.Services {
		m[s.Namespace] = append(m[s.Namespace], s)
	}
	return m
}

// workloadsIn indexes the workloads of the given kinds by namespace.
func workloadsIn(inv *inventory.Inventory, kinds ...string) map[string][]workload {
	m := map[string][]workload{}
	for _, w := range workloads(inv) {
		if slices.Contains(kinds, w.Ref.Kind) {
			m[w.Ref.Namespace] = append(m[w.Ref.Namespace], w)
		}
	}
	return m
}
