package inventory

import (
	"encoding/json"
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	Application              Kind = "Application"
	ApplicationSet           Kind = "ApplicationSet"
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
	codec
}

// codec decodes an object of a kind and files it in the inventory.
type codec struct {
	decode func(raw []byte) (metav1.Object, error)
	file   func(inv *Inventory, obj metav1.Object)
}

// typed is the codec of a kind decoded into its API type and filed in the
// list list returns.
func typed[T any, P interface {
	*T
	metav1.Object
}](list func(inv *Inventory) *[]P) codec {
	return codec{
		decode: func(raw []byte) (metav1.Object, error) {
			v := P(new(T))
			if err := json.Unmarshal(raw, v); err != nil {
				return nil, err
			}
			return v, nil
		},
		file: func(inv *Inventory, obj metav1.Object) {
			l := list(inv)
			*l = append(*l, obj.(P))
		},
	}
}

// untyped is the codec of a CRD kind kubegap has no Go type for, kept as
// unstructured content and filed in the list list returns.
func untyped(list func(inv *Inventory) *[]*unstructured.Unstructured) codec {
	return codec{
		decode: func(raw []byte) (metav1.Object, error) {
			// Unstructured takes any metadata; the typed decoders refuse a
			// bad one, and so must this.
			var m objectMeta
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, err
			}
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(raw); err != nil {
				return nil, err
			}
			return u, nil
		},
		file: func(inv *Inventory, obj metav1.Object) {
			l := list(inv)
			*l = append(*l, obj.(*unstructured.Unstructured))
		},
	}
}

var kinds = map[Kind]KindInfo{
	Node:       {Kind: "Node", Versions: []string{"v1"}, Resource: "nodes", Builtin: true, codec: typed(func(inv *Inventory) *[]*corev1.Node { return &inv.Nodes })},
	Namespace:  {Kind: "Namespace", Versions: []string{"v1"}, Resource: "namespaces", Builtin: true, MetadataOnly: true, codec: typed(func(inv *Inventory) *[]*metav1.PartialObjectMetadata { return &inv.Namespaces })},
	Pod:        {Kind: "Pod", Versions: []string{"v1"}, Resource: "pods", Namespaced: true, Builtin: true, CountOnly: true},
	Service:    {Kind: "Service", Versions: []string{"v1"}, Resource: "services", Namespaced: true, Builtin: true, codec: typed(func(inv *Inventory) *[]*corev1.Service { return &inv.Services })},
	ConfigMap:  {Kind: "ConfigMap", Versions: []string{"v1"}, Resource: "configmaps", Namespaced: true, Namespace: "kube-system", Builtin: true, codec: typed(func(inv *Inventory) *[]*corev1.ConfigMap { return &inv.ConfigMaps })},
	LimitRange: {Kind: "LimitRange", Versions: []string{"v1"}, Resource: "limitranges", Namespaced: true, Builtin: true, codec: typed(func(inv *Inventory) *[]*corev1.LimitRange { return &inv.LimitRanges })},
	Deployment: {Kind: "Deployment", Group: "apps", Versions: []string{"v1"}, Resource: "deployments", Namespaced: true, Builtin: true, codec: typed(func(inv *Inventory) *[]*appsv1.Deployment { return &inv.Deployments })},
	StatefulSet: {Kind: "StatefulSet", Group: "apps", Versions: []string{"v1"}, Resource: "statefulsets", Namespaced: true, Builtin: true,
		codec: typed(func(inv *Inventory) *[]*appsv1.StatefulSet { return &inv.StatefulSets })},
	DaemonSet: {Kind: "DaemonSet", Group: "apps", Versions: []string{"v1"}, Resource: "daemonsets", Namespaced: true, Builtin: true,
		codec: typed(func(inv *Inventory) *[]*appsv1.DaemonSet { return &inv.DaemonSets })},
	Job:     {Kind: "Job", Group: "batch", Versions: []string{"v1"}, Resource: "jobs", Namespaced: true, Builtin: true, codec: typed(func(inv *Inventory) *[]*batchv1.Job { return &inv.Jobs })},
	CronJob: {Kind: "CronJob", Group: "batch", Versions: []string{"v1"}, Resource: "cronjobs", Namespaced: true, Builtin: true, codec: typed(func(inv *Inventory) *[]*batchv1.CronJob { return &inv.CronJobs })},
	HPA: {Kind: "HorizontalPodAutoscaler", Group: "autoscaling", Versions: []string{"v2"}, Resource: "horizontalpodautoscalers", Namespaced: true, Builtin: true,
		codec: typed(func(inv *Inventory) *[]*autoscalingv2.HorizontalPodAutoscaler { return &inv.HPAs })},
	PDB: {Kind: "PodDisruptionBudget", Group: "policy", Versions: []string{"v1"}, Resource: "poddisruptionbudgets", Namespaced: true, Builtin: true,
		codec: typed(func(inv *Inventory) *[]*policyv1.PodDisruptionBudget { return &inv.PDBs })},
	Ingress: {Kind: "Ingress", Group: "networking.k8s.io", Versions: []string{"v1"}, Resource: "ingresses", Namespaced: true, Builtin: true,
		codec: typed(func(inv *Inventory) *[]*networkingv1.Ingress { return &inv.Ingresses })},
	ClusterRole: {Kind: "ClusterRole", Group: "rbac.authorization.k8s.io", Versions: []string{"v1"}, Resource: "clusterroles", Builtin: true,
		codec: typed(func(inv *Inventory) *[]*rbacv1.ClusterRole { return &inv.ClusterRoles })},
	ClusterRoleBinding: {Kind: "ClusterRoleBinding", Group: "rbac.authorization.k8s.io", Versions: []string{"v1"}, Resource: "clusterrolebindings", Builtin: true,
		codec: typed(func(inv *Inventory) *[]*rbacv1.ClusterRoleBinding { return &inv.ClusterRoleBindings })},
	FlowSchema: {Kind: "FlowSchema", Group: "flowcontrol.apiserver.k8s.io", Versions: []string{"v1", "v1beta3"}, Resource: "flowschemas", Builtin: true,
		codec: typed(func(inv *Inventory) *[]*flowcontrolv1.FlowSchema { return &inv.FlowSchemas })},
	PriorityLevel: {Kind: "PriorityLevelConfiguration", Group: "flowcontrol.apiserver.k8s.io", Versions: []string{"v1", "v1beta3"}, Resource: "prioritylevelconfigurations", Builtin: true,
		codec: typed(func(inv *Inventory) *[]*flowcontrolv1.PriorityLevelConfiguration { return &inv.PriorityLevels })},
	ValidatingWebhook: {Kind: "ValidatingWebhookConfiguration", Group: "admissionregistration.k8s.io", Versions: []string{"v1"}, Resource: "validatingwebhookconfigurations", Builtin: true,
		codec: typed(func(inv *Inventory) *[]*admissionv1.ValidatingWebhookConfiguration { return &inv.ValidatingWebhooks })},
	MutatingWebhook: {Kind: "MutatingWebhookConfiguration", Group: "admissionregistration.k8s.io", Versions: []string{"v1"}, Resource: "mutatingwebhookconfigurations", Builtin: true,
		codec: typed(func(inv *Inventory) *[]*admissionv1.MutatingWebhookConfiguration { return &inv.MutatingWebhooks })},
	CustomResourceDefinition: {Kind: "CustomResourceDefinition", Group: "apiextensions.k8s.io", Versions: []string{"v1"}, Resource: "customresourcedefinitions", Builtin: true, MetadataOnly: true,
		codec: typed(func(inv *Inventory) *[]*metav1.PartialObjectMetadata { return &inv.CRDs })},
	BGPPeer: {Kind: "BGPPeer", Group: "crd.projectcalico.org", Versions: []string{"v1"}, Resource: "bgppeers",
		codec: untyped(func(inv *Inventory) *[]*unstructured.Unstructured { return &inv.BGPPeers })},
	Application: {Kind: "Application", Group: "argoproj.io", Versions: []string{"v1alpha1"}, Resource: "applications", Namespaced: true,
		codec: untyped(func(inv *Inventory) *[]*unstructured.Unstructured { return &inv.Applications })},
	ApplicationSet: {Kind: "ApplicationSet", Group: "argoproj.io", Versions: []string{"v1alpha1"}, Resource: "applicationsets", Namespaced: true,
		codec: untyped(func(inv *Inventory) *[]*unstructured.Unstructured { return &inv.ApplicationSets })},
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
