package manifest

import (
	"fmt"
	"strconv"
	"strings"
)

// KubeVersion is a Kubernetes minor version (1.x).
type KubeVersion struct{ Minor int }

// NewestKube is the newest Kubernetes release kubegap knows, the default
// target of --kube-version.
var NewestKube = KubeVersion{Minor: 37}

func (v KubeVersion) String() string { return fmt.Sprintf("1.%d", v.Minor) }

// ParseKubeVersion reads "1.29", "v1.29" or "1.29.3".
func ParseKubeVersion(s string) (KubeVersion, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(t, ".")
	if len(parts) < 2 || len(parts) > 3 || parts[0] != "1" {
		return KubeVersion{}, fmt.Errorf("bad Kubernetes version %q (want 1.MINOR, such as %s)", s, NewestKube)
	}
	m, err := strconv.Atoi(parts[1])
	if err != nil || m < 0 {
		return KubeVersion{}, fmt.Errorf("bad Kubernetes version %q (want 1.MINOR, such as %s)", s, NewestKube)
	}
	if m > NewestKube.Minor {
		return KubeVersion{}, fmt.Errorf("%s is newer than the Kubernetes releases kubegap knows (%s at most)", s, NewestKube)
	}
	return KubeVersion{Minor: m}, nil
}

// Removal is an API version that Kubernetes stopped serving for a kind.
type Removal struct {
	APIVersion string
	Kind       string
	// Removed is the first minor release that no longer serves it.
	Removed int
	// Use is what to write instead.
	Use string
}

// removals are the removed beta APIs of the Kubernetes deprecation guide.
var removals = func() map[string]Removal {
	m := map[string]Removal{}
	add := func(removed int, apiVersion, use string, kinds ...string) {
		for _, k := range kinds {
			m[apiVersion+" "+k] = Removal{APIVersion: apiVersion, Kind: k, Removed: removed, Use: use}
		}
	}
	add(16, "extensions/v1beta1", "apps/v1", "Deployment", "DaemonSet", "ReplicaSet")
	add(16, "extensions/v1beta1", "networking.k8s.io/v1", "NetworkPolicy")
	add(16, "extensions/v1beta1", "Pod Security Admission (PodSecurityPolicy is gone since 1.25)", "PodSecurityPolicy")
	add(16, "apps/v1beta1", "apps/v1", "Deployment", "StatefulSet", "ReplicaSet", "ControllerRevision")
	add(16, "apps/v1beta2", "apps/v1", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ControllerRevision")
	add(22, "extensions/v1beta1", "networking.k8s.io/v1", "Ingress")
	add(22, "networking.k8s.io/v1beta1", "networking.k8s.io/v1", "Ingress", "IngressClass")
	add(22, "admissionregistration.k8s.io/v1beta1", "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
	add(22, "apiextensions.k8s.io/v1beta1", "apiextensions.k8s.io/v1", "CustomResourceDefinition")
	add(22, "apiregistration.k8s.io/v1beta1", "apiregistration.k8s.io/v1", "APIService")
	add(22, "authentication.k8s.io/v1beta1", "authentication.k8s.io/v1", "TokenReview")
	add(22, "authorization.k8s.io/v1beta1", "authorization.k8s.io/v1", "SubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview")
	add(22, "certificates.k8s.io/v1beta1", "certificates.k8s.io/v1", "CertificateSigningRequest")
	add(22, "coordination.k8s.io/v1beta1", "coordination.k8s.io/v1", "Lease")
	add(22, "rbac.authorization.k8s.io/v1beta1", "rbac.authorization.k8s.io/v1", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
	add(22, "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1", "PriorityClass")
	add(22, "storage.k8s.io/v1beta1", "storage.k8s.io/v1", "CSIDriver", "CSINode", "StorageClass", "VolumeAttachment")
	add(25, "batch/v1beta1", "batch/v1", "CronJob")
	add(25, "discovery.k8s.io/v1beta1", "discovery.k8s.io/v1", "EndpointSlice")
	add(25, "events.k8s.io/v1beta1", "events.k8s.io/v1", "Event")
	add(25, "autoscaling/v2beta1", "autoscaling/v2", "HorizontalPodAutoscaler")
	add(25, "policy/v1beta1", "policy/v1", "PodDisruptionBudget")
	add(25, "policy/v1beta1", "Pod Security Admission (no replacement API)", "PodSecurityPolicy")
	add(25, "node.k8s.io/v1beta1", "node.k8s.io/v1", "RuntimeClass")
	add(26, "flowcontrol.apiserver.k8s.io/v1beta1", "flowcontrol.apiserver.k8s.io/v1 (served since 1.29; v1beta3 before)", "FlowSchema", "PriorityLevelConfiguration")
	add(26, "autoscaling/v2beta2", "autoscaling/v2", "HorizontalPodAutoscaler")
	add(27, "storage.k8s.io/v1beta1", "storage.k8s.io/v1", "CSIStorageCapacity")
	add(29, "flowcontrol.apiserver.k8s.io/v1beta2", "flowcontrol.apiserver.k8s.io/v1", "FlowSchema", "PriorityLevelConfiguration")
	add(32, "flowcontrol.apiserver.k8s.io/v1beta3", "flowcontrol.apiserver.k8s.io/v1", "FlowSchema", "PriorityLevelConfiguration")
	return m
}()

// Removed returns the removal of apiVersion/kind when Kubernetes v no
// longer serves it.
func Removed(apiVersion, kind string, v KubeVersion) (Removal, bool) {
	r, ok := removals[apiVersion+" "+kind]
	if !ok || v.Minor < r.Removed {
		return Removal{}, false
	}
	return r, true
}

// Message says what the API server of v would do and what to write.
func (r Removal) Message(v KubeVersion) string {
	return fmt.Sprintf("%s is not served by Kubernetes %s (removed in 1.%d): use %s; kubectl apply would fail, so the object was not scanned (--kube-version sets the target)",
		r.APIVersion, v, r.Removed, r.Use)
}
