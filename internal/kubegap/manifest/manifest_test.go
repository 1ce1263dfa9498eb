package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

type got struct {
	kind, name string
	line       int
}

func readAll(t *testing.T, input string) ([]got, error) {
	t.Helper()
	var out []got
	err := Read("in.yaml", strings.NewReader(input), nil, func(d Doc) error {
		var m struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		if err := json.Unmarshal(d.JSON, &m); err != nil {
			t.Fatalf("doc at line %d is not JSON: %v\n%s", d.Line, err, d.JSON)
		}
		out = append(out, got{d.Kind, m.Metadata.Name, d.Line})
		return nil
	})
	return out, err
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		want        []got
	}{
		{"multi-document", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: b\n",
			[]got{{"Service", "a", 1}, {"Service", "b", 5}}},
		{"helm output", "---\n# Source: chart/templates/svc.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\n# Source: chart/templates/empty.yaml\n---\n# Source: chart/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n",
			[]got{{"Service", "web", 3}, {"Deployment", "web", 11}}},
		{"kubectl list", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n2\nkind: List\nmetadata:\n  resourceVersion: \"\"\n",
			[]got{{"Node", "n1", 3}, {"Node", "n2", 7}}},
		{"empty list", "apiVersion: v1\nkind: List\nitems: []\n", nil},
		{"json list streamed", "{\n \"apiVersion\": \"v1\",\n \"items\": [\n  {\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p1\"}},\n  {\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p2\"}}\n ],\n \"kind\": \"List\"\n}\n",
			[]got{{"Pod", "p1", 4}, {"Pod", "p2", 5}}},
		{"json stream", "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"a\"}}\n{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"b\"}}\n",
			[]got{{"Service", "a", 1}, {"Service", "b", 2}}},
		{"json array", "[{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"a\"}}]", []got{{"Service", "a", 1}}},
		{"byte order mark", "\ufeffapiVersion: v1\nkind: Service\nmetadata: {name: a}\n", []got{{"Service", "a", 1}}},
		{"anchors and merge", "apiVersion: v1\nkind: Service\nmetadata:\n  labels: &l {app: x}\n  annotations:\n    <<: *l\n    extra: y\n  name: a\n", []got{{"Service", "a", 1}}},
		{"comments only", "# nothing here\n---\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := readAll(t, tc.input)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", out, tc.want)
			}
			for i := range out {
				if out[i] != tc.want[i] {
					t.Errorf("object %d: got %+v, want %+v", i, out[i], tc.want[i])
				}
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, input, want string
	}{
		// The YAML library places this one on the line before the bad indent.
		{"bad indentation", "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n labels: {}\n", "in.yaml:4:"},
		{"tab indentation", "apiVersion: v1\nkind: Service\nmetadata:\n\tname: a\n", "in.yaml:4:"},
		{"unclosed flow", "apiVersion: v1\nkind: Service\nmetadata: {name: a\n", "in.yaml:"},
		{"no kind", "apiVersion: v1\nmetadata: {name: a}\n", "in.yaml:1: object has no kind"},
		{"no apiVersion", "kind: Service\n", "in.yaml:1: Service has no apiVersion"},
		{"scalar document", "just text\n", "in.yaml:1: expected an object (a YAML mapping), found the value \"just text\""},
		{"bad json", "{\n \"apiVersion\": \"v1\",\n \"kind\": \"Service\",\n \"metadata\": {\"name\": \"a\",}\n}\n", "in.yaml:4: invalid JSON"},
		{"truncated json", "{\"apiVersion\": \"v1\", \"kind\":", "in.yaml:1: invalid JSON"},
		{"list with scalar item", "apiVersion: v1\nkind: List\nitems:\n- 3\n", "in.yaml:4: list item must be an object, found the value \"3\""},
		{"list with null item", "apiVersion: v1\nkind: List\nitems: [null]\n", "in.yaml:3: list item must be an object, found null"},
		{"second document broken", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\napiVersion: v1\nkind: [\n", "in.yaml:"},
		// After a streamed List's items (left out of the text the library
		// parses), errors keep the lines the library gave before: the
		// line of the key after the items, or of the bad line.
		{"after streamed items", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Service\n  metadata: {name: b}\nkind: List\nmetadata: {a: [b}\n", "in.yaml:9: invalid YAML: did not find expected ',' or ']'"},
		{"after streamed items, at the end", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a}\nkind: \"List\n", "in.yaml:6: invalid YAML: found unexpected end of stream"},
		{"after streamed items and a comment", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a}\n\n# c\nkind: List\n  bad: indent\n", "in.yaml:9: invalid YAML: mapping values are not allowed in this context"},
		{"after the second List's streamed items", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Service\n  metadata: {name: b}\nkind: List\n---\napiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: c}\nkind: List\nmetadata: {a: [b}\n", "in.yaml:16: invalid YAML: did not find expected ',' or ']'"},
		{"before and after streamed items", "apiVersion: v1\nmetadata: {}\n# about the items\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a}\nkind: List\nx: [\n", "in.yaml:9: invalid YAML: did not find expected node content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readAll(t, tc.input)
			if err == nil {
				t.Fatalf("want an error containing %q", tc.want)
			}
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("want *manifest.Error, got %T %v", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, want it to start with %q", err, tc.want)
			}
			if me.Line == 0 {
				t.Errorf("error has no line: %v", err)
			}
		})
	}
}

func TestReadPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: b}\n")
	write("a.json", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"}}`)
	write("sub/c.yml", "apiVersion: v1\nkind: Service\nmetadata: {name: c}\n")
	write("notes.txt", "not a manifest")
	write(".hidden/d.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: d}\n")
	var files []string
	err := ReadPaths([]string{dir, "-"}, strings.NewReader("apiVersion: v1\nkind: Service\nmetadata: {name: stdin}\n"), nil, func(d Doc) error {
		files = append(files, filepath.Base(d.File))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "a.json b.yaml c.yml <stdin>"
	if g := strings.Join(files, " "); g != want {
		t.Errorf("read %q, want %q", g, want)
	}
	if err := ReadPaths([]string{filepath.Join(dir, "missing.yaml")}, nil, nil, func(Doc) error { return nil }); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: got %v", err)
	}
}

// TestWant: declined objects come out without their JSON.
func TestWant(t *testing.T) {
	in := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n"
	var bodies []bool
	err := Read("x", strings.NewReader(in), func(_, kind string) bool { return kind == "Service" }, func(d Doc) error {
		bodies = append(bodies, d.JSON != nil)
		return nil
	})
	if err != nil || len(bodies) != 2 || bodies[0] || !bodies[1] {
		t.Fatalf("got %v %v", bodies, err)
	}
}

func TestAliasBomb(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  a0: &a0 [\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"]\n")
	for i := 1; i < 40; i++ {
		b.WriteString("  a" + itoa(i) + ": &a" + itoa(i) + " [*a" + itoa(i-1) + ", *a" + itoa(i-1) + "]\n")
	}
	err := Read("bomb.yaml", &b, nil, func(Doc) error { return nil })
	if err == nil {
		t.Fatal("want an error for an alias bomb")
	}
}

// TestMergeBomb: merge keys that refer to each other exponentially often
// (without growing the output) must end in an error, not run for ever. The
// fuzzer found this one.
func TestMergeBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\nd0: &d0 {a: 1}\n")
	for i := 1; i < 40; i++ {
		b.WriteString("d" + itoa(i) + ": &d" + itoa(i) + " {<<: [*d" + itoa(i-1) + ", *d" + itoa(i-1) + "]}\n")
	}
	err := Read("bomb.yaml", strings.NewReader(b.String()), nil, func(Doc) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "bomb.yaml:1:") {
		t.Fatalf("want an error at bomb.yaml:1, got %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// FuzzReadManifests: whatever the input, the reader returns objects or an
// error with a place, and never panics.
func FuzzReadManifests(f *testing.F) {
	seeds := []string{
		"apiVersion: v1\nkind: Service\nmetadata: {name: a}\n",
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}\n",
		`{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}],"kind":"List"}`,
		"---\n# Source: x\n---\napiVersion: v1\nkind: ConfigMap\ndata: {a: &x b, c: *x}\n",
		"[{\"kind\": \"A\", \"apiVersion\": \"v\"}]",
		"a: [\n",
		"\ufeff{}",
		"apiVersion: v1\nkind: Service\nspec: {ports: [{port: 0x50}, {port: 1e3}, {port: .inf}]}\n",
		"apiVersion: v1\nkind: C\nd0: &d0 {a: 1}\nd1: &d1 {<<: [*d0, *d0]}\nd2: {<<: [*d1, *d1]}\n",
		"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n-\n  apiVersion: v1\n  kind: Node\nkind: List\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Read("fuzz.yaml", bytes.NewReader(data), nil, func(d Doc) error {
			if d.Kind == "" || d.APIVersion == "" {
				t.Fatalf("object without kind or apiVersion: %+v", d)
			}
			if !json.Valid(d.JSON) {
				t.Fatalf("invalid JSON out: %q", d.JSON)
			}
			return nil
		})
		if err != nil {
			var me *Error
			if !errors.As(err, &me) || me.File != "fuzz.yaml" {
				t.Fatalf("error without a place: %T %v", err, err)
			}
		}
	})
}
