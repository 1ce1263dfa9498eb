package search

import (
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/corpus"
)

// TestReadPaste: what a paste is read as. A log level goes even where the
// index holds the word ("[error]"); nginx's process, connection, request
// line and field names go; an address the index holds whole stays; an API
// version is no signature word.
func TestReadPaste(t *testing.T) {
	holds := func(s string) bool { return s == "error" || s == "1.1.1.1" }
	for _, c := range []struct{ in, want string }{
		{`2026/12/02 05:40:21 [error] 31#31: *8812 client intended to send too large body: 12582912 bytes, client: 10.42.0.1, server: upload.example.com, request: "POST /api/v1/avatar HTTP/1.1", host: "upload.example.com"`,
			`client intended to send too large body: bytes " "`},
		{`[error] upstream timed out, upstream: "http://10.0.0.7:8080/"`, `upstream timed out "http:// /"`},
		{`resolver 1.1.1.1 did not answer`, `resolver 1.1.1.1 did not answer`},
		// Helm's frame names the command, not what went wrong; words in
		// capitals elsewhere stay.
		{`Error: INSTALLATION FAILED: cannot re-use a name that is still in use`, `cannot re-use a name that is still in use`},
		{`Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress`, `another operation (install/upgrade/rollback) is in progress`},
		{`UPGRADE of the INSTALLATION FAILED twice`, `UPGRADE of the INSTALLATION FAILED twice`},
	} {
		got := strings.Join(strings.Fields(readPaste(c.in, holds).text), " ")
		if got != c.want {
			t.Errorf("readPaste(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := New(c.Vocab, nil)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	p := ix.plan("GET /api/v1/pods failed: conntrack_allowance_exceeded v2beta1", &notes)
	if p.sig["v1"] || p.sig["v2beta1"] || !p.sig["conntrack_allowance_exceed"] && !p.sig["conntrack_allowance_exceeded"] {
		t.Errorf("signature terms %v: want conntrack_allowance_exceeded and no API version", p.sig)
	}
}
