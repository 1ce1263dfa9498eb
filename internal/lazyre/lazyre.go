// Package lazyre holds regular expressions compiled on first use. A
// package-level regexp.MustCompile runs at the start of every command that
// links the package, whether or not the command ever matches it; kubegap's
// start, which a small scan is mostly made of, paid for expressions that
// only validation, chart templates or error messages use.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles pattern the first time it is
// called and returns the same expression every time; it panics, as
// regexp.MustCompile does, on a bad pattern.
func New(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
