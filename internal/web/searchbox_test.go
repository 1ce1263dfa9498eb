package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/web"
)

// TestSearchBoxKeepsLines: every page's search box is a textarea, so that
// a pasted log keeps its lines (no script needed: Enter starts a line, the
// button searches, and the hint says so). The list page gives the paste
// back line for line, titles itself with its first words on one line, and
// says when a paste was longer than the search reads.
func TestSearchBoxKeepsLines(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	paste := "E1202 05:40:21.123456    2188 kubelet.go:2185] \"Skipping pod synchronization\" err=\"PLEG is not healthy: pleg was last seen active 3m12s ago\"\n" +
		"I1202 05:40:22.000001    2188 kubelet.go:2190] <probe> & retry 'now'"
	for _, c := range []struct{ path, lang, q string }{
		{"/", "ko", ""}, {"/en/", "en", ""}, {"/cases", "ko", ""}, {"/en/cases", "en", ""},
		{"/cases?q=" + url.QueryEscape(paste), "ko", paste},
		{"/en/cases?domain=kubernetes&q=" + url.QueryEscape(paste), "en", paste},
		{"/cases?q=" + url.QueryEscape(strings.ReplaceAll(paste, "\n", "\r\n")), "ko", strings.ReplaceAll(paste, "\n", "\r\n")},
	} {
		r := get(t, mux, c.path)
		doc := parseHTML(t, r.body)
		boxes := doc.all(tagged("textarea", "name", "q"))
		if len(boxes) != 1 {
			t.Errorf("%s: %d textareas named q, want 1", c.path, len(boxes))
			continue
		}
		if in := doc.first(tagged("input", "name", "q")); in != nil {
			t.Errorf("%s: the query is still an input (%v)", c.path, in.Attr)
		}
		box := boxes[0]
		if box.Attr["id"] != "q" || box.Attr["aria-describedby"] != "q-hint" {
			t.Errorf("%s: the box is %v, want id q described by q-hint", c.path, box.Attr)
		}
		hint := doc.first(tagged("", "id", "q-hint"))
		if hint == nil || hint.textOf() != locale.T(c.lang, "search.hint") {
			t.Errorf("%s: the hint is %v, want %q", c.path, hint, locale.T(c.lang, "search.hint"))
		}
		// The page holds the query as sent (encoding/xml reads a CR LF as
		// one LF, as a browser's textarea shows it).
		if got, want := box.rawText(), strings.ReplaceAll(c.q, "\r\n", "\n"); got != want {
			t.Errorf("%s: the box holds %q, want %q", c.path, got, want)
		}
		if c.q == "" {
			continue
		}
		if n := strings.Count(r.body, "\nI1202 05:40:22.000001"); n != 1 {
			t.Errorf("%s: the second line starts a line %d times in the page, want once (in the box)", c.path, n)
		}
		title := doc.first(tagged("title")).textOf()
		_, quoted, _ := strings.Cut(title, "‘")
		quoted, _, _ = strings.Cut(quoted, "’")
		if !strings.HasPrefix(quoted, "E1202 05:40:21.123456 2188 kubelet.go:2185]") || strings.Contains(title, "I1202") || len([]rune(quoted)) > 61 {
			t.Errorf("%s: title %q, want the paste's first words on one line, cut", c.path, title)
		}
		if strings.Contains(r.body, "; 1 cases hold") {
			t.Errorf("%s: the match note says \"1 cases hold\"", c.path)
		}
		if strings.Contains(r.body, `class="match-note">`+locale.Tf(c.lang, "list.cut", search.MaxQueryBytes)) {
			t.Errorf("%s: a short paste is said to be cut", c.path)
		}
	}

	// A paste longer than the search reads is cut, and the page says so in
	// the reader's language; the CR of CR LF lines does not count.
	long := strings.Repeat("dial tcp 10.96.0.10:53: connect: connection refused\n", 45) // 2,340 bytes
	for _, lang := range []string{"ko", "en"} {
		prefix := map[string]string{"ko": "", "en": "/en"}[lang]
		note := locale.Tf(lang, "list.cut", search.MaxQueryBytes)
		if body := get(t, mux, prefix+"/cases?q="+url.QueryEscape(long)).body; !strings.Contains(body, note) {
			t.Errorf("%s: a %d-byte paste is cut without the note %q", lang, len(long), note)
		}
		fits := strings.Repeat("dial tcp 10.96.0.10:53: connect: connection refused\r\n", 38) // 1,976 bytes without the CRs
		if body := get(t, mux, prefix+"/cases?q="+url.QueryEscape(fits)).body; strings.Contains(body, note) {
			t.Errorf("%s: a paste of %d bytes, %d without its CRs, is said to be cut", lang, len(fits), len(strings.ReplaceAll(fits, "\r", "")))
		}
	}
}
