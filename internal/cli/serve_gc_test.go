package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestGCPercentFor: the room over the live heap is fixed (128 MB), within
// bounds: a small index gets up to GOGC 400, a large one a low GOGC, down to
// 25, so that memory follows the index.
func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 400}, {16 << 20, 400}, {32 << 20, 400}, {42 << 20, 304}, {64 << 20, 200}, {143 << 20, 89}, {512 << 20, 25}, {4 << 30, 25}} {
		if got := gcPercentFor(c.live); got != c.want {
			t.Errorf("gcPercentFor(%d MB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// TestRoomKeeperFollowsTheLiveHeap: as the live heap grows after start,
// GOGC comes down so that the room over it stays gcRoom, and goes back up
// when the heap shrinks.
func TestRoomKeeperFollowsTheLiveHeap(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	runtime.GC()
	k := newRoomKeeper(100)
	small := k.step()
	big := make([]byte, 256<<20)
	for i := range big {
		big[i] = byte(i)
	}
	runtime.GC()
	grown := k.step()
	if want := gcPercentFor(256 << 20); grown > want*17/16 || grown < want*15/16 {
		t.Errorf("with 256 MB more live heap GOGC is %d, want about %d (%d before)", grown, want, small)
	}
	if got := debug.SetGCPercent(grown); got != grown {
		t.Errorf("GOGC in force is %d, the keeper says %d", got, grown)
	}
	runtime.KeepAlive(big) // big is dead from here on
	runtime.GC()
	if back := k.step(); back <= grown {
		t.Errorf("after the heap shrank GOGC stays %d (was %d, grown %d)", back, small, grown)
	}
}
