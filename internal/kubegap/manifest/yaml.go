package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/incidentlib/incidentlib/internal/lazyre"
	"github.com/incidentlib/incidentlib/internal/yamlnode"
)

// readYAML splits a YAML stream into documents, and the items of a
// kubectl-style List (items: at column 0, each item starting "- " at column
// 0) into one text per item, without parsing the whole: a `kubectl get -o
// yaml` dump of a large cluster is hundreds of megabytes, mostly objects no
// check reads. An item whose kind no check wants is never parsed; every
// other document and item is parsed by the YAML library.
func readYAML(name string, r *bufio.Reader, want Want, fn func(Doc) error) error {
	return readYAMLFrom(name, r, 0, want, fn)
}

// readYAMLFrom is readYAML on the rest of a stream, after its first lines
// lines.
func readYAMLFrom(name string, r *bufio.Reader, lines int, want Want, fn func(Doc) error) (err error) {
	y := &yamlStream{name: name, want: want, fn: fn, line: lines}
	defer func() {
		// Let the parsers finish what they hold, then stop them.
		for _, p := range y.pending {
			<-p
		}
		y.stopParsers()
	}()
	defer func() {
		// The YAML library has panicked on odd input before; a bad file must
		// be an error, never a crash.
		if p := recover(); p != nil {
			err = &Error{File: name, Line: y.line, Msg: fmt.Sprintf("invalid YAML: %v", p)}
		}
	}()
	var long []byte
	for {
		raw, rerr := r.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			long = append(long, raw...)
			if len(long) > MaxObjectJSON {
				return &Error{File: name, Line: y.line + 1, Msg: "line too long"}
			}
			continue
		}
		if long != nil {
			raw = append(long, raw...)
			long = nil
		}
		if len(raw) > 0 {
			if err := y.addLine(raw); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			if err := y.endDoc(); err != nil {
				return err
			}
			return y.drain(true)
		}
		if rerr != nil {
			return &Error{File: name, Line: y.line, Msg: rerr.Error()}
		}
	}
}

type yamlStream struct {
	name string
	want Want
	fn   func(Doc) error
	line int // lines read so far

	doc      bytes.Buffer // the current document, without its streamed items' lines
	docStart int
	gap      lineGap // the streamed items' lines, left out of doc
	inItems  bool
	streamed bool
	item     bytes.Buffer
	itemLine int

	// Items are parsed on parsers goroutines and emitted in order.
	pending []chan itemResult
	jobs    chan itemJob
}

type itemJob struct {
	text  []byte
	start int
	item  bool // a List item (else a whole document)
	out   chan itemResult
}

type itemResult struct {
	docs []Doc
	err  error
}

// parsers is how many goroutines parse List items at once.
var parsers = max(1, min(4, runtime.GOMAXPROCS(0)))

const maxPending = 256

func (y *yamlStream) startParsers() {
	jobs := make(chan itemJob, maxPending)
	y.jobs = jobs
	name, want := y.name, y.want
	for i := 0; i < parsers; i++ {
		go func() {
			for j := range jobs {
				if j.item {
					j.out <- parseItem(name, j.text, j.start, want)
				} else {
					j.out <- parseDoc(name, j.text, j.start, want)
				}
			}
		}()
	}
}

func (y *yamlStream) stopParsers() {
	if y.jobs != nil {
		close(y.jobs)
		y.jobs = nil
	}
}

// parseItem parses one List item; safe to call concurrently.
func parseItem(name string, text []byte, start int, want Want) (res itemResult) {
	defer func() {
		if p := recover(); p != nil {
			res = itemResult{err: &Error{File: name, Line: start, Msg: fmt.Sprintf("invalid YAML: %v", p)}}
		}
	}()
	err := decodeDocs(name, text, start-1, false, lineGap{}, want, func(d Doc) error {
		res.docs = append(res.docs, d)
		return nil
	})
	var me *Error
	if errors.As(err, &me) && strings.HasPrefix(me.Msg, "expected an object (a YAML mapping), found ") {
		me.Msg = "list item must be an object, found " + strings.TrimPrefix(me.Msg, "expected an object (a YAML mapping), found ")
	}
	res.err = err
	return res
}

// parseDoc parses one document that is not a streamed List; safe to call
// concurrently.
func parseDoc(name string, text []byte, start int, want Want) (res itemResult) {
	defer func() {
		if p := recover(); p != nil {
			res = itemResult{err: &Error{File: name, Line: start, Msg: fmt.Sprintf("invalid YAML: %v", p)}}
		}
	}()
	res.err = decodeDocs(name, text, start-1, false, lineGap{}, want, func(d Doc) error {
		res.docs = append(res.docs, d)
		return nil
	})
	return res
}

// drain emits finished items in order; with all set it waits for every one.
func (y *yamlStream) drain(all bool) error {
	for len(y.pending) > 0 {
		var r itemResult
		if all || len(y.pending) >= maxPending {
			r = <-y.pending[0]
		} else {
			select {
			case r = <-y.pending[0]:
			default:
				return nil
			}
		}
		y.pending = y.pending[1:]
		if r.err != nil {
			return r.err
		}
		for _, d := range r.docs {
			if err := y.fn(d); err != nil {
				return err
			}
		}
	}
	return nil
}

func isDocSeparator(l []byte) bool {
	if bytes.HasPrefix(l, []byte("---")) {
		return len(l) == 3 || l[3] == ' ' || l[3] == '\t'
	}
	return bytes.Equal(l, []byte("..."))
}

func (y *yamlStream) addLine(raw []byte) error {
	y.line++
	l := trimEOL(raw)
	if isDocSeparator(l) {
		if err := y.endDoc(); err != nil {
			return err
		}
		if !bytes.Equal(l, []byte("...")) {
			y.docStart = y.line
			y.doc.Write(raw)
			if raw[len(raw)-1] != '\n' {
				y.doc.WriteByte('\n')
			}
		}
		return nil
	}
	if y.doc.Len() == 0 {
		y.docStart = y.line
	}
	if y.inItems {
		indented := len(l) == 0 || l[0] == ' ' || l[0] == '\t' || l[0] == '#'
		switch {
		case len(l) > 0 && l[0] == '-' && (len(l) == 1 || l[1] == ' '):
			if err := y.endItem(); err != nil {
				return err
			}
			y.itemLine = y.line
			y.item.Write(raw)
			y.skipLine()
			return nil
		case indented && y.itemLine > 0:
			y.item.Write(raw)
			y.skipLine()
			return nil
		case indented && (len(bytes.TrimSpace(l)) == 0 || bytes.HasPrefix(bytes.TrimSpace(l), []byte("#"))):
			y.doc.Write(raw)
			return nil
		case indented:
			// An indented sequence ("items:" then "  - ..."): not kubectl's
			// layout, and nothing streamed yet; let the parser have it all.
			y.inItems, y.streamed = false, false
		default:
			// A key at column 0: the items are over.
			if err := y.endItem(); err != nil {
				return err
			}
			y.inItems = false
		}
	}
	if !y.streamed && isItemsKey(l) {
		y.inItems, y.streamed = true, true
	}
	y.doc.Write(raw)
	if raw[len(raw)-1] != '\n' {
		y.doc.WriteByte('\n')
	}
	return nil
}

// skipLine leaves the current line, a streamed item's, out of the
// document and counts it. From the first item to the key after the last,
// every line is an item's: one run, which yamlError gives back to the line
// numbers of an error in the rest of the document. (The document used to
// hold a blank line for each: millions of them in a large dump, each one
// scanned again by the YAML library.)
func (y *yamlStream) skipLine() {
	if y.gap.n == 0 {
		y.gap.at = y.line - y.docStart // the document's lines before this one
	}
	y.gap.n++
}

// lineGap is a run of n lines left out of a text after its first at lines.
type lineGap struct{ at, n int }

// line is the line of the whole text that line l of the shortened one was.
func (g lineGap) line(l int) int {
	if g.n > 0 && l > g.at {
		return l + g.n
	}
	return l
}

// trimEOL is bytes.TrimRight(l, "\r\n") without the cutset's cost, which
// is felt once a line on a dump of millions of lines.
func trimEOL(l []byte) []byte {
	for len(l) > 0 && (l[len(l)-1] == '\n' || l[len(l)-1] == '\r') {
		l = l[:len(l)-1]
	}
	return l
}

// leadingLines counts the lines before the node of a document (blank
// lines, comments and "---") or of a List item ("-" alone on its line, then
// blank lines and comments): the line a parser gives the object.
func leadingLines(text []byte, item bool) int {
	n := 0
	for len(text) > 0 {
		l := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if n == 0 && item {
			l = l[1:] // the dash
		}
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' && (item || n > 0 || !isDocSeparator(bytes.TrimRight(l, "\r"))) {
			return n
		}
		n++
	}
	return n
}

// plainStart says that a document's text does not put its node on the
// "---" line ("--- |" would make the lines below one string).
func plainStart(text []byte) bool {
	if !bytes.HasPrefix(text, []byte("---")) {
		return true
	}
	l := text[3:]
	if i := bytes.IndexByte(l, '\n'); i >= 0 {
		l = l[:i]
	}
	l = bytes.TrimSpace(l)
	return len(l) == 0 || l[0] == '#'
}

func isItemsKey(l []byte) bool {
	if !bytes.HasPrefix(l, []byte("items:")) {
		return false
	}
	rest := bytes.TrimSpace(l[len("items:"):])
	return len(rest) == 0 || rest[0] == '#'
}

func (y *yamlStream) endItem() error {
	if y.itemLine == 0 {
		return nil
	}
	start := y.itemLine
	y.itemLine = 0
	err := y.submit(y.item.Bytes(), start, true)
	y.item.Reset()
	return err
}

// submit queues a List item (its text as in the List) or a document: one
// whose kind no check wants comes out unparsed, every other one is parsed
// on the parsers; all come out in order. text is not kept.
func (y *yamlStream) submit(text []byte, start int, item bool) error {
	if h, ok := peekYAMLHeader(text, item); ok && !isList(h.Kind) && (item || plainStart(text)) && !y.want(h.APIVersion, h.Kind) {
		d := Doc{APIVersion: h.APIVersion, Kind: h.Kind, File: y.name, Line: start + leadingLines(text, item)}
		if len(y.pending) == 0 {
			return y.fn(d)
		}
		out := make(chan itemResult, 1)
		out <- itemResult{docs: []Doc{d}}
		y.pending = append(y.pending, out)
		return y.drain(false)
	}
	if !item {
		if at, ok := jsonStart(text); ok {
			if done, err := y.submitJSON(text, at, start); done {
				return err
			}
		}
	}
	if item {
		text = dedentItem(text)
	} else {
		text = bytes.Clone(text)
	}
	if y.jobs == nil {
		y.startParsers()
	}
	out := make(chan itemResult, 1)
	y.jobs <- itemJob{text: text, start: start, item: item, out: out}
	y.pending = append(y.pending, out)
	return y.drain(false)
}

// submitJSON reads a document written as JSON (its value starts at
// text[at]) as the JSON reader reads a file: in one pass that validates it
// and copies only the objects wanted, where the YAML library would build a
// node for every value. Like a YAML document, one whose kind no check
// wants is passed on from its header alone. done is false when the text is
// not JSON after all (a YAML flow mapping such as {a: 1}, or a broken
// document): the YAML parser then reads it, and names any error as YAML.
func (y *yamlStream) submitJSON(text []byte, at, start int) (done bool, err error) {
	line := start + bytes.Count(text[:at], []byte{'\n'})
	var res itemResult
	if h, ok := peekHeader(text[at:]); ok && !isList(h.Kind) && !y.want(h.APIVersion, h.Kind) {
		res.docs = []Doc{{APIVersion: h.APIVersion, Kind: h.Kind, File: y.name, Line: line}}
	} else {
		err := readJSONBytes(y.name, text[at:], line, y.want, func(d Doc) error {
			res.docs = append(res.docs, d)
			return nil
		})
		if err != nil {
			return false, nil
		}
	}
	if len(y.pending) == 0 {
		for _, d := range res.docs {
			if err := y.fn(d); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	out := make(chan itemResult, 1)
	out <- res
	y.pending = append(y.pending, out)
	return true, y.drain(false)
}

// jsonStart finds where a document's text starts a JSON object: its first
// line that is not "---", blank or a comment starts with "{".
func jsonStart(text []byte) (at int, ok bool) {
	i := 0
	for i < len(text) {
		j := bytes.IndexByte(text[i:], '\n')
		end := len(text)
		if j >= 0 {
			end = i + j
		}
		l := trimEOL(text[i:end])
		t := bytes.TrimLeft(l, " \t")
		if len(t) == 0 || t[0] == '#' || (i == 0 && isDocSeparator(l) && plainStart(text)) {
			i = end + 1
			continue
		}
		return i + len(l) - len(t), t[0] == '{'
	}
	return 0, false
}

// endDoc ends a document. One whose List items were streamed is checked
// here, after its items; any other goes through submit, like an item, so
// that a stream of documents costs what a List of the same objects does.
func (y *yamlStream) endDoc() error {
	if y.inItems {
		if err := y.endItem(); err != nil {
			return err
		}
	}
	defer func() {
		y.doc.Reset()
		y.inItems, y.streamed = false, false
		y.gap = lineGap{}
	}()
	if y.doc.Len() == 0 {
		return nil
	}
	if !y.streamed {
		return y.submit(y.doc.Bytes(), y.docStart, false)
	}
	if err := y.drain(true); err != nil {
		return err
	}
	return decodeDocs(y.name, y.doc.Bytes(), y.docStart-1, true, y.gap, y.want, y.fn)
}

// dedentItem turns "- a: 1\n  b: 2\n" into "a: 1\nb: 2\n".
func dedentItem(b []byte) []byte {
	out := make([]byte, 0, len(b))
	first := true
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		var l []byte
		if i < 0 {
			l, b = b, nil
		} else {
			l, b = b[:i+1], b[i+1:]
		}
		if first {
			first = false
			l = append([]byte{' '}, l[1:]...) // the dash
		}
		switch {
		case bytes.HasPrefix(l, []byte("  ")):
			l = l[2:]
		case len(bytes.TrimSpace(l)) == 0:
			l = []byte("\n")
		case l[0] == ' ':
			l = l[1:]
		}
		out = append(out, l...)
	}
	return out
}

// peekYAMLHeader finds apiVersion and kind as plain top-level keys of a
// document's text, or of a List item's text as it stands in the List (its
// lines read as dedentItem would make them). ok is false when they are not
// written plainly.
func peekYAMLHeader(text []byte, item bool) (h header, ok bool) {
	var haveAPI, haveKind, afterHeader bool
	first := item
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		var l []byte
		if i < 0 {
			l, text = text, nil
		} else {
			l, text = text[:i], text[i+1:]
		}
		if item {
			switch {
			case first:
				// "- a: 1" reads "a: 1"; "-" alone, nothing.
				first = false
				if len(l) >= 2 && l[0] == '-' && l[1] == ' ' {
					l = l[2:]
				} else {
					l = nil
				}
			case bytes.HasPrefix(l, []byte("  ")):
				l = l[2:]
			case len(l) > 0 && l[0] == ' ':
				l = l[1:]
			}
		}
		if afterHeader {
			// "kind: a" then " b" is the value "a b".
			t := bytes.TrimSpace(l)
			if len(t) == 0 {
				continue
			}
			if (l[0] == ' ' || l[0] == '\t') && t[0] != '#' {
				return h, false
			}
			afterHeader = false
		}
		if len(l) == 0 || (l[0] != 'a' && l[0] != 'k') {
			continue
		}
		key, v, plain := headerLine(l)
		if key == "" {
			continue
		}
		if !plain {
			return h, false
		}
		afterHeader = true
		if key == "kind" {
			if haveKind {
				return h, false
			}
			h.Kind, haveKind = v, true
		} else {
			if haveAPI {
				return h, false
			}
			h.APIVersion, haveAPI = v, true
		}
	}
	return h, haveAPI && haveKind
}

// headerLine reads a top-level line "apiVersion: v" or "kind: v". key is
// empty when the line is neither; plain is false when the value is not a
// plain or double-quoted name (then only the YAML library can tell).
func headerLine(l []byte) (key, value string, plain bool) {
	switch {
	case bytes.HasPrefix(l, []byte("apiVersion:")):
		key, l = "apiVersion", l[len("apiVersion:"):]
	case bytes.HasPrefix(l, []byte("kind:")):
		key, l = "kind", l[len("kind:"):]
	default:
		return "", "", false
	}
	l = bytes.TrimRight(l, "\r")
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	quoted := i < len(l) && l[i] == '"'
	if quoted {
		i++
	}
	j := i
	for j < len(l) && isNameByte(l[j]) {
		j++
	}
	if j == i {
		return key, "", false
	}
	v := l[i:j]
	if quoted {
		if j >= len(l) || l[j] != '"' {
			return key, "", false
		}
		j++
	}
	k := j
	for j < len(l) && (l[j] == ' ' || l[j] == '\t') {
		j++
	}
	// A comment needs white space before it: "Pod#x" is one value.
	if j < len(l) && (l[j] != '#' || j == k) {
		return key, "", false
	}
	return key, string(v), true
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '/' || c == '-'
}

// decodeDocs parses text (whose first line is line off+1 of the file) with
// the YAML library and emits its objects. When streamed is set, the
// document's items were already emitted and it must be a List; gap is
// where their lines were left out of text.
func decodeDocs(name string, text []byte, off int, streamed bool, gap lineGap, want Want, fn func(Doc) error) error {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	lastLine := off
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return yamlError(name, off, lastLine, gap, err)
		}
		if len(doc.Content) == 0 {
			continue // an empty document: only comments, or "---" alone
		}
		root := doc.Content[0]
		lastLine = root.Line + off
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			continue
		}
		if root.Kind != yaml.MappingNode {
			return &Error{File: name, Line: root.Line + off, Msg: fmt.Sprintf("expected an object (a YAML mapping), found %s", yamlnode.Describe(root))}
		}
		h := yamlHeader(root)
		if streamed {
			if !isList(h.Kind) {
				return &Error{File: name, Line: root.Line + off, Msg: fmt.Sprintf("%s has a top-level items list but is not a List", h.Kind)}
			}
			continue
		}
		if isList(h.Kind) {
			if items := mapValue(root, "items"); items != nil {
				if items.Kind == yaml.ScalarNode && items.Tag == "!!null" {
					continue
				}
				if items.Kind != yaml.SequenceNode {
					return &Error{File: name, Line: items.Line + off, Msg: "items of a " + h.Kind + " must be a list of objects"}
				}
				if err := emitItems(name, off, h.Kind, items, 0, want, fn); err != nil {
					return err
				}
				continue
			}
		}
		if err := emit(name, root.Line+off, h, func() ([]byte, error) { return nodeJSON(root) }, want, fn); err != nil {
			return err
		}
	}
}

// emitItems emits the items of a List; the items of a List among them
// are emitted in its place.
func emitItems(name string, off int, kind string, items *yaml.Node, depth int, want Want, fn func(Doc) error) error {
	if items.Kind == yaml.ScalarNode && items.Tag == "!!null" {
		return nil
	}
	if items.Kind != yaml.SequenceNode {
		return &Error{File: name, Line: items.Line + off, Msg: "items of a " + kind + " must be a list of objects"}
	}
	if depth > MaxDepth {
		return &Error{File: name, Line: items.Line + off, Msg: "Lists nested too deeply"}
	}
	for _, it := range items.Content {
		if it.Kind != yaml.MappingNode {
			return &Error{File: name, Line: it.Line + off, Msg: fmt.Sprintf("list item must be an object, found %s", yamlnode.Describe(it))}
		}
		h := yamlHeader(it)
		if isList(h.Kind) {
			if inner := mapValue(it, "items"); inner != nil {
				if err := emitItems(name, off, h.Kind, inner, depth+1, want, fn); err != nil {
					return err
				}
				continue
			}
		}
		if err := emit(name, it.Line+off, h, func() ([]byte, error) { return nodeJSON(it) }, want, fn); err != nil {
			return err
		}
	}
	return nil
}

var yamlLineRE = lazyre.New(`^yaml: (?:line (\d+): )?(.*)$`)

// yamlError turns a decoder error into FILE:LINE form; the decoder counts
// lines from the start of the text it was given, which is line off+1, less
// the lines of gap.
func yamlError(name string, off, after int, gap lineGap, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return &Error{File: name, Line: max(after, off+1), Msg: strings.Join(te.Errors, "; ")}
	}
	msg := err.Error()
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		line := max(after, off+1)
		if m[1] != "" {
			n, _ := strconv.Atoi(m[1])
			line = gap.line(n) + off
		}
		return &Error{File: name, Line: line, Msg: "invalid YAML: " + m[2]}
	}
	return &Error{File: name, Line: max(after, off+1), Msg: "invalid YAML: " + msg}
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func yamlHeader(m *yaml.Node) header {
	var h header
	if v := mapValue(m, "apiVersion"); v != nil && v.Kind == yaml.ScalarNode {
		h.APIVersion = v.Value
	}
	if v := mapValue(m, "kind"); v != nil && v.Kind == yaml.ScalarNode {
		h.Kind = v.Value
	}
	return h
}

// nodeJSON converts a YAML node to JSON, with the YAML 1.2 core schema that
// Kubernetes tools use.
func nodeJSON(n *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	w := &jsonWriter{buf: &buf, budget: maxVisits}
	if err := w.write(n, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var errTooLarge = errors.New("object too large (after expanding YAML aliases)")

// maxVisits bounds the nodes visited while converting one object, so that
// aliases and merge keys that refer to each other over and over cannot make
// the conversion run for ever without growing the output.
const maxVisits = 2_000_000

type jsonWriter struct {
	buf    *bytes.Buffer
	budget int
}

func (w *jsonWriter) write(n *yaml.Node, depth int) error {
	buf := w.buf
	w.budget--
	if w.budget < 0 {
		return errTooLarge
	}
	if depth > MaxDepth {
		return fmt.Errorf("line %d: nested too deeply", n.Line)
	}
	if buf.Len() > MaxObjectJSON {
		return errTooLarge
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			buf.WriteString("null")
			return nil
		}
		return w.write(n.Content[0], depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return fmt.Errorf("line %d: unknown alias", n.Line)
		}
		return w.write(n.Alias, depth+1)
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := w.write(c, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case yaml.MappingNode:
		buf.WriteByte('{')
		first := true
		// Keys already written: a list while the mapping is small, with
		// no merge keys (what manifests hold), a map otherwise.
		seen := &keySet{}
		if err := w.mapping(n, depth, &first, seen); err != nil {
			return err
		}
		buf.WriteByte('}')
		return nil
	case yaml.ScalarNode:
		return writeScalar(buf, n)
	}
	return fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

func (w *jsonWriter) mapping(n *yaml.Node, depth int, first *bool, seen *keySet) error {
	buf := w.buf
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		w.budget--
		if w.budget < 0 {
			return errTooLarge
		}
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			// "<<: *anchor" merges the anchored mapping(s) in.
			src := v
			if src.Kind == yaml.AliasNode {
				src = src.Alias
			}
			if src == nil || depth > MaxDepth {
				return fmt.Errorf("line %d: bad merge", k.Line)
			}
			var maps []*yaml.Node
			switch src.Kind {
			case yaml.MappingNode:
				maps = []*yaml.Node{src}
			case yaml.SequenceNode:
				for _, c := range src.Content {
					if c.Kind == yaml.AliasNode {
						c = c.Alias
					}
					if c == nil || c.Kind != yaml.MappingNode {
						return fmt.Errorf("line %d: merge needs mappings", k.Line)
					}
					maps = append(maps, c)
				}
			default:
				return fmt.Errorf("line %d: merge needs a mapping", k.Line)
			}
			for _, m := range maps {
				if err := w.mapping(m, depth+1, first, seen); err != nil {
					return err
				}
			}
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: a mapping key must be a plain value, found %s", k.Line, yamlnode.Describe(k))
		}
		if !seen.add(k.Value) {
			continue // first wins, as with merge keys
		}
		if !*first {
			buf.WriteByte(',')
		}
		*first = false
		writeJSONString(buf, k.Value)
		buf.WriteByte(':')
		if err := w.write(v, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func writeScalar(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Tag {
	case "!!null":
		buf.WriteString("null")
		return nil
	case "!!bool":
		switch strings.ToLower(n.Value) {
		case "true":
			buf.WriteString("true")
			return nil
		case "false":
			buf.WriteString("false")
			return nil
		}
	case "!!int":
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			buf.WriteString(strconv.FormatInt(i, 10))
			return nil
		}
		if u, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			buf.WriteString(strconv.FormatUint(u, 10))
			return nil
		}
	case "!!float":
		if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			b, _ := json.Marshal(f)
			buf.Write(b)
			return nil
		}
		return fmt.Errorf("line %d: number %q cannot be represented in JSON", n.Line, n.Value)
	}
	// Strings, timestamps, binary and anything else: the text itself.
	writeJSONString(buf, n.Value)
	return nil
}

// writeJSONString writes s as a JSON string, as json.Marshal does.
func writeJSONString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			buf.Write(b)
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}

// keySet is the set of keys of one mapping written so far.
type keySet struct {
	list []string
	m    map[string]bool
}

// add adds k and says whether it was new.
func (ks *keySet) add(k string) bool {
	if ks.m != nil {
		if ks.m[k] {
			return false
		}
		ks.m[k] = true
		return true
	}
	for _, s := range ks.list {
		if s == k {
			return false
		}
	}
	if len(ks.list) < 16 {
		ks.list = append(ks.list, k)
		return true
	}
	ks.m = make(map[string]bool, 2*len(ks.list))
	for _, s := range ks.list {
		ks.m[s] = true
	}
	ks.m[k] = true
	return true
}
