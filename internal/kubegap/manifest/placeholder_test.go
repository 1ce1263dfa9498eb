package manifest

import (
	"encoding/json"
	"testing"
)

// TestDropPlaceholders: only the fields that keep the object from decoding
// are left out (a placeholder in a string field stays), each named by its
// path; an object that still does not decode, or holds no placeholder, is
// left to the caller.
func TestDropPlaceholders(t *testing.T) {
	raw := []byte(`{"kind":"Deployment","metadata":{"name":"coredns","labels":{"app.kubernetes.io/name":"__NAME__"}},"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"c","image":"coredns:__VERSION__","resources":{"limits":{"memory":"__DNS__MEMORY__LIMIT__"}}}]}}}}`)
	// A stand-in for the real decoder: memory must be a quantity.
	decodes := func(b []byte) bool {
		var o struct {
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Resources struct {
								Limits map[string]string
							}
						}
					}
				}
			}
		}
		if json.Unmarshal(b, &o) != nil {
			return false
		}
		for _, c := range o.Spec.Template.Spec.Containers {
			if m, ok := c.Resources.Limits["memory"]; ok && (m == "" || m[0] < '0' || m[0] > '9') {
				return false
			}
		}
		return true
	}
	out, dropped, ok := DropPlaceholders(raw, decodes)
	if !ok || len(dropped) != 1 {
		t.Fatalf("ok %v, dropped %+v", ok, dropped)
	}
	if d := dropped[0]; d.Path != "spec.template.spec.containers[0].resources.limits.memory" || d.Text != "__DNS__MEMORY__LIMIT__" {
		t.Errorf("dropped %+v", d)
	}
	var o map[string]any
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatal(err)
	}
	c := o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if c["image"] != "coredns:__VERSION__" || c["name"] != "c" {
		t.Errorf("container %v: the string fields must stay", c)
	}
	if _, ok := c["resources"].(map[string]any)["limits"].(map[string]any)["memory"]; ok {
		t.Errorf("memory still there: %s", out)
	}
	if o["metadata"].(map[string]any)["labels"].(map[string]any)["app.kubernetes.io/name"] != "__NAME__" {
		t.Errorf("label dropped: %s", out)
	}
	if _, _, ok := DropPlaceholders([]byte(`{"a":1}`), decodes); ok {
		t.Error("no placeholder, yet ok")
	}
	if _, _, ok := DropPlaceholders(raw, func([]byte) bool { return false }); ok {
		t.Error("never decodes, yet ok")
	}
}
