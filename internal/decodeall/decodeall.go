// Package decodeall decodes what a caller reads on every core, while it
// reads it: the rows of a store (at start a server reads every case, and
// reading and decoding tens of thousands of JSON documents one after the
// other was most of its start-up) and the files of a corpus.
package decodeall

import (
	"runtime"
	"sync"
)

// Stream calls next until it reports no more rows, and decode on each row
// on as many goroutines as there are processors while next goes on. It
// returns the decoded rows in the order next gave them, or the error of
// next, else of the first row in that order that failed to decode.
func Stream[R, T any](next func() (R, bool, error), decode func(R) (T, error)) ([]T, error) {
	type slot struct {
		row R
		out T
		err error
	}
	jobs := make(chan *slot, 256)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sl := range jobs {
				sl.out, sl.err = decode(sl.row)
				var zero R
				sl.row = zero // what the row held is the decoded value's now
			}
		}()
	}
	var slots []*slot
	var err error
	for {
		var r R
		var ok bool
		if r, ok, err = next(); err != nil || !ok {
			break
		}
		sl := &slot{row: r}
		slots = append(slots, sl)
		jobs <- sl
	}
	close(jobs)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	out := make([]T, len(slots))
	for i, sl := range slots {
		if sl.err != nil {
			return nil, sl.err
		}
		out[i] = sl.out
	}
	return out, nil
}
