package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
	"github.com/incidentlib/incidentlib/internal/mcpserver"
	"github.com/incidentlib/incidentlib/internal/mcptool"
)

// TestServers: -server picks whose registry is printed (incidentlib by
// default, or kubegap): -names gives that list's names, and the examples
// are that list's, one JSON object a line; an unknown server is refused.
func TestServers(t *testing.T) {
	for _, tc := range []struct {
		args []string
		list mcptool.List
	}{
		{nil, mcpserver.Tools()},
		{[]string{"-server", "incidentlib"}, mcpserver.Tools()},
		{[]string{"-server", "kubegap"}, mcptools.Tools()},
	} {
		var out, errs bytes.Buffer
		if code := run(append(tc.args, "-names"), &out, &errs); code != 0 {
			t.Fatalf("%v -names: exit %d: %s", tc.args, code, errs.String())
		}
		if got := strings.Fields(out.String()); !slices.Equal(got, tc.list.Names()) {
			t.Errorf("%v -names: %v, want %v", tc.args, got, tc.list.Names())
		}
		out.Reset()
		if code := run(tc.args, &out, &errs); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs.String())
		}
		var want []string
		for _, tl := range tc.list {
			for _, ex := range tl.Examples {
				want = append(want, tl.Def.Name+" "+ex.Want)
			}
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var ex struct {
				Tool string         `json:"tool"`
				Args map[string]any `json:"args"`
				Want string         `json:"want"`
			}
			if err := json.Unmarshal([]byte(line), &ex); err != nil || ex.Args == nil {
				t.Fatalf("%v: a line that is no example: %q (%v)", tc.args, line, err)
			}
			got = append(got, ex.Tool+" "+ex.Want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v: examples %v, want %v", tc.args, got, want)
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"-server", "nope"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "incidentlib or kubegap") {
		t.Errorf("-server nope: exit %d, %q", code, errs.String())
	}
}
