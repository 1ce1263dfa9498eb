// Package gctune lets a short-lived command collect garbage rarely while
// its heap is small, and as usual once it is not. Importing it is the
// setting: its init runs before the init of the Kubernetes and Helm
// libraries a command links (packages are initialised in import-path
// order as their imports allow, and this one imports only the runtime's),
// so the collections their initialisation would trigger are saved too.
//
// A small kubegap scan costs about 50 ms of processor time, some 40% of it
// initialising those libraries and about an eighth in the two collections
// that initialisation and the scan trigger at the default GOGC of 100
// (perf record, docs/PERFORMANCE.md). At GOGC 400 a small scan collects
// not at all. A larger input must not keep that room: once a collection
// finds more than LiveLimit of live heap, GOGC goes back to 100, so a scan
// of thousands of objects uses about the memory it would have used.
// A GOGC set in the environment wins, and the package then does nothing.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
)

const (
	// StartPercent is GOGC while the live heap is small.
	StartPercent = 400
	// LiveLimit is the live heap past which GOGC returns to 100.
	LiveLimit = 16 << 20
)

// Active says whether the package set GOGC (no GOGC in the environment).
var Active = os.Getenv("GOGC") == ""

func init() {
	if !Active {
		return
	}
	debug.SetGCPercent(StartPercent)
	watch()
}

// sentinel is the object whose collection says a cycle has ended; it holds
// a pointer so that it is not batched with other tiny objects, whose
// cleanups may never run.
type sentinel struct{ p *int }

// watch arranges for check to run after the next collection.
func watch() {
	runtime.AddCleanup(&sentinel{p: new(int)}, check, 0)
}

// check runs after a collection: past LiveLimit of heap, which so soon
// after a collection is nearly all live, GOGC goes back to 100 for good;
// below it, it waits for the next collection. (ReadMemStats stops the world
// for a moment, once a collection; runtime/metrics would cost its own
// initialisation in every run.)
func check(int) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > LiveLimit {
		debug.SetGCPercent(100)
		return
	}
	watch()
}
