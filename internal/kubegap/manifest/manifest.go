// Package manifest reads Kubernetes objects from YAML or JSON: single and
// multi-document files, `kind: List` (what `kubectl get -o yaml|json`
// prints), Helm-rendered output, folders and standard input. Every object
// comes out as JSON with the file and line it started on; every error names
// the file and line.
package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// Doc is one object read from a manifest.
type Doc struct {
	APIVersion string
	Kind       string
	File       string
	Line       int
	// Template is the template that produced the object (Helm's "# Source:"
	// comment), when the reader knows it.
	Template string
	// FromTemplate is set by the caller when File is the chart template
	// that rendered the object (render.Doc.FromTemplate).
	FromTemplate bool
	// JSON is the object, or nil when the caller's want function declined it.
	JSON []byte
}

// Error is a problem at a place in a manifest.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Limits that keep a hostile or mistaken input from using unbounded memory.
const (
	// MaxObjectJSON caps the JSON form of one object (aliases included).
	MaxObjectJSON = 32 << 20
	// MaxDepth caps nesting.
	MaxDepth = 200
)

// Want decides from an object's apiVersion and kind whether its body is
// needed. Declined objects still come out, without JSON, so that callers can
// count and report them. A nil Want wants everything.
type Want func(apiVersion, kind string) bool

// Read reads every object in r, which is named name in messages, and calls
// fn for each. It stops at the first error.
func Read(name string, r io.Reader, want Want, fn func(Doc) error) error {
	if want == nil {
		want = func(string, string) bool { return true }
	}
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := firstByte(br)
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return &Error{File: name, Msg: err.Error()}
	}
	if first == '{' || first == '[' {
		return readJSON(name, br, want, fn)
	}
	return readYAML(name, br, want, fn)
}

// firstByte peeks past white space (and a UTF-8 byte order mark).
func firstByte(br *bufio.Reader) (byte, error) {
	for i := 0; ; i++ {
		b, err := br.Peek(i + 1)
		if err != nil {
			return 0, err
		}
		c := b[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		if i == 0 && bytes.HasPrefix(b, []byte{0xEF}) {
			if bb, err := br.Peek(3); err == nil && bytes.Equal(bb, []byte{0xEF, 0xBB, 0xBF}) {
				_, _ = br.Discard(3)
				i = -1
				continue
			}
		}
		return c, nil
	}
}

// ReadPaths reads each path: a file, a folder (every *.yaml, *.yml and
// *.json below it, in name order) or "-" for stdin. Unlike a Reader it
// stops at the first problem, which it returns as an *Error.
func ReadPaths(paths []string, stdin io.Reader, want Want, fn func(Doc) error) error {
	r := &Reader{Want: want, Stdin: stdin}
	if err := r.ReadPaths(paths, fn); err != nil {
		return err
	}
	for _, p := range r.Problems {
		if p.Level == LevelError {
			return &Error{File: p.File, Line: p.Line, Msg: p.Message}
		}
	}
	return nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// header is the part of an object that says what it is.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

func isList(kind string) bool { return kind == "List" || strings.HasSuffix(kind, "List") }

// emit checks an object's header and passes it on.
func emit(name string, line int, h header, body func() ([]byte, error), want Want, fn func(Doc) error) error {
	if h.Kind == "" {
		return &Error{File: name, Line: line, Msg: "object has no kind"}
	}
	if h.APIVersion == "" {
		return &Error{File: name, Line: line, Msg: fmt.Sprintf("%s has no apiVersion", h.Kind)}
	}
	d := Doc{APIVersion: h.APIVersion, Kind: h.Kind, File: name, Line: line}
	if want(h.APIVersion, h.Kind) {
		b, err := body()
		if err != nil {
			return &Error{File: name, Line: line, Msg: err.Error()}
		}
		d.JSON = b
	}
	return fn(d)
}
