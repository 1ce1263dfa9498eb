package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestJSONErrors: a broken JSON manifest is refused at the line of the
// fault, with what is wrong.
func TestJSONErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\"apiVersion\": \"v1\",\n \"kind\": \"Pod\",\n \"metadata\": {\"name\": \"a\",}\n}", "in.json:3: invalid JSON: "},
		{"[\n{\"apiVersion\": \"v1\", \"kind\": \"Pod\"},\n\n{\"apiVersion\": \"v1\", \"kind\":", "in.json:4: invalid JSON: unexpected end of input"},
		{"{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n3]}", "in.json:2: list item must be an object"},
		{"{\"apiVersion\": \"v1\", \"kind\": \"Pod\"}\n\n]", "in.json:3: expected a JSON object, found ']'"},
		{"[{\"apiVersion\": \"v1\", \"kind\": \"Pod\"} {\"a\": 1}]", "in.json:1: invalid JSON: "},
		{"{\"kind\": \"Pod\"}", "in.json:1: Pod has no apiVersion"},
	} {
		err := Read("in.json", strings.NewReader(tc.in), nil, func(Doc) error { return nil })
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Read(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestJSONLines: every object of a JSON List, written compact or
// indented, comes out at the line it starts on.
func TestJSONLines(t *testing.T) {
	in := "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n    {\"apiVersion\": \"v1\", \"kind\": \"Pod\"},\n\n    {\n      \"kind\": \"Service\",\n      \"apiVersion\": \"v1\"\n    }\n  ]\n}\n" +
		"[{\"apiVersion\":\"v1\",\"kind\":\"Node\"},{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}]\n" +
		"{\"kind\": \"Secret\",\n \"apiVersion\": \"v1\"}\n"
	var got []string
	if err := Read("in.json", strings.NewReader(in), nil, func(d Doc) error {
		got = append(got, fmt.Sprintf("%s:%d", d.Kind, d.Line))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := "Pod:5 Service:7 Node:13 ConfigMap:13 Secret:14"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
}

// FuzzJSONAgreesWithEncodingJSON: a JSON object or array of objects that
// encoding/json reads, each with a string apiVersion and kind and none a
// List, is read as the same objects, in order, each with the same value.
func FuzzJSONAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"v1","kind":"Pod","a":[1,-2.5e+3,true,false,null,"x\"\u00e9"]}`,
		`[{"kind":"Pod","apiVersion":"v1"},{"apiVersion":"v1","kind":"Node","metadata":{"name":"\ud800"}}]`,
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"x\":\"\x7f\xff\",\"x\":2}",
		`[]`, `{"apiVersion":"v1","kind":"Pod"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		var want []any
		switch v := v.(type) {
		case map[string]any:
			want = []any{v}
		case []any:
			want = v
		default:
			return
		}
		for _, o := range want {
			m, ok := o.(map[string]any)
			if !ok {
				return
			}
			a, aok := m["apiVersion"].(string)
			k, kok := m["kind"].(string)
			if !aok || !kok || a == "" || k == "" || isList(k) {
				return
			}
		}
		got := []any{}
		if err := Read("f.json", bytes.NewReader(data), nil, func(d Doc) error {
			var o any
			if err := json.Unmarshal(d.JSON, &o); err != nil {
				t.Fatalf("object JSON %q: %v", d.JSON, err)
			}
			got = append(got, o)
			return nil
		}); err != nil {
			t.Fatalf("encoding/json reads %q, Read says %v", data, err)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) {
			t.Fatalf("read %s\nencoding/json %s\nfor %q", g, w, data)
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

// TestJSONObjectTooLarge: one value larger than MaxObjectJSON is refused
// at its line, before the reader has buffered much more than the cap.
func TestJSONObjectTooLarge(t *testing.T) {
	big := &countingReader{r: io.LimitReader(repeatByte('a'), 2*MaxObjectJSON)}
	in := io.MultiReader(strings.NewReader("[\n{\"apiVersion\": \"v1\", \"kind\": \"Pod\"},\n{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"x\": \""), big, strings.NewReader("\"}]"))
	n := 0
	err := Read("in.json", in, nil, func(Doc) error { n++; return nil })
	if err == nil || err.Error() != "in.json:3: object too large" {
		t.Fatalf("Read = %v, want in.json:3: object too large", err)
	}
	if n != 1 {
		t.Errorf("%d objects before the large one, want 1", n)
	}
	if big.n > 3*MaxObjectJSON/2 {
		t.Errorf("read %d bytes of the large value, want at most %d", big.n, 3*MaxObjectJSON/2)
	}
}

type repeatByte byte

func (c repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
