// Package casecache keeps values computed from a case (its encoded JSON,
// the head of its search item) by the case value the index holds. A case
// is never changed in place (a write indexes a new value), so an entry is
// right for as long as its key is the case served; entries of replaced
// cases stay until the table is reset, which happens when it is full.
package casecache

import (
	"sync"

	"github.com/incidentlib/incidentlib"
)

// Cache maps case values to values of V, at most max of them (past it, it
// starts again empty).
type Cache[V any] struct {
	max int
	mu  sync.RWMutex
	m   map[*incidentlib.Case]V
}

// New returns a cache of at most max values.
func New[V any](max int) *Cache[V] { return &Cache[V]{max: max} }

// Get returns the value kept for c, or makes it with make, keeps it and
// returns it. Two callers may make the same value at once; both are right.
func (k *Cache[V]) Get(c *incidentlib.Case, make func() (V, error)) (V, error) {
	k.mu.RLock()
	v, ok := k.m[c]
	k.mu.RUnlock()
	if ok {
		return v, nil
	}
	v, err := make()
	if err != nil {
		return v, err
	}
	k.mu.Lock()
	if k.m == nil || len(k.m) >= k.max {
		k.m = map[*incidentlib.Case]V{}
	}
	k.m[c] = v
	k.mu.Unlock()
	return v, nil
}
