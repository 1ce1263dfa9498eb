package inventory

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Kind names one resource kind kubegap can read. Kinds served under more
// than one API version (BGPPeer) are one Kind with several Versions.
type Kind string

// The kinds kubegap reads. Secrets are deliberately absent.
const (
	Node                     Kind = "Node"
	Namespace                Kind = "Namespace"
	Pod                      Kind = "Pod"
	Service                  Kind = "Service"
	ConfigMap                Kind = "ConfigMap"
	LimitRange               Kind = "LimitRange"
	Deployment               Kind = "Deployment"
	StatefulSet              Kind = "StatefulSet"
	DaemonSet                Kind = "DaemonSet"
	Job                      Kind = "Job"
	CronJob                  Kind = "CronJob"
	HPA                      Kind = "HorizontalPodAutoscaler"
	PDB                      Kind = "PodDisruptionBudget"
	Ingress                  Kind = "Ingress"
	ClusterRole              Kind = "ClusterRole"
	ClusterRoleBinding       Kind = "ClusterRoleBinding"
	FlowSchema               Kind = "FlowSchema"
	PriorityLevel            Kind = "PriorityLevelConfiguration"
	ValidatingWebhook        Kind = "ValidatingWebhookConfiguration"
	MutatingWebhook          Kind = "MutatingWebhookConfiguration"
	CustomResourceDefinition Kind = "CustomResourceDefinition"
	BGPPeer                  Kind = "BGPPeer"
	AuthRequest              Kind = "AuthRequest"
	IPAMHandle               Kind = "IPAMHandle"
)

// KindInfo says where a kind is served and how kubegap reads it.
type KindInfo struct {
	Kind       string
	Group      string
	Versions   []string // preferred first
	Resource   string
	Namespaced bool
	// Namespace, when set, is the only namespace kubegap reads the kind in.
	Namespace string
	// CountOnly kinds are counted, never decoded: live mode reads them
	// through metadata-only lists.
	CountOnly bool
	// MetadataOnly kinds need only their metadata.
	MetadataOnly bool
	// Builtin kinds are served by every API server; the others come from
	// CRDs and may be absent, which means there are none.
	Builtin bool
	add     func(inv *Inventory, raw []byte) error
}

var kinds = map[Kind]KindInfo{
	Node:       {Kind: "Node", Versions: []string{"v1"}, Resource: "nodes", Builtin: true, add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.Nodes, raw) }},
	Namespace:  {Kind: "Namespace", Versions: []string{"v1"}, Resource: "namespaces", Builtin: true, MetadataOnly: true, add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.Namespaces, raw) }},
	Pod:        {Kind: "Pod", Versions: []string{"v1"}, Resource: "pods", Namespaced: true, Builtin: true, CountOnly: true},
	Service:    {Kind: "Service", Versions: []string{"v1"}, Resource: "services", Namespaced: true, Builtin: true, add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.Services, raw) }},
	ConfigMap:  {Kind: "ConfigMap", Versions: []string{"v1"}, Resource: "configmaps", Namespaced: true, Namespace: "kube-system", Builtin: true, add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.ConfigMaps, raw) }},
	LimitRange: {Kind: "LimitRange", Versions: []string{"v1"}, Resource: "limitranges", Namespaced: true, Builtin: true, add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.LimitRanges, raw) }},
	Deployment: {Kind: "Deployment", Group: "apps", Versions: []string{"v1"}, Resource: "deployments", Namespaced: true, Builtin: true, add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.Deployments, raw) }},
	StatefulSet: {Kind: "StatefulSet", Group: "apps", Versions: []string{"v1"}, Resource: "statefulsets", Namespaced: true, Builtin: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.StatefulSets, raw) }},
	DaemonSet: {Kind: "DaemonSet", Group: "apps", Versions: []string{"v1"}, Resource: "daemonsets", Namespaced: true, Builtin: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.DaemonSets, raw) }},
	Job:     {Kind: "Job", Group: "batch", Versions: []string{"v1"}, Resource: "jobs", Namespaced: true, Builtin: true, add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.Jobs, raw) }},
	CronJob: {Kind: "CronJob", Group: "batch", Versions: []string{"v1"}, Resource: "cronjobs", Namespaced: true, Builtin: true, add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.CronJobs, raw) }},
	HPA: {Kind: "HorizontalPodAutoscaler", Group: "autoscaling", Versions: []string{"v2"}, Resource: "horizontalpodautoscalers", Namespaced: true, Builtin: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.HPAs, raw) }},
	PDB: {Kind: "PodDisruptionBudget", Group: "policy", Versions: []string{"v1"}, Resource: "poddisruptionbudgets", Namespaced: true, Builtin: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.PDBs, raw) }},
	Ingress: {Kind: "Ingress", Group: "networking.k8s.io", Versions: []string{"v1"}, Resource: "ingresses", Namespaced: true, Builtin: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.Ingresses, raw) }},
	ClusterRole: {Kind: "ClusterRole", Group: "rbac.authorization.k8s.io", Versions: []string{"v1"}, Resource: "clusterroles", Builtin: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.ClusterRoles, raw) }},
	ClusterRoleBinding: {Kind: "ClusterRoleBinding", Group: "rbac.authorization.k8s.io", Versions: []string{"v1"}, Resource: "clusterrolebindings", Builtin: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.ClusterRoleBindings, raw) }},
	FlowSchema: {Kind: "FlowSchema", Group: "flowcontrol.apiserver.k8s.io", Versions: []string{"v1", "v1beta3"}, Resource: "flowschemas", Builtin: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.FlowSchemas, raw) }},
	PriorityLevel: {Kind: "PriorityLevelConfiguration", Group: "flowcontrol.apiserver.k8s.io", Versions: []string{"v1", "v1beta3"}, Resource: "prioritylevelconfigurations", Builtin: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.PriorityLevels, raw) }},
	ValidatingWebhook: {Kind: "ValidatingWebhookConfiguration", Group: "admissionregistration.k8s.io", Versions: []string{"v1"}, Resource: "validatingwebhookconfigurations", Builtin: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.ValidatingWebhooks, raw) }},
	MutatingWebhook: {Kind: "MutatingWebhookConfiguration", Group: "admissionregistration.k8s.io", Versions: []string{"v1"}, Resource: "mutatingwebhookconfigurations", Builtin: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.MutatingWebhooks, raw) }},
	CustomResourceDefinition: {Kind: "CustomResourceDefinition", Group: "apiextensions.k8s.io", Versions: []string{"v1"}, Resource: "customresourcedefinitions", Builtin: true, MetadataOnly: true,
		add: func(inv *Inventory, raw []byte) error { return appendDecoded(&inv.CRDs, raw) }},
	BGPPeer: {Kind: "BGPPeer", Group: "crd.projectcalico.org", Versions: []string{"v1"}, Resource: "bgppeers",
		add: func(inv *Inventory, raw []byte) error {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(raw); err != nil {
				return err
			}
			inv.BGPPeers = append(inv.BGPPeers, u)
			return nil
		}},
	AuthRequest: {Kind: "AuthRequest", Group: "dex.coreos.com", Versions: []string{"v1"}, Resource: "authrequests", Namespaced: true, CountOnly: true},
	IPAMHandle:  {Kind: "IPAMHandle", Group: "crd.projectcalico.org", Versions: []string{"v1"}, Resource: "ipamhandles", CountOnly: true},
}

// apiAliases lets the offline reader accept a kind under another group that
// serves the same shape (Calico's API server serves projectcalico.org/v3).
var apiAliases = map[string]Kind{
	"projectcalico.org/BGPPeer": BGPPeer,
}

// Info returns how kubegap reads k.
func Info(k Kind) KindInfo { return kinds[k] }

// All returns every kind kubegap can read, sorted.
func All() []Kind {
	out := make([]Kind, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Lookup maps an object's apiVersion and kind to a Kind kubegap reads.
// known is false for kinds no check reads.
func Lookup(apiVersion, kind string) (k Kind, known bool) {
	group := ""
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		group = apiVersion[:i]
	}
	if a, ok := apiAliases[group+"/"+kind]; ok {
		return a, true
	}
	info, ok := kinds[Kind(kind)]
	if !ok || info.Group != group {
		return "", false
	}
	return Kind(kind), true
}

// ResourceName is the group-qualified resource, as RBAC and kubectl name it.
func (i KindInfo) ResourceName() string {
	if i.Group == "" {
		return i.Resource
	}
	return i.Resource + "." + i.Group
}
