package checks

import (
	"encoding/json"
	"testing"
)

func TestCFSBugKernel(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"4.14.127+", true},
		{"4.14.154", false},
		{"4.19.83-coreos", true},
		{"4.19.84", false},
		{"4.15.0-66-generic", true},
		{"4.15.0-67-generic", false},
		{"3.10.0-957.el7.x86_64", true},
		{"3.10.0-1062.8.1.el7.x86_64", false},
		{"3.10.0-1160.el7.x86_64", false},
		{"5.3.0", true},
		{"5.4.0-1043-aws", false},
		{"6.1.0-18-amd64", false},
		{"not a kernel", false},
	} {
		if got := cfsBugKernel(tc.v); got != tc.want {
			t.Errorf("cfsBugKernel(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestForwardConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name, corefile string
		total          int
		unbounded      bool
		forwards       int
	}{
		{"no forward", ".:53 {\n cache 30\n}\n", 0, false, 0},
		{"forward without block", ".:53 {\n forward . /etc/resolv.conf\n}\n", 0, true, 1},
		{"forward with limit", ".:53 {\n forward . 8.8.8.8 {\n  max_concurrent 500\n }\n}\n", 500, false, 1},
		{"two forwards one bounded", "a:53 {\n forward . 1.1.1.1 {\n max_concurrent 100\n }\n}\nb:53 {\n forward . 8.8.8.8\n}\n", 100, true, 2},
		{"old proxy plugin", ".:53 {\n proxy . /etc/resolv.conf\n}\n", 0, true, 1},
		{"commented limit", ".:53 {\n forward . /etc/resolv.conf {\n  # max_concurrent 1000\n }\n}\n", 0, true, 1},
	} {
		total, unbounded, forwards := forwardConcurrency(tc.corefile)
		if total != tc.total || unbounded != tc.unbounded || forwards != tc.forwards {
			t.Errorf("%s: got (%d, %v, %d), want (%d, %v, %d)", tc.name, total, unbounded, forwards, tc.total, tc.unbounded, tc.forwards)
		}
	}
}

func TestImageRef(t *testing.T) {
	for _, tc := range []struct {
		img, registry, tag string
		digest             bool
	}{
		{"nginx", "docker.io", "", false},
		{"nginx:1.27", "docker.io", "1.27", false},
		{"library/nginx:latest", "docker.io", "latest", false},
		{"index.docker.io/example/agent:1", "docker.io", "1", false},
		{"quay.io/cilium/cilium:v1.15.0", "quay.io", "v1.15.0", false},
		{"localhost:5000/tool", "localhost:5000", "", false},
		{"registry.example.org:5000/tools/fetch", "registry.example.org:5000", "", false},
		{"busybox@sha256:9ae9", "docker.io", "", true},
		{"example.azurecr.io/a/b:2@sha256:9ae9", "example.azurecr.io", "2", true},
	} {
		reg, tag, digest := imageRef(tc.img)
		if reg != tc.registry || tag != tc.tag || digest != tc.digest {
			t.Errorf("imageRef(%q) = (%q, %q, %v), want (%q, %q, %v)", tc.img, reg, tag, digest, tc.registry, tc.tag, tc.digest)
		}
	}
}

func TestFlagValue(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"/cpa", "--target=deployment/coredns"}, "deployment/coredns"},
		{[]string{"/cpa", "--target", "Deployment/coredns"}, "Deployment/coredns"},
		{[]string{"/bin/sh", "-c", "/cpa --configmap=x --target=deployment/kube-dns --v=2"}, "deployment/kube-dns"},
		{[]string{"/cpa", "-target=deployment/a"}, "deployment/a"},
		{[]string{"/cpa", "--targets=deployment/a"}, ""},
		{[]string{"/cpa", "target=deployment/a"}, ""},
		{[]string{"/cpa", "--target"}, ""},
	} {
		if got := flagValue(tc.args, "target"); got != tc.want {
			t.Errorf("flagValue(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestCPAFloor(t *testing.T) {
	for _, tc := range []struct {
		json string
		want int
	}{
		{`{"linear":{"nodesPerReplica":16}}`, 1},
		{`{"linear":{"min":3}}`, 3},
		{`{"linear":{"preventSinglePointFailure":true}}`, 2},
		{`{"linear":{"min":4,"preventSinglePointFailure":true}}`, 4},
		{`{"ladder":{"coresToReplicas":[[1,2],[64,4]],"nodesToReplicas":[[1,1]]}}`, 2},
		{`{"ladder":{}}`, 0},
		{`{}`, 0},
	} {
		var p cpaParams
		if err := json.Unmarshal([]byte(tc.json), &p); err != nil {
			t.Fatal(err)
		}
		if got, _ := p.floor(); got != tc.want {
			t.Errorf("floor(%s) = %d, want %d", tc.json, got, tc.want)
		}
	}
}
