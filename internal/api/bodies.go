package api

import (
	"bytes"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/casecache"
)

// maxBodies bounds how many encoded cases are kept (a case is about 20 KB
// of JSON): every case of a corpus of that size; past it, cases are
// encoded per request.
const maxBodies = 4096

// bodies keeps the encoded JSON of public cases by the case value the
// index holds (casecache says why an entry never goes stale).
type bodies struct {
	cache *casecache.Cache[*encoded]
}

func newBodies() bodies { return bodies{casecache.New[*encoded](maxBodies)} }

type encoded struct {
	body []byte
	etag string
}

func (b *bodies) get(c *incidentlib.Case, value func() (any, error)) (*encoded, error) {
	return b.cache.Get(c, func() (*encoded, error) {
		v, err := value()
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := encodeJSON(&buf, v); err != nil {
			return nil, err
		}
		return &encoded{body: buf.Bytes(), etag: etagOf(buf.Bytes())}, nil
	})
}
