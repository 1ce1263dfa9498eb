package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The JSON reader keeps its own buffer and validates each value in the one
// pass that finds its end (scanJSON), counting lines as it goes: a dump of
// a large cluster is hundreds of megabytes, mostly objects no check reads,
// and encoding/json's Decoder (or a scan followed by json.Valid) reads every
// byte twice. Objects no check wants are validated and never copied.

type jscan struct {
	r    io.Reader
	name string
	line int
	buf  []byte // unread input is buf[pos:]
	pos  int
	eof  bool
	rerr error
}

const jsonChunk = 256 << 10

func (s *jscan) errf(line int, format string, args ...any) error {
	return &Error{File: s.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// fill reads until at least n unread bytes are buffered or the input ends.
// It returns false when nothing more could be read.
func (s *jscan) fill(n int) bool {
	if s.eof || s.rerr != nil {
		return false
	}
	if s.pos > 0 {
		k := copy(s.buf, s.buf[s.pos:])
		s.buf = s.buf[:k]
		s.pos = 0
	}
	if need := max(n, len(s.buf)+jsonChunk); need > cap(s.buf) {
		nb := make([]byte, len(s.buf), max(need, 2*cap(s.buf)))
		copy(nb, s.buf)
		s.buf = nb
	}
	grew := false
	for len(s.buf) < n || !grew {
		m, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+m]
		grew = grew || m > 0
		if err == io.EOF {
			s.eof = true
			break
		}
		if err != nil {
			s.rerr = err
			break
		}
		if len(s.buf) == cap(s.buf) {
			break
		}
	}
	return grew
}

// peek returns the next byte that is not white space, without consuming it.
func (s *jscan) peek() (byte, error) {
	for {
		b := s.buf[s.pos:]
		for i, c := range b {
			switch c {
			case '\n':
				s.line++
			case ' ', '\t', '\r':
			default:
				s.pos += i
				return c, nil
			}
		}
		s.pos = len(s.buf)
		if !s.fill(1) {
			if s.rerr != nil {
				return 0, s.rerr
			}
			return 0, io.EOF
		}
	}
}

func (s *jscan) discard1() { s.pos++ }

func (s *jscan) expect(c byte) error {
	got, err := s.peek()
	if err != nil {
		return s.errf(s.line, "invalid JSON: unexpected end of input, expected %q", c)
	}
	if got != c {
		return s.errf(s.line, "invalid JSON: expected %q, found %q", c, got)
	}
	s.discard1()
	return nil
}

// value reads one complete, valid JSON value and returns it with the line
// it starts on. The slice points into the buffer: it is good until the next
// call.
func (s *jscan) value() ([]byte, int, error) {
	if _, err := s.peek(); err != nil {
		if err == io.EOF {
			return nil, s.line, s.errf(s.line, "invalid JSON: unexpected end of input")
		}
		return nil, s.line, s.errf(s.line, "%v", err)
	}
	start := s.line
	for {
		b := s.buf[s.pos:]
		n, serr := scanJSON(b, s.eof)
		if serr == errMore {
			if len(b) > MaxObjectJSON {
				return nil, start, s.errf(start, "object too large")
			}
			// Read at least as much again, so that a large value is
			// rescanned a bounded number of times.
			if !s.fill(2*len(b) + jsonChunk) {
				if s.rerr != nil {
					return nil, start, s.errf(start, "%v", s.rerr)
				}
				return nil, start, s.errf(start, "invalid JSON: unexpected end of input in the value starting here")
			}
			continue
		}
		if serr != nil {
			return nil, start, s.invalid(b, n, start, serr)
		}
		raw := b[:n]
		if len(raw) > MaxObjectJSON {
			return nil, start, s.errf(start, "object too large")
		}
		s.line += bytes.Count(raw, []byte{'\n'})
		s.pos += n
		return raw, start, nil
	}
}

// invalid explains the syntax error at b[off] (b starts on line). The
// message is encoding/json's where it agrees on the place.
func (s *jscan) invalid(b []byte, off, line int, serr error) error {
	line += bytes.Count(b[:off], []byte{'\n'})
	var v any
	err := json.Unmarshal(b[:min(off+1, len(b))], &v)
	var se *json.SyntaxError
	if errors.As(err, &se) && int(se.Offset) >= off {
		return s.errf(line, "invalid JSON: %s", se.Error())
	}
	return s.errf(line, "invalid JSON: %s", serr)
}

func readJSON(name string, r io.Reader, want Want, fn func(Doc) error) error {
	return (&jscan{r: r, name: name, line: 1}).read(want, fn)
}

// readJSONBytes is readJSON on b, which it reads in place (a reader's
// buffer would be allocated, and cleared, for every document).
func readJSONBytes(name string, b []byte, want Want, fn func(Doc) error) error {
	return bytesScan(name, b, 1).read(want, fn)
}

// bytesScan scans b, whose first line is line, in place.
func bytesScan(name string, b []byte, line int) *jscan {
	return &jscan{name: name, line: line, buf: b, eof: true}
}

func (s *jscan) read(want Want, fn func(Doc) error) error {
	name := s.name
	for {
		c, err := s.peek()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return s.errf(s.line, "%v", err)
		}
		if (c == '-' || c == '#' || c == '.') && s.yamlNext() {
			// JSON documents in a YAML stream ("---" between them, or a
			// comment): the YAML reader reads the rest, and reads the
			// JSON documents in it as JSON.
			var rest io.Reader = bytes.NewReader(bytes.Clone(s.buf[s.pos:]))
			if !s.eof && s.rerr == nil && s.r != nil {
				rest = io.MultiReader(rest, s.r)
			}
			if err := readYAMLFrom(name, bufio.NewReaderSize(rest, 64<<10), s.line-1, want, fn); err != nil {
				return fromYAML{err}
			}
			return nil
		}
		switch c {
		case '[':
			s.discard1()
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

// fromYAML marks an error in the YAML part of a stream that began with
// JSON: the stream can be read again document by document.
type fromYAML struct{ err error }

func (f fromYAML) Error() string { return f.err.Error() }
func (f fromYAML) Unwrap() error { return f.err }

// yamlNext says that the unread input, at a top-level position between
// JSON values, starts a line with a YAML document marker ("---" or
// "...") or a comment.
func (s *jscan) yamlNext() bool {
	if len(s.buf)-s.pos < 4 {
		s.fill(4)
	}
	b := s.buf[s.pos:]
	if len(b) > 0 && b[0] == '#' {
		return true
	}
	l := b
	if i := bytes.IndexByte(l, '\n'); i >= 0 {
		l = l[:i]
	}
	return isDocSeparator(trimEOL(l))
}

// items reads the elements of an array (after its '[') as objects.
func (s *jscan) items(want Want, fn func(Doc) error) error {
	c, err := s.peek()
	if err != nil {
		return s.errf(s.line, "invalid JSON: unexpected end of input in a list")
	}
	if c == ']' {
		s.discard1()
		return nil
	}
	for {
		c, err := s.peek()
		if err == nil && c != '{' {
			return s.errf(s.line, "list item must be an object")
		}
		raw, line, err := s.value()
		if err != nil {
			return err
		}
		if err := jsonItem(s.name, line, raw, want, fn); err != nil {
			return err
		}
		c, err = s.peek()
		if err != nil {
			return s.errf(s.line, "invalid JSON: unexpected end of input in a list")
		}
		s.discard1()
		switch c {
		case ',':
		case ']':
			return nil
		default:
			return s.errf(s.line, "invalid JSON: expected ',' or ']' after a list item, found %q", c)
		}
	}
}

// topObject reads a top-level object. One that starts with its apiVersion
// and kind and is no List (what kubectl and most tools write) is read as a
// whole, like a List item; any other is read key by key, streaming the
// items of a List so that a dump of a large cluster is never held whole.
func (s *jscan) topObject(want Want, fn func(Doc) error) error {
	if len(s.buf)-s.pos < 4<<10 {
		s.fill(4 << 10)
	}
	if h, ok := peekHeader(s.buf[s.pos:]); ok && !isList(h.Kind) {
		raw, line, err := s.value()
		if err != nil {
			return err
		}
		return jsonItem(s.name, line, raw, want, fn)
	}
	start := s.line
	s.discard1() // '{'
	obj := map[string]json.RawMessage{}
	streamed := false
	c, err := s.peek()
	if err != nil {
		return s.errf(start, "invalid JSON: unexpected end of input")
	}
	if c == '}' {
		s.discard1()
	} else {
		for {
			c, err := s.peek()
			if err == nil && c != '"' {
				return s.errf(s.line, "invalid JSON: expected a key")
			}
			kraw, kline, err := s.value()
			if err != nil {
				return err
			}
			var key string
			if json.Unmarshal(kraw, &key) != nil {
				return s.errf(kline, "invalid JSON: expected a key")
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			c, err = s.peek()
			if err != nil {
				return s.errf(s.line, "invalid JSON: unexpected end of input")
			}
			if key == "items" && c == '[' {
				s.discard1()
				streamed = true
				if err := s.items(want, fn); err != nil {
					return err
				}
			} else {
				raw, _, err := s.value()
				if err != nil {
					return err
				}
				obj[key] = append(json.RawMessage(nil), raw...)
			}
			c, err = s.peek()
			if err != nil {
				return s.errf(s.line, "invalid JSON: unexpected end of input")
			}
			s.discard1()
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
	if isList(h.Kind) {
		// A List in a List: its items are read as the outer List's.
		return bytesScan(name, it, line).topObject(want, fn)
	}
	return emit(name, line, h, func() ([]byte, error) { return append([]byte(nil), it...), nil }, want, fn)
}
