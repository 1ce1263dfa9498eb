// Package inventory holds what kubegap read from a cluster or from manifests:
// the objects of the kinds the enabled checks need, decoded into the
// Kubernetes API types, plus counts for kinds where only the number matters.
// Both sources (live and files) fill it through Add, so the checks see the
// same thing whichever way the objects came in.
package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
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

// IgnoreAnnotation on an object lists the checks (comma-separated, or "all")
// whose findings on that object are suppressed.
const IgnoreAnnotation = "kubegap.io/ignore"

// Ref names one object in a finding.
type Ref struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// Source is where an object came from in offline mode.
type Source struct {
	File string
	Line int
	// Template is the chart template that produced the object (Helm's
	// "# Source:" comment), when known.
	Template string
	// FromTemplate is set when File is the chart template that rendered
	// the object, on disk: its lines are the template's, not the object's.
	FromTemplate bool
	// NamespaceAssumed is set when the object named no namespace and took
	// the default one, as kubectl apply -n would give it.
	NamespaceAssumed bool
}

// DuplicateError is an object read a second time (same group, kind,
// namespace and name): the second copy is not filed.
type DuplicateError struct {
	Ref   Ref
	First Source
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("%s is defined twice (first at %s:%d)", e.Ref, e.First.File, e.First.Line)
}

// Count is the number of objects of a kind, when only the number is needed.
// AtLeast is set when the source stopped counting early.
type Count struct {
	N       int
	AtLeast bool
}

// Inventory is everything the checks can look at.
type Inventory struct {
	Nodes               []*corev1.Node
	Namespaces          []*metav1.PartialObjectMetadata
	Services            []*corev1.Service
	ConfigMaps          []*corev1.ConfigMap // kube-system only
	LimitRanges         []*corev1.LimitRange
	Deployments         []*appsv1.Deployment
	StatefulSets        []*appsv1.StatefulSet
	DaemonSets          []*appsv1.DaemonSet
	Jobs                []*batchv1.Job
	CronJobs            []*batchv1.CronJob
	HPAs                []*autoscalingv2.HorizontalPodAutoscaler
	PDBs                []*policyv1.PodDisruptionBudget
	Ingresses           []*networkingv1.Ingress
	ClusterRoles        []*rbacv1.ClusterRole
	ClusterRoleBindings []*rbacv1.ClusterRoleBinding
	FlowSchemas         []*flowcontrolv1.FlowSchema
	PriorityLevels      []*flowcontrolv1.PriorityLevelConfiguration
	ValidatingWebhooks  []*admissionv1.ValidatingWebhookConfiguration
	MutatingWebhooks    []*admissionv1.MutatingWebhookConfiguration
	CRDs                []*metav1.PartialObjectMetadata // names only: plural.group
	BGPPeers            []*unstructured.Unstructured
	Applications        []*unstructured.Unstructured // Argo CD
	ApplicationSets     []*unstructured.Unstructured // Argo CD

	// Counts holds the kinds read for their number only (Pod, AuthRequest,
	// IPAMHandle).
	Counts map[Kind]Count
	// Read is the set of kinds this inventory holds: a kind absent from Read
	// was not (or could not be) read, and checks that need it are not
	// evaluated.
	Read map[Kind]bool
	// Sources maps objects to the file and line they came from (offline).
	Sources map[Ref]Source
	// Ignored maps objects to the checks their kubegap.io/ignore annotation
	// names.
	Ignored map[Ref][]string
	// Unknown maps objects to the fields left out of them because they
	// held unrendered template text (paths as kubectl explain writes them,
	// spec.template.spec.containers[0].resources.limits.memory). A check
	// reads such a field as unknown, never as unset.
	Unknown map[Ref][]string
}

// MarkUnknown records that the field at path of r is unknown.
func (inv *Inventory) MarkUnknown(r Ref, path string) {
	if inv.Unknown == nil {
		inv.Unknown = map[Ref][]string{}
	}
	inv.Unknown[r] = append(inv.Unknown[r], path)
}

// FieldUnknown reports whether the field of r that a path ending with
// suffix names (".containers[0].resources.limits.memory"), or a field
// under it (suffix ".containers[0].resources" covers its limits and
// requests), is unknown.
func (inv *Inventory) FieldUnknown(r Ref, suffix string) bool {
	suffix = "." + strings.TrimPrefix(suffix, ".") // whole path segments only
	for _, p := range inv.Unknown[r] {
		p = "." + p
		for {
			if strings.HasSuffix(p, suffix) {
				return true
			}
			i := strings.LastIndexByte(p, '.')
			if i <= 0 {
				break
			}
			p = p[:i]
		}
	}
	return false
}

// New returns an empty inventory.
func New() *Inventory {
	return &Inventory{
		Counts:  map[Kind]Count{},
		Read:    map[Kind]bool{},
		Sources: map[Ref]Source{},
		Ignored: map[Ref][]string{},
	}
}

// MarkRead records that kind was read (even if no object of it exists).
func (inv *Inventory) MarkRead(k Kind) { inv.Read[k] = true }

// Has reports whether every kind in ks was read.
func (inv *Inventory) Has(ks ...Kind) bool {
	for _, k := range ks {
		if !inv.Read[k] {
			return false
		}
	}
	return true
}

// objectMeta is the part of any object addChecked reads before decoding it
// fully.
type objectMeta struct {
	Metadata struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
}

// Add decodes one object of kind k from its JSON form and files it. src may
// be the zero Source (live). The caller has already matched the object's
// apiVersion and kind to k.
func (inv *Inventory) Add(k Kind, raw []byte, src Source) error {
	_, err := inv.AddObject(k, raw, src, "")
	return err
}

// Filed is what AddObject made of an object.
type Filed struct {
	// Ref names the object as filed (its namespace the assumed one when it
	// named none); the zero Ref when the object was not needed.
	Ref Ref
	// Namespace and Name are the object's own metadata, as written.
	Namespace, Name string
}

// AddObject is Add for objects read from files: a namespaced object without
// a namespace takes defaultNamespace (when set), as kubectl apply would give
// it, and src records that; an object already filed from a file is not
// filed again (a *DuplicateError).
//
// The object is decoded once, into its API type, and its name, namespace
// and annotations are taken from that. Only an object that fails to decode
// goes through addChecked, which reads its metadata first and so says
// which object failed, as before.
func (inv *Inventory) AddObject(k Kind, raw []byte, src Source, defaultNamespace string) (Filed, error) {
	info, ok := kinds[k]
	if !ok {
		return Filed{}, fmt.Errorf("kind %s is not one kubegap reads", k)
	}
	if info.CountOnly {
		c := inv.Counts[k]
		c.N++
		inv.Counts[k] = c
		return Filed{}, nil
	}
	obj, err := info.decode(raw)
	if err != nil {
		return inv.addChecked(k, info, raw, src, defaultNamespace)
	}
	f := Filed{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	ns, wanted, err := inv.place(info, &f, &src, defaultNamespace)
	if !wanted || err != nil {
		return f, err
	}
	ref := f.Ref
	if src.NamespaceAssumed {
		obj.SetNamespace(ns) // kubectl apply -n sets it; so do we, before the checks see it.
	}
	info.file(inv, obj)
	inv.filed(ref, src, obj.GetAnnotations())
	return f, nil
}

// addChecked files an object the way AddObject did before it decoded once:
// metadata first (an error there names no object), then the namespace,
// the filter and the duplicate check, then the whole object. AddObject
// takes this way only for objects that do not decode, so that the error
// and the problem made of it stay what they were.
func (inv *Inventory) addChecked(k Kind, info KindInfo, raw []byte, src Source, defaultNamespace string) (Filed, error) {
	var m objectMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return Filed{}, fmt.Errorf("%s: %w", k, cleanJSONError(err))
	}
	f := Filed{Namespace: m.Metadata.Namespace, Name: m.Metadata.Name}
	ns, wanted, err := inv.place(info, &f, &src, defaultNamespace)
	if !wanted || err != nil {
		return f, err
	}
	ref := f.Ref
	if src.NamespaceAssumed {
		b, err := withNamespace(raw, ns)
		if err != nil {
			return f, fmt.Errorf("%s %s: %w", k, m.Metadata.Name, cleanJSONError(err))
		}
		raw = b
	}
	obj, err := info.decode(raw)
	if err != nil {
		return f, fmt.Errorf("%s %s: %w", k, m.Metadata.Name, cleanJSONError(err))
	}
	info.file(inv, obj)
	inv.filed(ref, src, m.Metadata.Annotations)
	return f, nil
}

// place gives the object f (its own namespace and name set) the namespace
// kubectl apply would (defaultNamespace for a namespaced object without
// one, noted in src) and its Ref. wanted is false for an object of a kind
// kept in one namespace only, found elsewhere (ConfigMaps outside
// kube-system); a *DuplicateError says the object was filed from a file
// before.
func (inv *Inventory) place(info KindInfo, f *Filed, src *Source, defaultNamespace string) (ns string, wanted bool, err error) {
	ns = f.Namespace
	if info.Namespaced && ns == "" && defaultNamespace != "" {
		ns = defaultNamespace
		src.NamespaceAssumed = true
	}
	if info.Namespace != "" && ns != info.Namespace {
		return ns, false, nil
	}
	f.Ref = Ref{Kind: info.Kind, Namespace: ns, Name: f.Name}
	if !info.Namespaced {
		f.Ref.Namespace = ""
	}
	if src.File != "" {
		if first, dup := inv.Sources[f.Ref]; dup {
			return ns, true, &DuplicateError{Ref: f.Ref, First: first}
		}
	}
	return ns, true, nil
}

// filed records where ref came from and the checks its annotation ignores.
func (inv *Inventory) filed(ref Ref, src Source, annotations map[string]string) {
	if src.File != "" {
		inv.Sources[ref] = src
	}
	if v := annotations[IgnoreAnnotation]; v != "" {
		for _, c := range strings.Split(v, ",") {
			if c = strings.TrimSpace(c); c != "" {
				inv.Ignored[ref] = append(inv.Ignored[ref], c)
			}
		}
	}
}

// AddCount adds n objects of a count-only kind.
func (inv *Inventory) AddCount(k Kind, n int, atLeast bool) {
	c := inv.Counts[k]
	c.N += n
	c.AtLeast = c.AtLeast || atLeast
	inv.Counts[k] = c
}

func cleanJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %s: expected %s, got a %s", te.Field, te.Type, te.Value)
	}
	return err
}

// withNamespace returns raw with metadata.namespace set to ns.
func withNamespace(raw []byte, ns string) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	meta := map[string]json.RawMessage{}
	if m, ok := obj["metadata"]; ok && string(m) != "null" {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, err
		}
	}
	b, _ := json.Marshal(ns)
	meta["namespace"] = b
	m, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	obj["metadata"] = m
	return json.Marshal(obj)
}

// Objects is the number of objects the inventory holds, counted kinds
// included.
func (inv *Inventory) Objects() int {
	n := len(inv.Nodes) + len(inv.Namespaces) + len(inv.Services) + len(inv.ConfigMaps) + len(inv.LimitRanges) +
		len(inv.Deployments) + len(inv.StatefulSets) + len(inv.DaemonSets) + len(inv.Jobs) + len(inv.CronJobs) +
		len(inv.HPAs) + len(inv.PDBs) + len(inv.Ingresses) + len(inv.ClusterRoles) + len(inv.ClusterRoleBindings) +
		len(inv.FlowSchemas) + len(inv.PriorityLevels) + len(inv.ValidatingWebhooks) + len(inv.MutatingWebhooks) +
		len(inv.CRDs) + len(inv.BGPPeers) + len(inv.Applications) + len(inv.ApplicationSets)
	for _, c := range inv.Counts {
		n += c.N
	}
	return n
}

// Sort orders every list by namespace and name, so that findings come out in
// the same order whichever source filled the inventory.
func (inv *Inventory) Sort() {
	sortObjs(inv.Nodes)
	sortObjs(inv.Namespaces)
	sortObjs(inv.Services)
	sortObjs(inv.ConfigMaps)
	sortObjs(inv.LimitRanges)
	sortObjs(inv.Deployments)
	sortObjs(inv.StatefulSets)
	sortObjs(inv.DaemonSets)
	sortObjs(inv.Jobs)
	sortObjs(inv.CronJobs)
	sortObjs(inv.HPAs)
	sortObjs(inv.PDBs)
	sortObjs(inv.Ingresses)
	sortObjs(inv.ClusterRoles)
	sortObjs(inv.ClusterRoleBindings)
	sortObjs(inv.FlowSchemas)
	sortObjs(inv.PriorityLevels)
	sortObjs(inv.ValidatingWebhooks)
	sortObjs(inv.MutatingWebhooks)
	sortObjs(inv.CRDs)
	sortObjs(inv.BGPPeers)
	sortObjs(inv.Applications)
	sortObjs(inv.ApplicationSets)
}

type named interface {
	GetNamespace() string
	GetName() string
}

func sortObjs[T named](s []T) {
	sort.SliceStable(s, func(i, j int) bool {
		if a, b := s[i].GetNamespace(), s[j].GetNamespace(); a != b {
			return a < b
		}
		return s[i].GetName() < s[j].GetName()
	})
}
