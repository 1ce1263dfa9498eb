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
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Doc is one object read from a manifest.
type Doc struct {
	APIVersion string
	Kind       string
	File       string
	Line       int
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
// *.json below it, in name order) or "-" for stdin.
func ReadPaths(paths []string, stdin io.Reader, want Want, fn func(Doc) error) error {
	for _, p := range paths {
		if p == "-" {
			if err := Read("<stdin>", stdin, want, fn); err != nil {
				return err
			}
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, unwrapPathError(err))
		}
		files := []string{p}
		if st.IsDir() {
			files = nil
			err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() {
					if path != p && strings.HasPrefix(d.Name(), ".") {
						return filepath.SkipDir
					}
					return nil
				}
				switch strings.ToLower(filepath.Ext(path)) {
				case ".yaml", ".yml", ".json":
					files = append(files, path)
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("read %s: %w", p, unwrapPathError(err))
			}
			sort.Strings(files)
		}
		for _, f := range files {
			if err := readFile(f, want, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

func readFile(path string, want Want, fn func(Doc) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, unwrapPathError(err))
	}
	defer f.Close()
	return Read(path, f, want, fn)
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
