package search

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

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

// FuzzReadPasteGates holds the gates of readPaste's patterns (chars) to the
// patterns: read with the gates obeyed, every text reads as with every
// pattern run. The seeds are the judged pastes and queries, and lines made
// to hold one pattern's characters and not another's.
func FuzzReadPasteGates(f *testing.F) {
	for _, file := range []string{"testdata/pastes.yaml", "testdata/relevance.yaml", "testdata/unanswerable.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var items []yaml.Node
		if err := yaml.Unmarshal(data, &items); err != nil {
			f.Fatal(err)
		}
		for _, n := range items {
			if n.Kind == yaml.ScalarNode {
				f.Add(n.Value)
				continue
			}
			var q struct {
				Q string `yaml:"q"`
			}
			if err := n.Decode(&q); err != nil {
				f.Fatal(err)
			}
			f.Add(q.Q)
		}
	}
	for _, s := range []string{
		"", "\n\n", "conntrack table full", "deadbeefcafe", "deadbeef-dead-beef-dead-beefdeadbeef",
		"abcdefab-abcd-abcd-abcd-abcdefabcdef leaked", "svc.cluster.local:6443 refused",
		"kube-dns.kube-system:53 i/o timeout", "fe80::1%eth0", "[::1]:8080", "level=error msg=x",
		`{"level":"warn","ts":1.7e9,"caller":"a/b.go:12"}`, "[error] x", "ERROR: y", "a=b c=\"d e\"",
		"coredns-5d78c9869d-x7k2p CrashLoopBackOff", "ingress-nginx-controller-abcde", "Dec  2 05:40:21 host k: x",
		"E1202 05:40:21.123456    1 proxier.go:610] x", "[12345.678901] oom", "31#31: *8812 y", "ſignal: killed",
		// each pattern alone
		"at Main.java:42 in run", "0xdeadbeef", "10.0.0.1", "10.96.0.10:53", "count 12345678", "read i/o",
		`"GET /healthz HTTP/1.1"`, "x, client: y", "ts=2024 msg", `"time":"now"`, "2024-12-02T05:40:21Z",
		"at 05:40:21.5 it", "Error: UPGRADE FAILED: x", "sha256:abcdef0123456789", "node.example.com down",
	} {
		f.Add(s)
	}
	keep := func(s string) bool { return len(s)%3 == 0 }
	f.Fuzz(func(t *testing.T, text string) {
		for _, k := range []func(string) bool{nil, keep} {
			got, want := readPasteGated(text, k, true), readPasteGated(text, k, false)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("readPaste(%q) with the gates:\n%+v\nwith every pattern run:\n%+v", text, got, want)
			}
		}
	})
}
