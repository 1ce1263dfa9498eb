package gobuild

import (
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
