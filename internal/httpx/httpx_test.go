package httpx_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/incidentlib/incidentlib/internal/httpx"
)

func TestNoneMatch(t *testing.T) {
	const tag = `"abc"`
	for _, tc := range []struct {
		name, header, etag string
		want               bool
	}{
		{"empty header", "", tag, false},
		{"same tag", `"abc"`, tag, true},
		{"other tag", `"abd"`, tag, false},
		{"prefix is not a match", `"ab"`, tag, false},
		{"longer is not a match", `"abcd"`, tag, false},
		{"star", `*`, tag, true},
		{"star with spaces", `  * `, tag, true},
		{"star before a list", `*, "x"`, tag, true},
		{"star followed by junk", `*x`, tag, false},
		{"weak header tag matches strong etag", `W/"abc"`, tag, true},
		{"strong header tag matches weak etag", `"abc"`, `W/"abc"`, true},
		{"weak both", `W/"abc"`, `W/"abc"`, true},
		{"second of a list", `"x", "abc"`, tag, true},
		{"list without spaces", `"x","y","abc"`, tag, true},
		{"list with tabs and empty members", "\t\"x\" ,, \t\"abc\"", tag, true},
		{"list where none matches", `"x", W/"y"`, tag, false},
		{"comma inside a tag", `"a,b"`, `"a,b"`, true},
		{"comma inside a tag is not a separator", `"a,abc"`, tag, false},
		{"unquoted tag", `abc`, tag, false},
		{"unterminated tag", `"abc`, tag, false},
		{"junk after a tag stops the list", `"x" junk, "abc"`, tag, false},
		{"lower-case weak prefix is not weak", `w/"abc"`, tag, false},
		{"star matches whatever the tag", `*`, `abc`, true},
		{"an unquoted etag matches no tag", `abc, "abc"`, `abc`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := httpx.NoneMatch(tc.header, tc.etag); got != tc.want {
				t.Errorf("NoneMatch(%q, %q) = %v, want %v", tc.header, tc.etag, got, tc.want)
			}
		})
	}
}

func TestWriteError(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.Header().Set("ETag", `"stale"`)
	httpx.WriteError(rec, http.StatusNotFound, "not_found", "no case IL-9999 <b>")
	if rec.Code != http.StatusNotFound {
		t.Errorf("status %d", rec.Code)
	}
	h := rec.Header()
	for k, want := range map[string]string{"Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "ETag": ""} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	var body httpx.ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if body.Error.Code != "not_found" || body.Error.Message != "no case IL-9999 <b>" {
		t.Errorf("body %s", rec.Body)
	}
}

// TestClientBehindTrustedProxies: X-Forwarded-For is believed only from a
// trusted proxy, and only the hops that trusted proxies appended.
func TestClientBehindTrustedProxies(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	tests := []struct {
		peer    string
		xff     []string
		trusted []netip.Prefix
		want    string
	}{
		{"10.1.2.3:5000", []string{"203.0.113.5"}, nil, "10.1.2.3"},                              // off by default
		{"10.1.2.3:5000", []string{"203.0.113.5"}, trusted, "203.0.113.5"},                       // from a trusted proxy
		{"198.51.100.1:5000", []string{"203.0.113.5"}, trusted, "198.51.100.1"},                  // from an untrusted peer
		{"10.1.2.3:5000", []string{"192.0.2.66, 203.0.113.5, 10.9.9.9"}, trusted, "203.0.113.5"}, // a forged first hop is passed over
		{"10.1.2.3:5000", []string{"192.0.2.66", "203.0.113.5"}, trusted, "203.0.113.5"},         // several header lines
		{"10.1.2.3:5000", []string{"203.0.113.5, garbage"}, trusted, "10.1.2.3"},                 // a malformed hop
		{"10.1.2.3:5000", nil, trusted, "10.1.2.3"},                                              // no header
		{"[::1]:5000", []string{"2001:db8::7"}, trusted, "2001:db8::7"},
		{"10.1.2.3:5000", []string{"10.4.4.4"}, trusted, "10.1.2.3"}, // every hop a proxy
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tt.peer
		for _, v := range tt.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := httpx.ClientAddr(r, tt.trusted); got != tt.want {
			t.Errorf("peer %s, X-Forwarded-For %q, trusted %v: client %s, want %s", tt.peer, tt.xff, tt.trusted, got, tt.want)
		}
	}
}
