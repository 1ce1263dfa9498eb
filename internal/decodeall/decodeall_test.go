package decodeall

import (
	"errors"
	"fmt"
	"testing"
)

// TestStream: every row is decoded once and comes back in the order it
// was read; the error is next's, else that of the first row in order that
// failed, whatever the goroutines' timing.
func TestStream(t *testing.T) {
	rows := func(n int, failAt error) func() (int, bool, error) {
		i := 0
		return func() (int, bool, error) {
			if i == n {
				return 0, false, failAt
			}
			i++
			return i - 1, true, nil
		}
	}
	for _, n := range []int{0, 1, 7, 1000} {
		got, err := Stream(rows(n, nil), func(i int) (string, error) { return fmt.Sprint(i), nil })
		if err != nil || len(got) != n {
			t.Fatalf("n %d: %d rows, %v", n, len(got), err)
		}
		for i, s := range got {
			if s != fmt.Sprint(i) {
				t.Fatalf("n %d: row %d is %q", n, i, s)
			}
		}
	}
	_, err := Stream(rows(1000, nil), func(i int) (int, error) {
		if i == 17 || i == 400 || i == 999 {
			return 0, fmt.Errorf("row %d", i)
		}
		return i, nil
	})
	if err == nil || err.Error() != "row 17" {
		t.Fatalf("error %v, want row 17", err)
	}
	if _, err := Stream(rows(5, errors.New("scan")), func(i int) (int, error) { return i, nil }); err == nil || err.Error() != "scan" {
		t.Fatalf("next's error: %v", err)
	}
}
