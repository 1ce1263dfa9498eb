package api

import (
	"bytes"
	"sync"

	"github.com/incidentlib/incidentlib"
)

// maxBodies bounds how many encoded cases are kept (a case is about 20 KB
// of JSON): every case of a corpus of that size; past it, cases are
// encoded per request.
const maxBodies = 4096

// bodies keeps the encoded JSON of public cases by the case value the
// index holds. A case is never changed in place (a write indexes a new
// value), so an entry is right for as long as its key is the case served;
// entries of replaced cases stay until the table is reset, which happens
// when it is full.
type bodies struct {
	mu sync.RWMutex
	m  map[*incidentlib.Case]*encoded
}

type encoded struct {
	body []byte
	etag string
}

func (b *bodies) get(c *incidentlib.Case, value func() (any, error)) (*encoded, error) {
	b.mu.RLock()
	e := b.m[c]
	b.mu.RUnlock()
	if e != nil {
		return e, nil
	}
	v, err := value()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := encodeJSON(&buf, v); err != nil {
		return nil, err
	}
	e = &encoded{body: buf.Bytes(), etag: etagOf(buf.Bytes())}
	b.mu.Lock()
	if b.m == nil || len(b.m) >= maxBodies {
		b.m = map[*incidentlib.Case]*encoded{}
	}
	b.m[c] = e
	b.mu.Unlock()
	return e, nil
}
