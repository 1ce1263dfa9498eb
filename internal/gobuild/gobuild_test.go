package gobuild

import (
	"runtime/debug"
	"slices"
	"testing"
)

// TestFlagsFollowTheTestBinary holds Flags to the race detector's state in
// this very test binary: run under -race it must give -race, and without
// it nothing, or a test's "go build" compiles every package twice.
func TestFlagsFollowTheTestBinary(t *testing.T) {
	got := Flags()
	if raceEnabled != slices.Contains(got, "-race") {
		t.Fatalf("Flags() = %q in a binary built with race=%v", got, raceEnabled)
	}
	args := Args("/tmp/x", "./cmd/x")
	want := append(append([]string{"build"}, got...), "-o", "/tmp/x", "./cmd/x")
	if !slices.Equal(args, want) {
		t.Fatalf("Args = %q, want %q", args, want)
	}
}

// TestFlagsCarryTheCompilerFlags: a test binary built with -gcflags (CI's
// -gcflags=all=-dwarf=false) or -trimpath passes them on, or the command
// it builds compiles every dependency again in another configuration.
func TestFlagsCarryTheCompilerFlags(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information")
	}
	got := Flags()
	checked := 0
	for _, s := range bi.Settings {
		want := ""
		switch {
		case s.Key == "-gcflags" && s.Value != "":
			want = "-gcflags=" + s.Value
		case s.Key == "-trimpath" && s.Value == "true":
			want = "-trimpath"
		default:
			continue
		}
		checked++
		if !slices.Contains(got, want) {
			t.Errorf("built with %s=%s, Flags() = %q lacks %s", s.Key, s.Value, got, want)
		}
	}
	t.Logf("%d compiler settings checked in %q", checked, got)
}
