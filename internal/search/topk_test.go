package search

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTopK: the first k of a full sort, for lists of every length up to 60
// with repeated keys (ties broken by number) and every k up to past the end.
func TestTopK(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 60; n++ {
		keys := make([]int, n)
		docs := make([]uint32, n)
		for i := range docs {
			docs[i] = uint32(i)
			keys[i] = r.IntN(8)
		}
		r.Shuffle(n, func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
		less := func(a, b uint32) bool {
			if keys[a] != keys[b] {
				return keys[a] > keys[b]
			}
			return a < b
		}
		want := slices.Clone(docs)
		slices.SortFunc(want, func(a, b uint32) int {
			if less(a, b) {
				return -1
			}
			return 1
		})
		for k := 0; k <= n+2; k++ {
			got := topK(slices.Clone(docs), k, less)
			if w := want[:min(k, n)]; !slices.Equal(got, w) {
				t.Fatalf("n=%d k=%d: topK = %v, want %v", n, k, got, w)
			}
		}
	}
}
