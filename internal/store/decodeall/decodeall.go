// Package decodeall decodes the rows a store read on every core: at start
// a server reads every case, and decoding tens of thousands of JSON
// documents one after another was most of its start-up.
package decodeall

import (
	"runtime"
	"sync"
)

// Each calls fn for every i in [0, n) on as many goroutines as there are
// processors, and returns the error of the lowest i that failed, so that
// the error is the same as a loop in order would give.
func Each(n int, fn func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				errs[i] = fn(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
