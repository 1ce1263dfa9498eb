// Package manifest reads Kubernetes objects from YAML or JSON: single and
// multi-document files, `kind: List` (what `kubectl get -o yaml|json`
// prints), Helm-rendered output, folders and standard input. Every object
// comes out as JSON with the file and line it started on; every error names
// the file and line.
package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
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

// ---- JSON ----

// The JSON reader scans values itself (one pass, counting lines) instead of
// going through encoding/json's Decoder, which reads every byte twice; a
// 650 MB dump of a large cluster is mostly objects no check reads.

type jscan struct {
	r    *bufio.Reader
	name string
	line int
	buf  []byte
}

func (s *jscan) errf(line int, format string, args ...any) error {
	return &Error{File: s.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// peek returns the next byte that is not white space, without consuming it.
func (s *jscan) peek() (byte, error) {
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case '\n':
			s.line++
			fallthrough
		case ' ', '\t', '\r':
			_, _ = s.r.Discard(1)
			continue
		}
		return b[0], nil
	}
}

func (s *jscan) expect(c byte) error {
	got, err := s.peek()
	if err != nil {
		return s.errf(s.line, "invalid JSON: unexpected end of input, expected %q", c)
	}
	if got != c {
		return s.errf(s.line, "invalid JSON: expected %q, found %q", c, got)
	}
	_, _ = s.r.Discard(1)
	return nil
}

// value reads one complete JSON value and returns it (valid or not: the
// caller validates what it keeps). The slice is reused by the next call.
func (s *jscan) value() ([]byte, int, error) {
	c, err := s.peek()
	if err != nil {
		return nil, s.line, s.errf(s.line, "invalid JSON: unexpected end of input")
	}
	start := s.line
	out := s.buf[:0]
	depth, inStr, esc := 0, false, false
	literal := c != '{' && c != '[' && c != '"'
	for {
		if _, err := s.r.Peek(1); err != nil {
			if literal && err == io.EOF && len(out) > 0 {
				s.buf = out
				return out, start, nil
			}
			return nil, start, s.errf(start, "invalid JSON: unexpected end of input in the value starting here")
		}
		chunk, _ := s.r.Peek(s.r.Buffered())
		n, done := 0, false
		for n < len(chunk) && !done {
			b := chunk[n]
			switch {
			case b == '\n':
				s.line++
			case literal:
				if b == ',' || b == '}' || b == ']' || b == ' ' || b == '\t' || b == '\r' {
					done = true
					continue
				}
			case inStr:
				switch {
				case esc:
					esc = false
				case b == '\\':
					esc = true
				case b == '"':
					inStr = false
					if depth == 0 {
						done = true
					}
				}
			case b == '"':
				inStr = true
			case b == '{' || b == '[':
				depth++
			case b == '}' || b == ']':
				depth--
				if depth == 0 {
					done = true
				} else if depth < 0 {
					return nil, start, s.errf(s.line, "invalid JSON: unexpected %q", b)
				}
			}
			n++
		}
		out = append(out, chunk[:n]...)
		_, _ = s.r.Discard(n)
		if len(out) > MaxObjectJSON {
			return nil, start, s.errf(start, "object too large")
		}
		if done {
			s.buf = out
			return out, start, nil
		}
	}
}

// invalid explains why raw (which starts on line) is not valid JSON.
func (s *jscan) invalid(raw []byte, line int) error {
	var v any
	err := json.Unmarshal(raw, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 && int(se.Offset) <= len(raw) {
		line += bytes.Count(raw[:se.Offset], []byte{'\n'})
		return s.errf(line, "invalid JSON: %s", se.Error())
	}
	if err == nil {
		err = errors.New("not a JSON value")
	}
	return s.errf(line, "invalid JSON: %s", err)
}

func readJSON(name string, r *bufio.Reader, want Want, fn func(Doc) error) error {
	s := &jscan{r: r, name: name, line: 1}
	for {
		c, err := s.peek()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return s.errf(s.line, "%v", err)
		}
		switch c {
		case '[':
			_, _ = r.Discard(1)
			if err := s.items(want, fn); err != nil {
				return err
			}
		case '{':
			if err := s.topObject(want, fn); err != nil {
				return err
			}
		default:
			return s.errf(s.line, "expected a JSON object, found %q", c)
		}
	}
}

// items reads the elements of an array (after its '[') as objects.
func (s *jscan) items(want Want, fn func(Doc) error) error {
	c, err := s.peek()
	if err != nil {
		return s.errf(s.line, "invalid JSON: unexpected end of input in a list")
	}
	if c == ']' {
		_, _ = s.r.Discard(1)
		return nil
	}
	for {
		raw, line, err := s.value()
		if err != nil {
			return err
		}
		if len(raw) == 0 || raw[0] != '{' {
			return s.errf(line, "list item must be an object")
		}
		if !json.Valid(raw) {
			return s.invalid(raw, line)
		}
		if err := jsonItem(s.name, line, raw, want, fn); err != nil {
			return err
		}
		c, err := s.peek()
		if err != nil {
			return s.errf(s.line, "invalid JSON: unexpected end of input in a list")
		}
		_, _ = s.r.Discard(1)
		switch c {
		case ',':
		case ']':
			return nil
		default:
			return s.errf(s.line, "invalid JSON: expected ',' or ']' after a list item, found %q", c)
		}
	}
}

// topObject reads a top-level object, streaming the items of a list so
// that a dump of a large cluster is never held whole.
func (s *jscan) topObject(want Want, fn func(Doc) error) error {
	start := s.line
	_, _ = s.r.Discard(1) // '{'
	obj := map[string]json.RawMessage{}
	streamed := false
	c, err := s.peek()
	if err != nil {
		return s.errf(start, "invalid JSON: unexpected end of input")
	}
	if c == '}' {
		_, _ = s.r.Discard(1)
	} else {
		for {
			kraw, kline, err := s.value()
			if err != nil {
				return err
			}
			var key string
			if len(kraw) == 0 || kraw[0] != '"' || json.Unmarshal(kraw, &key) != nil {
				return s.errf(kline, "invalid JSON: expected a key")
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			c, err := s.peek()
			if err != nil {
				return s.errf(s.line, "invalid JSON: unexpected end of input")
			}
			if key == "items" && c == '[' {
				_, _ = s.r.Discard(1)
				streamed = true
				if err := s.items(want, fn); err != nil {
					return err
				}
			} else {
				raw, line, err := s.value()
				if err != nil {
					return err
				}
				if !json.Valid(raw) {
					return s.invalid(raw, line)
				}
				obj[key] = append(json.RawMessage(nil), raw...)
			}
			c, err = s.peek()
			if err != nil {
				return s.errf(s.line, "invalid JSON: unexpected end of input")
			}
			_, _ = s.r.Discard(1)
			if c == '}' {
				break
			}
			if c != ',' {
				return s.errf(s.line, "invalid JSON: expected ',' or '}', found %q", c)
			}
		}
	}
	var h header
	_ = json.Unmarshal(obj["apiVersion"], &h.APIVersion)
	_ = json.Unmarshal(obj["kind"], &h.Kind)
	if streamed {
		if !isList(h.Kind) && h.Kind != "" {
			return s.errf(start, "%s has a top-level items field but is not a List", h.Kind)
		}
		return nil
	}
	return emit(s.name, start, h, func() ([]byte, error) { return json.Marshal(obj) }, want, fn)
}

func jsonItem(name string, line int, it []byte, want Want, fn func(Doc) error) error {
	h, err := itemHeader(it)
	if err != nil {
		return &Error{File: name, Line: line, Msg: "list item must be an object"}
	}
	return emit(name, line, h, func() ([]byte, error) { return append([]byte(nil), it...), nil }, want, fn)
}
