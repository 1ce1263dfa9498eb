package decodeall

import (
	"errors"
	"fmt"
	"testing"
)

// TestEach: every index is visited once, and the error is the first in
// index order whatever the goroutines' timing.
func TestEach(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		seen := make([]int, n)
		if err := Each(n, func(i int) error { seen[i]++; return nil }); err != nil {
			t.Fatal(err)
		}
		for i, k := range seen {
			if k != 1 {
				t.Fatalf("n %d: index %d visited %d times", n, i, k)
			}
		}
	}
	err := Each(1000, func(i int) error {
		if i == 17 || i == 400 || i == 999 {
			return fmt.Errorf("row %d", i)
		}
		return nil
	})
	if err == nil || err.Error() != "row 17" {
		t.Fatalf("error %v, want row 17", err)
	}
	if err := Each(3, func(int) error { return errors.New("x") }); err == nil {
		t.Fatal("no error")
	}
}
