// Package httpx holds the HTTP pieces the API, the server and the web pages
// share: the JSON error body every machine-facing error answers with,
// entity-tag matching for conditional requests, and the client address.
package httpx

import (
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
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

// ClientAddr is the address of the client that sent r: the connection's
// peer, or, when the peer is in one of the trusted proxy networks, the
// nearest address in X-Forwarded-For that is not a trusted proxy. With no
// trusted networks, X-Forwarded-For is ignored.
func ClientAddr(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	isTrusted := func(a netip.Addr) bool {
		a = a.Unmap()
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || len(trusted) == 0 || !isTrusted(peer) {
		return host
	}
	// X-Forwarded-For lists the client first and each proxy's peer after
	// it; only the part that trusted proxies appended can be believed, so
	// it is read from the end.
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop: nothing before it can be believed
		}
		if !isTrusted(a) {
			return a.Unmap().String()
		}
	}
	return host
}
