package gctune_test

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/incidentlib/internal/gctune"
)

// percent returns the GOGC in force.
func percent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestSmallHeapCollectsRarely: with no GOGC in the environment, importing
// the package sets GOGC 400; once a collection finds more than LiveLimit of
// live heap, it is 100 again.
func TestSmallHeapCollectsRarely(t *testing.T) {
	if os.Getenv("GCTUNE_CHILD") != "" {
		// Run by TestEnvironmentWins: report what this process has.
		os.Stdout.WriteString("percent=" + strconv.Itoa(percent()) + "\n")
		return
	}
	if !gctune.Active {
		t.Skip("GOGC is set in the environment")
	}
	if p := percent(); p != gctune.StartPercent {
		t.Fatalf("GOGC %d at start, want %d", p, gctune.StartPercent)
	}
	// A few small collections change nothing.
	for range 3 {
		runtime.GC()
	}
	time.Sleep(50 * time.Millisecond)
	if p := percent(); p != gctune.StartPercent {
		t.Fatalf("GOGC %d after collections of a small heap, want %d", p, gctune.StartPercent)
	}
	big := make([][]byte, 0, 64)
	for range 48 {
		big = append(big, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(10 * time.Second)
	for percent() != 100 {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC still %d with 48 MB live", percent())
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(big)
}

// TestEnvironmentWins: a GOGC the user sets is left alone.
func TestEnvironmentWins(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestSmallHeapCollectsRarely$", "-test.v")
	cmd.Env = append(os.Environ(), "GCTUNE_CHILD=1", "GOGC=50")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "percent=50\n") {
		t.Fatalf("the child reports:\n%s", out)
	}
}
