// Package api is the keyless JSON API under /api/, and the token-guarded
// writes beside it.
package api

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/httpx"
)

// ErrorBody is the shape of every error answer.
type ErrorBody = httpx.ErrorBody

// statusOf maps the shared error kinds to HTTP, in one table.
var statusOf = []struct {
	kind   error
	status int
	code   string
}{
	{incidentlib.ErrInvalid, http.StatusBadRequest, "bad_request"},
	{incidentlib.ErrNotFound, http.StatusNotFound, "not_found"},
	{incidentlib.ErrConflict, http.StatusConflict, "conflict"},
	{incidentlib.ErrUnauthorized, http.StatusUnauthorized, "unauthorized"},
	{incidentlib.ErrUnavailable, http.StatusServiceUnavailable, "unavailable"},
	{errTooLarge, http.StatusRequestEntityTooLarge, "payload_too_large"},
}

// WriteError answers with the JSON error for err. Unknown errors are logged
// and answered as a 500 without their detail.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	for _, s := range statusOf {
		if errors.Is(err, s.kind) {
			msg := err.Error()
			if s.kind == incidentlib.ErrUnavailable {
				log.Warn("store unavailable", "err", err, "path", r.URL.Path)
				msg = "the database is unavailable; reads still work, try the write again shortly"
			}
			if s.kind == incidentlib.ErrUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="incidentlib"`)
			}
			WriteErrorCode(w, s.status, s.code, msg)
			return
		}
	}
	log.Error("request failed", "err", err, "path", r.URL.Path)
	WriteErrorCode(w, http.StatusInternalServerError, "internal", "something went wrong on the server; the request id in the X-Request-Id header helps find it in the logs")
}

// SetCORS marks a read answer as open to every origin and exposes the
// headers a client script needs: the ETag to revalidate, Retry-After on 429.
func SetCORS(h http.Header) {
	h["Access-Control-Allow-Origin"] = anyOrigin
	h["Access-Control-Expose-Headers"] = exposed
}

// The values of the headers every answer carries, shared by all of them
// (no one changes a header's value in place; Add makes a new slice).
var (
	anyOrigin    = []string{"*"}
	exposed      = []string{"ETag, Retry-After, X-Request-Id"}
	jsonType     = []string{"application/json; charset=utf-8"}
	publicMinute = []string{"public, max-age=60"}
)

// WriteErrorCode answers with a JSON error of the given status and code.
func WriteErrorCode(w http.ResponseWriter, status int, code, msg string) {
	httpx.WriteError(w, status, code, msg)
}

// jsonAppender is a value that writes its own JSON, the same bytes
// encoding/json would, without reflection (view.SearchResponse).
type jsonAppender interface{ AppendJSON([]byte) []byte }

var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// WriteJSON answers a GET with v as JSON, with an ETag; a matching
// If-None-Match gets 304 Not Modified.
func WriteJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 1<<20 {
			bodyPool.Put(buf)
		}
	}()
	if err := encodeJSON(buf, v); err != nil {
		WriteErrorCode(w, http.StatusInternalServerError, "internal", "the answer could not be encoded")
		return
	}
	etag := ""
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		etag = etagOf(buf.Bytes())
	}
	writeEncoded(w, r, status, buf.Bytes(), etag)
}

// encodeJSON writes v as JSON and a newline, as encoding/json's Encoder
// does with HTML escaping off.
func encodeJSON(buf *bytes.Buffer, v any) error {
	if a, ok := v.(jsonAppender); ok {
		b := a.AppendJSON(buf.AvailableBuffer())
		buf.Write(append(b, '\n'))
		return nil
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// etagOf is the strong ETag of a body: its 64-bit xxHash, the same in
// every replica. A validator needs no cryptographic hash (a client only
// ever compares it with the ETag the same URL gave it), and xxHash runs at
// memory speed where SHA-256 took a twentieth of a search's time.
func etagOf(body []byte) string {
	var b [2 + 16]byte
	b[0] = '"'
	hex.Encode(b[1:17], binary.BigEndian.AppendUint64(nil, xxhash.Sum64(body)))
	b[17] = '"'
	return string(b[:])
}

// writeEncoded answers body, already encoded, with its ETag on a GET or
// HEAD; a matching If-None-Match gets 304 Not Modified.
func writeEncoded(w http.ResponseWriter, r *http.Request, status int, body []byte, etag string) {
	h := w.Header()
	h["Content-Type"] = jsonType
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && etag != "" {
		h["Etag"] = []string{etag}
		if h.Get("Cache-Control") == "" {
			h["Cache-Control"] = publicMinute
		}
		if status == http.StatusOK && httpx.NoneMatch(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	// The length up front: the body goes out in one piece, not in chunks
	// (the gzip layer drops it when it compresses).
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}
