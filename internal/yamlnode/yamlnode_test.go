package yamlnode

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestDescribe: every kind of node is named, a long value is cut at a
// character boundary (never inside one), and a null is not "the value".
func TestDescribe(t *testing.T) {
	root := func(src string) *yaml.Node {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Content[0]
	}
	long := strings.Repeat("a", 39) + "é and more"
	for _, tc := range []struct {
		n    *yaml.Node
		want string
	}{
		{root("{a: 1}"), "a mapping"},
		{root("[1, 2]"), "a list"},
		{root("a: &x 1\nb: *x\n").Content[3], "an alias"},
		{root("null"), "null"},
		{root("~"), "null"},
		{root("kubernetes"), `the value "kubernetes"`},
		{root(`"null"`), `the value "null"`},
		{root(long), `the value "` + strings.Repeat("a", 39) + `…"`},
		{root(strings.Repeat("b", 40)), `the value "` + strings.Repeat("b", 40) + `"`},
		{&yaml.Node{Kind: yaml.DocumentNode}, "a document"},
		{&yaml.Node{}, "nothing"},
		{nil, "nothing"},
	} {
		if got := Describe(tc.n); got != tc.want {
			t.Errorf("Describe(%v) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
