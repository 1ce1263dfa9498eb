package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// JSON manifests are read with the streaming decoder of encoding/json v2,
// jsontext (github.com/go-json-experiment/json/jsontext, which Go ships as
// encoding/json/jsontext behind GOEXPERIMENT=jsonv2). It validates each
// value in the one pass that finds its end and hands back the value's bytes
// without decoding them: a dump of a large cluster is read item by item and
// never held whole, and objects no check wants are validated and never
// copied. encoding/json's v1 Decoder reads every byte twice (a scan, then
// the copy), which cost five times as much (docs/PERFORMANCE.md).
//
// The decoder counts bytes, not lines. Lines are counted from what it
// shows: the bytes of each value read, and the white space and delimiter
// before each token (UnreadBuffer after PeekKind); tokens themselves hold
// no line break.

// jsonOptions accept what encoding/json (v1), and so the API server,
// accepts: a name given twice (the last wins) and strings that are not
// valid UTF-8.
var jsonOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

var decoders = sync.Pool{New: func() any { return jsontext.NewDecoder(bytes.NewReader(nil)) }}

type jsonReader struct {
	name string
	dec  *jsontext.Decoder
	// src is the reader under the decoder, which caps the bytes of one
	// value; nil when the decoder reads a buffer in place.
	src *capReader
	// line is the line of the decoder's read offset.
	line int
	want Want
	fn   func(Doc) error
}

// errValueTooLarge is what capReader returns once a value passes MaxObjectJSON.
var errValueTooLarge = errors.New("object too large")

// capReader refuses to read on when the value being read, which began at
// from, is larger than MaxObjectJSON: the decoder would buffer all of it.
type capReader struct {
	r    io.Reader
	n    int64
	from int64
}

func (c *capReader) Read(p []byte) (int, error) {
	left := MaxObjectJSON + 1 - (c.n - c.from)
	if left <= 0 {
		return 0, errValueTooLarge
	}
	n, err := c.r.Read(p[:min(int64(len(p)), left)])
	c.n += int64(n)
	return n, err
}

func readJSON(name string, r io.Reader, want Want, fn func(Doc) error) error {
	src := &capReader{r: r}
	j := &jsonReader{name: name, src: src, line: 1, want: want, fn: fn, dec: decoders.Get().(*jsontext.Decoder)}
	defer j.release()
	j.dec.Reset(src, jsonOptions...)
	return j.read()
}

// readJSONBytes is readJSON on b, whose first line is line, which it reads
// in place.
func readJSONBytes(name string, b []byte, line int, want Want, fn func(Doc) error) error {
	j := bytesReader(name, b, line, want, fn)
	defer j.release()
	return j.read()
}

func bytesReader(name string, b []byte, line int, want Want, fn func(Doc) error) *jsonReader {
	j := &jsonReader{name: name, line: line, want: want, fn: fn, dec: decoders.Get().(*jsontext.Decoder)}
	j.dec.Reset(bytes.NewBuffer(b), jsonOptions...)
	return j
}

func (j *jsonReader) release() {
	j.dec.Reset(bytes.NewReader(nil))
	decoders.Put(j.dec)
}

// peek returns the kind of the next token and the line it starts on.
func (j *jsonReader) peek() (jsontext.Kind, int) {
	k := j.dec.PeekKind()
	line := j.line
	for _, c := range j.dec.UnreadBuffer() {
		if c == '\n' {
			line++
		} else if c != ' ' && c != '\t' && c != '\r' && c != ',' && c != ':' {
			break
		}
	}
	return k, line
}

// value reads one complete, valid JSON value and returns it with the line
// it starts on. The bytes are the decoder's: good until the next read.
func (j *jsonReader) value() (jsontext.Value, int, error) {
	_, line := j.peek()
	if j.src != nil {
		j.src.from = j.dec.InputOffset()
	}
	v, err := j.dec.ReadValue()
	if err != nil {
		return nil, line, j.fail(err, line)
	}
	if len(v) > MaxObjectJSON {
		return nil, line, j.errf(line, "object too large")
	}
	j.line = line + bytes.Count(v, []byte{'\n'})
	return v, line, nil
}

// token reads one token: a delimiter or a scalar.
func (j *jsonReader) token() (jsontext.Token, error) {
	_, line := j.peek()
	t, err := j.dec.ReadToken()
	if err != nil {
		return t, j.fail(err, line)
	}
	j.line = line
	return t, nil
}

func (j *jsonReader) errf(line int, format string, args ...any) error {
	return &Error{File: j.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// fail explains a read error at the line where the decoder found it.
func (j *jsonReader) fail(err error, line int) error {
	if errors.Is(err, errValueTooLarge) {
		return j.errf(line, "object too large")
	}
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return j.errf(line, "%v", err)
	}
	at := j.line
	if off := se.ByteOffset - j.dec.InputOffset(); off > 0 {
		u := j.dec.UnreadBuffer()
		at += bytes.Count(u[:min(int(off), len(u))], []byte{'\n'})
	}
	msg := se.Err.Error()
	if errors.Is(se.Err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of input"
	}
	if p := se.JSONPointer; p != "" {
		msg += fmt.Sprintf(" (at %s)", p)
	}
	return j.errf(at, "invalid JSON: %s", msg)
}

func (j *jsonReader) read() error {
	for {
		k, line := j.peek()
		switch k {
		case '[':
			if _, err := j.token(); err != nil {
				return err
			}
			if err := j.items(); err != nil {
				return err
			}
			continue
		case '{':
			if err := j.topObject(); err != nil {
				return err
			}
			continue
		}
		rest := bytes.TrimLeft(j.dec.UnreadBuffer(), " \t\r\n")
		if len(rest) == 0 {
			_, err := j.dec.ReadToken()
			if err == io.EOF {
				return nil
			}
			return j.fail(err, line)
		}
		if j.yamlNext(rest) {
			// JSON documents in a YAML stream ("---" between them, or a
			// comment): the YAML reader reads the rest, and reads the
			// JSON documents in it as JSON.
			var r io.Reader = bytes.NewReader(bytes.Clone(rest))
			if j.src != nil {
				r = io.MultiReader(r, j.src)
			}
			if err := readYAMLFrom(j.name, bufio.NewReaderSize(r, 64<<10), line-1, j.want, j.fn); err != nil {
				return fromYAML{err}
			}
			return nil
		}
		return j.errf(line, "expected a JSON object, found %q", rest[0])
	}
}

// fromYAML marks an error in the YAML part of a stream that began with
// JSON: the stream can be read again document by document.
type fromYAML struct{ err error }

func (f fromYAML) Error() string { return f.err.Error() }
func (f fromYAML) Unwrap() error { return f.err }

// yamlNext says that rest, the unread input at a top-level position
// between JSON values, starts a line with a YAML document marker ("---" or
// "...") or a comment. A marker cut off by the end of the decoder's buffer
// is taken as one: nothing else starting with '-' or '.' may follow a JSON
// object, and the YAML reader explains what does.
func (j *jsonReader) yamlNext(rest []byte) bool {
	switch rest[0] {
	case '#':
		return true
	case '-', '.':
		l := rest
		if i := bytes.IndexByte(l, '\n'); i >= 0 {
			l = l[:i]
		} else if len(l) < 4 && j.src != nil {
			return true
		}
		return isDocSeparator(trimEOL(l))
	}
	return false
}

// items reads the elements of an array (after its '[') as objects.
func (j *jsonReader) items() error {
	for {
		k, line := j.peek()
		switch k {
		case ']':
			_, err := j.token()
			return err
		case '{':
		case 0:
			_, err := j.token()
			return err
		default:
			return j.errf(line, "list item must be an object")
		}
		raw, line, err := j.value()
		if err != nil {
			return err
		}
		if err := jsonItem(j.name, line, raw, j.want, j.fn); err != nil {
			return err
		}
	}
}

// topObject reads a top-level object. One that starts with its apiVersion
// and kind and is no List (what kubectl and most tools write) is read as a
// whole, like a List item; any other is read key by key, streaming the
// items of a List so that a dump of a large cluster is never held whole.
func (j *jsonReader) topObject() error {
	_, start := j.peek()
	if h, ok := peekHeader(bytes.TrimLeft(j.dec.UnreadBuffer(), " \t\r\n,")); ok && !isList(h.Kind) {
		raw, line, err := j.value()
		if err != nil {
			return err
		}
		return jsonItem(j.name, line, raw, j.want, j.fn)
	}
	if _, err := j.token(); err != nil { // '{'
		return err
	}
	obj := map[string]json.RawMessage{}
	streamed := false
	for {
		k, _ := j.peek()
		if k == '}' {
			if _, err := j.token(); err != nil {
				return err
			}
			break
		}
		t, err := j.token()
		if err != nil {
			return err
		}
		key := t.String()
		if k, _ := j.peek(); key == "items" && k == '[' {
			if _, err := j.token(); err != nil {
				return err
			}
			streamed = true
			if err := j.items(); err != nil {
				return err
			}
			continue
		}
		raw, _, err := j.value()
		if err != nil {
			return err
		}
		obj[key] = bytes.Clone(raw)
	}
	var h header
	_ = json.Unmarshal(obj["apiVersion"], &h.APIVersion)
	_ = json.Unmarshal(obj["kind"], &h.Kind)
	if streamed {
		if !isList(h.Kind) && h.Kind != "" {
			return j.errf(start, "%s has a top-level items field but is not a List", h.Kind)
		}
		return nil
	}
	return emit(j.name, start, h, func() ([]byte, error) { return json.Marshal(obj) }, j.want, j.fn)
}

func jsonItem(name string, line int, it []byte, want Want, fn func(Doc) error) error {
	h, err := itemHeader(it)
	if err != nil {
		return &Error{File: name, Line: line, Msg: "list item must be an object"}
	}
	if isList(h.Kind) {
		// A List in a List: its items are read as the outer List's.
		j := bytesReader(name, it, line, want, fn)
		defer j.release()
		return j.topObject()
	}
	return emit(name, line, h, func() ([]byte, error) { return bytes.Clone(it), nil }, want, fn)
}
