// Package yamlnode says what a YAML node is, in words, for messages that
// name a value of the wrong shape ("title is the value \"x\"; expected a
// mapping").
package yamlnode

import (
	"fmt"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// MaxValue is how many bytes of a scalar's value Describe quotes.
const MaxValue = 40

// Describe names what n is: "a mapping", "a list", "an alias", "null", or
// the value of a scalar, quoted and cut to MaxValue bytes (at a character
// boundary, with "…" where it was cut).
func Describe(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("the value %q", Truncate(n.Value, MaxValue))
	}
	return "nothing"
}

// Truncate cuts s to at most n bytes, at a character boundary, and marks
// the cut with "…".
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
