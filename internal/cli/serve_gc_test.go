package cli

import "testing"

// TestGCPercentFor: the room over the live heap is fixed, within bounds:
// a small index keeps GOGC 400, a large one a low GOGC, so that memory
// follows the index.
func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 400}, {40 << 20, 400}, {64 << 20, 400}, {128 << 20, 200}, {512 << 20, 50}, {4 << 30, 25}} {
		if got := gcPercentFor(c.live); got != c.want {
			t.Errorf("gcPercentFor(%d MB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}
