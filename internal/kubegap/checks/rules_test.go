package checks

import "testing"

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
