// Package httpx holds the HTTP pieces the API and the web pages share: the
// JSON error body every machine-facing error answers with, and entity-tag
// matching for conditional requests.
package httpx

import (
	"encoding/json"
	"net/http"
	"strings"
)

// ErrorBody is the shape of every JSON error answer.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail carries a stable code and a message for people.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// WriteError answers with a JSON error of the given status and code. It
// drops any ETag set before: an error is never revalidated.
func WriteError(w http.ResponseWriter, status int, code, msg string) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("ETag")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(ErrorBody{ErrorDetail{code, msg}})
}

// NoneMatch reports whether an If-None-Match header value matches etag,
// so that a GET may answer 304 Not Modified. It follows RFC 9110, section
// 13.1.2: "*" matches any current representation, the header is a list of
// entity tags separated by commas, and comparison is weak (W/"x" matches
// "x" and the reverse). A tag may itself hold a comma; a malformed member
// matches nothing. etag is the tag the answer carries, weak or strong.
func NoneMatch(header, etag string) bool {
	want, _ := opaque(etag) // "" when malformed: then only "*" matches
	s := header
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" {
			return false
		}
		if s[0] == '*' {
			rest := strings.TrimLeft(s[1:], " \t")
			if rest == "" || rest[0] == ',' {
				return true
			}
			return false
		}
		s = strings.TrimPrefix(s, "W/")
		if s == "" || s[0] != '"' {
			return false // not an entity tag: stop rather than guess
		}
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return false
		}
		if want != "" && s[:end+2] == want {
			return true
		}
		s = s[end+2:]
		if t := strings.TrimLeft(s, " \t"); t != "" && t[0] != ',' {
			return false
		}
	}
}

// opaque returns the quoted part of an entity tag, without its weakness.
func opaque(etag string) (string, bool) {
	t := strings.TrimPrefix(strings.TrimSpace(etag), "W/")
	if len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' || strings.Contains(t[1:len(t)-1], `"`) {
		return "", false
	}
	return t, true
}
