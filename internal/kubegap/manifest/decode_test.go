package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestScanJSON(t *testing.T) {
	for _, tc := range []struct {
		in    string
		final bool
		n     int
		err   string // "" ok, "more", or a part of the message
	}{
		{`{"a":[1,-2.5e+3,true,false,null,"x\"\u00e9"]} tail`, false, 45, ""},
		{`{}`, false, 2, ""},
		{`"s"`, false, 3, ""},
		{`12`, false, 0, "more"},
		{`12`, true, 2, ""},
		{`{"a":1`, false, 0, "more"},
		{`{"a":1`, true, 6, "unexpected end"},
		{`{"a":1,}`, false, 7, "looking for beginning of object key"},
		{`[1,]`, false, 3, "looking for beginning of value"},
		{`{"a" 1}`, false, 5, "after object key"},
		{`[01]`, false, 2, "after array element"},
		{`["\x"]`, false, 3, "in string escape code"},
		{"[\"a\x01\"]", false, 3, "in string literal"},
		{`[tru]`, false, 4, "in literal true"},
		{`{"a":1]`, false, 6, "after object key:value pair"},
		{`[1}`, false, 2, "after array element"},
	} {
		n, err := scanJSON([]byte(tc.in), tc.final)
		switch {
		case tc.err == "" && err != nil, tc.err == "more" && err != errMore,
			tc.err != "" && tc.err != "more" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("scanJSON(%q, %v): error %v, want %q", tc.in, tc.final, err, tc.err)
		case tc.err != "more" && n != tc.n:
			t.Errorf("scanJSON(%q, %v) = %d, want %d (%v)", tc.in, tc.final, n, tc.n, err)
		}
	}
}

// FuzzScanJSON: scanJSON accepts exactly what json.Valid accepts, and a
// value cut anywhere asks for more input instead of failing.
func FuzzScanJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e+3,true,false,null,"x\"\u00e9"]}`, `[]`, `"\ud800"`, `-0.0e-0`, `{"a":{"b":[[]]}}`, `01`, `[1,]`, "\"\x7f\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		i := 0
		for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
			i++
		}
		b := data[i:]
		n, err := scanJSON(b, true)
		ours := err == nil && len(bytes.TrimLeft(b[n:], " \t\r\n")) == 0
		if theirs := json.Valid(data); ours != theirs {
			t.Fatalf("scanJSON says valid=%v (n=%d, %v), json.Valid says %v, for %q", ours, n, err, theirs, data)
		}
		if err == errMore {
			t.Fatalf("errMore with final set, for %q", data)
		}
		if err == nil {
			// Every proper prefix of a value asks for more (or, for a
			// number, may end early); none is an error.
			for k := 0; k < n; k++ {
				if _, perr := scanJSON(b[:k], false); perr != nil && perr != errMore {
					t.Fatalf("prefix %q of valid %q: %v", b[:k], b[:n], perr)
				}
			}
		}
	})
}

// FuzzWantDeclines: reading with a want function that declines every kind
// gives the same objects (kind, apiVersion, file, line) as reading all of
// them, whenever reading all of them succeeds: the paths that skip objects
// no check reads (peeked headers, unparsed YAML items and documents, JSON
// values never copied) agree with the full parse.
func FuzzWantDeclines(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\n",
		"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}\nkind: List\n",
		`{"apiVersion":"v1","kind":"Pod"}{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Pod"}],"kind":"List"}`,
		"--- |\nkind: Pod\napiVersion: v1\n",
		"kind: Pod\napiVersion: v1\nkind: Node\n",
		"---\napiVersion: \"v1\"\nkind: 'Pod'\n---\n{\"kind\": \"Pod\", \"apiVersion\": \"v1\"}\n",
		"apiVersion: v1\nitems:\n- kind: Pod#x\n  apiVersion: v1\n-\n  kind: Node\n  apiVersion: v1\nkind: List\n",
		"---\nkind: Pod\t# c\napiVersion: \"v1\"\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var all []string
		if err := Read("f", bytes.NewReader(data), nil, func(d Doc) error {
			all = append(all, fmt.Sprintf("%s %s %d", d.APIVersion, d.Kind, d.Line))
			return nil
		}); err != nil {
			return
		}
		var none []string
		err := Read("f", bytes.NewReader(data), func(string, string) bool { return false }, func(d Doc) error {
			if d.JSON != nil {
				t.Fatalf("a declined object came with its JSON")
			}
			none = append(none, fmt.Sprintf("%s %s %d", d.APIVersion, d.Kind, d.Line))
			return nil
		})
		if err != nil {
			t.Fatalf("reading all succeeded, declining all failed: %v\n%q", err, data)
		}
		if strings.Join(all, "\n") != strings.Join(none, "\n") {
			t.Fatalf("wanting all: %q\ndeclining all: %q\nfor %q", all, none, data)
		}
	})
}
