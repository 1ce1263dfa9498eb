package cli

import "testing"

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
