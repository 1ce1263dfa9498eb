package search_test

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/incidentlib/incidentlib/internal/search"
)

// TestNewLeavesTheGCAlone: building an index, however large, does not
// change the process's GC setting, which belongs to the program (serve sets
// it, unless GOGC is set): two builds at once would each restore the other's.
func TestNewLeavesTheGCAlone(t *testing.T) {
	v, cases := synthetic(t, 6000) // above the size that once turned GOGC up
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	sample := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	gogc := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	if g := gogc(); g != 100 {
		t.Fatalf("GOGC reads %d after setting it to 100", g)
	}
	done := make(chan error, 1)
	go func() {
		ix, err := search.New(v, cases)
		if err == nil {
			ix.Close()
		}
		done <- err
	}()
	seen := map[uint64]bool{}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			seen[gogc()] = true
			delete(seen, 100)
			for g := range seen {
				t.Errorf("GOGC was %d while the index was built, want the program's 100", g)
			}
			return
		case <-tick.C: // sample the setting while the build runs
			seen[gogc()] = true
		}
	}
}
