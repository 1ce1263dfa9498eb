package inventory

import "testing"

// TestFieldUnknown: a field left out for a placeholder is unknown at its
// own path and under every field that holds it, and nowhere else.
func TestFieldUnknown(t *testing.T) {
	inv := New()
	r := Ref{Kind: "Deployment", Namespace: "kube-system", Name: "coredns"}
	inv.MarkUnknown(r, "spec.template.spec.containers[0].resources.limits.memory")
	for suffix, want := range map[string]bool{
		".containers[0].resources.limits.memory": true,
		".containers[0].resources.limits":        true,
		".containers[0].resources":               true,
		".containers[0].resources.limits.cpu":    false,
		".containers[1].resources":               false,
		".initContainers[0].resources":           false,
		"ers[0].resources":                       false,
	} {
		if got := inv.FieldUnknown(r, suffix); got != want {
			t.Errorf("FieldUnknown(%q) = %v, want %v", suffix, got, want)
		}
	}
	if inv.FieldUnknown(Ref{Kind: "Deployment", Name: "other"}, ".containers[0].resources") {
		t.Error("another object's field reads unknown")
	}
}
