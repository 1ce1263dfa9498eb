package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	podP1 = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"}}`
	podP2 = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p2"}}`
)

// TestReadEveryLayout: every object of every layout is read, with its
// line: compact JSON Lists (all items on one line), JSON documents in a
// YAML stream (the first one at the first byte, or after "---" and
// comments), and Lists inside Lists, in YAML and in JSON.
func TestReadEveryLayout(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		want        []got
	}{
		{"compact json list", `{"apiVersion":"v1","items":[` + podP1 + `,` + podP2 + `],"kind":"List","metadata":{"resourceVersion":""}}` + "\n",
			[]got{{"Pod", "p1", 1}, {"Pod", "p2", 1}}},
		{"json documents, first at the first byte", podP1 + "\n---\n" + podP2 + "\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n",
			[]got{{"Pod", "p1", 1}, {"Pod", "p2", 3}, {"Service", "s", 5}}},
		{"json documents after separators and comments", "---\n# Source: x.yaml\n" + podP1 + " # trailing\n---\n\n{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n  \"metadata\": {\"name\": \"p2\"}\n}\n# after\n",
			[]got{{"Pod", "p1", 3}, {"Pod", "p2", 6}}},
		{"json list document in a yaml stream", "---\n" + `{"apiVersion":"v1","kind":"List","items":[` + podP1 + ",\n" + podP2 + "]}\n",
			[]got{{"Pod", "p1", 2}, {"Pod", "p2", 3}}},
		{"yaml flow mapping is still yaml", "---\n{apiVersion: v1, kind: Pod, metadata: {name: p1}}\n",
			[]got{{"Pod", "p1", 2}}},
		{"json list in a json list", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"List","items":[` + podP1 + "]},\n" + podP2 + "]}",
			[]got{{"Pod", "p1", 1}, {"Pod", "p2", 2}}},
		{"yaml list in a kubectl list", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: Pod\n    metadata: {name: p1}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p2}\nkind: List\n",
			[]got{{"Pod", "p1", 6}, {"Pod", "p2", 9}}},
		{"yaml list in an indented list", "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: PodList\n    items:\n      - apiVersion: v1\n        kind: List\n        items:\n          - {apiVersion: v1, kind: Pod, metadata: {name: p1}}\n  - {apiVersion: v1, kind: Pod, metadata: {name: p2}}\n",
			[]got{{"Pod", "p1", 10}, {"Pod", "p2", 11}}},
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

// TestReaderCountsEveryObject: the Reader passes on and counts every
// object of a compact JSON List, though they all start on line 1, and a
// broken YAML document after JSON ones is a problem while the documents
// around it are read.
func TestReaderCountsEveryObject(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "list.json")
	os.WriteFile(list, []byte(`{"apiVersion":"v1","items":[`+podP1+`,`+podP2+`,{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}}],"kind":"List"}`), 0o644)
	r, got := readWith(t, "", list)
	if g := strings.Join(got, " "); g != "Pod/1 Pod/1 Service/1" || r.Objects != 3 || len(r.Problems) != 0 {
		t.Errorf("compact list: objects %q, count %d, problems %+v", g, r.Objects, r.Problems)
	}
	mixed := filepath.Join(dir, "mixed.yaml")
	os.WriteFile(mixed, []byte(podP1+"\n---\napiVersion: v1\nkind: Service\nmetadata: {name: b\n---\n"+podP2+"\n"), 0o644)
	r, got = readWith(t, "", mixed)
	if g := strings.Join(got, " "); g != "Pod/1 Pod/7" || r.Objects != 2 {
		t.Errorf("mixed: objects %q, count %d", g, r.Objects)
	}
	if len(r.Problems) != 1 || r.Problems[0].Line != 4 || r.Problems[0].Name != "b" {
		t.Errorf("mixed: problems %+v", r.Problems)
	}
}

// TestJSONDocumentsAreCheap: a JSON document in a YAML stream whose kind
// no check wants costs what a YAML one does (its header is read, not the
// whole), and a wanted one is read by the JSON reader, not built node by
// node by the YAML library (which allocates for every value).
func TestJSONDocumentsAreCheap(t *testing.T) {
	layouts := streamLayouts(t, 20)
	for _, tc := range []struct {
		layout string
		want   Want
		max    float64
	}{
		// 6 and 16 today; over 300 each through the YAML library.
		{"json-docs-compact", func(string, string) bool { return false }, 12},
		{"json-docs", func(string, string) bool { return false }, 12},
		{"json-docs-compact", nil, 40},
		{"json-docs", nil, 40},
	} {
		text := layouts[tc.layout]
		n := 0
		allocs := testing.AllocsPerRun(2, func() {
			n = 0
			if err := Read("in.yaml", strings.NewReader(string(text)), tc.want, func(Doc) error { n++; return nil }); err != nil {
				t.Fatal(err)
			}
		})
		if n != 20 {
			t.Fatalf("%s: %d objects", tc.layout, n)
		}
		if per := allocs / 20; per > tc.max {
			t.Errorf("%s (wanted: %v): %.1f allocations an object, want at most %.0f", tc.layout, tc.want == nil, per, tc.max)
		}
	}
}
