package kubegap

import (
	"slices"
	"strconv"
	"strings"

	"github.com/incidentlib/incidentlib/internal/lazyre"
)

// A chart template is not YAML until it is rendered, and the rendered
// output's lines are not the template's. Yet most of a template is YAML as
// written: its keys, its sequence items and their indentation, with actions
// in values ("replicas: {{ .Values.replicas }}"), control lines ("{{- if
// … }}") and injections ("{{- toYaml .Values.resources | nindent 12 }}")
// between them. templateFieldLine reads that shape and finds a finding's
// field in it, so that a chart finding points at the template line that
// writes the field. It answers only what the text decides: where the
// template may write a part of the path some other way (an injection, a
// range, a key written in two branches, items under a condition), it stops
// at the nearest enclosing line it is sure of, as fieldLines does for a
// field a plain file leaves out; and when the file holds no single
// document of the object's kind, it answers 0 (no line).

// tplNode is a key or a sequence item of a template as written.
type tplNode struct {
	line   int
	indent int // the column of the key, or of the item's "-"
	item   bool
	keys   map[string]*tplNode
	items  []*tplNode
	// dynamic: the template writes content here by an action (include,
	// toYaml, a templated key), so keys may be missing from keys and items'
	// indices are not known. (Items under a control block, a range's
	// included, make their sequence dynamic through conds.)
	dynamic bool
	// twice: the key is written twice in one mapping (if/else branches);
	// which one rendered is not known.
	twice  bool
	conds  int      // the control blocks open when the node was written
	values []string // a key's values as written on its line(s)
	// sure is how many of items are at their indices in any rendering:
	// those before the first item under a condition or an injection.
	sure int
	// includes names the defines an include or template action writes
	// into the node.
	includes []string
}

// tplKeyRe matches a key line: a plain or quoted key, a colon, then a space
// or the end.
var tplKeyRe = lazyre.New(`^("[^"]*"|'[^']*'|[^\s#:{}\[\]"',&*!|>%@` + "`" + `][^:]*?):(?:\s+(.*))?$`)

// tplActionRe matches one action.
var tplActionRe = lazyre.New(`\{\{-?\s*(.*?)\s*-?\}\}`)

// tplIndentRe finds the column an injection writes at (nindent N, indent N).
var tplIndentRe = lazyre.New(`\bn?indent\s+(\d+)`)

// tplDefineRe matches a line that opens a define.
var tplDefineRe = lazyre.New(`^\{\{-?\s*define\s+"([^"]+)"\s*-?\}\}$`)

// tplIncludeRe finds the define an action includes.
var tplIncludeRe = lazyre.New(`^(?:include|template)\s+"([^"]+)"`)

// defines finds a chart's named templates: the shape of the define name
// and the file it is in, or nil.
type defines func(name string) (root *tplNode, file string)

// maxIncludes bounds how many includes a walk follows (a define may include
// itself).
const maxIncludes = 8

// templateFieldLine is the line in the template text src of path
// ("spec.template.spec.containers[0].livenessProbe") in the one document of
// kind kind, or of the nearest enclosing part the template surely writes;
// 0 when no single document of that kind is found. Where the path goes on
// into what one include writes, it follows the define (defs, when set) and
// file names the define's file ("" for src's own).
func templateFieldLine(src []byte, kind, path string, defs defines) (file string, line int) {
	var doc *tplNode
	for _, d := range templateDocs(string(src)) {
		if !slices.Contains(d.kinds, kind) {
			continue
		}
		if doc != nil {
			return "", 0 // two documents of the kind: which one is not known
		}
		doc = d.root
	}
	if doc == nil {
		return "", 0
	}
	n, line := doc, doc.line
	hops := 0
	nfile := "" // the file n is in: "" for src, a define's after an include
	// into is the define the one include of n writes, when the path must
	// go on there.
	into := func(n *tplNode) *tplNode {
		if defs == nil || len(n.includes) != 1 || hops >= maxIncludes {
			return nil
		}
		root, f := defs(n.includes[0])
		if root == nil {
			return nil
		}
		hops++
		nfile = f
		return root
	}
	for _, part := range strings.Split(path, ".") {
		key, idx, ok := fieldPart(part)
		if !ok {
			return file, line
		}
		c := n.keys[key]
		for c == nil {
			// A key the template does not write, where one include
			// writes content: go on in its define.
			d := into(n)
			if d == nil {
				break
			}
			n = d
			c = n.keys[key]
		}
		if c == nil || c.twice {
			return file, line
		}
		n, line, file = c, c.line, nfile
		if idx >= 0 {
			for len(n.items) == 0 && len(n.keys) == 0 {
				d := into(n)
				if d == nil {
					break
				}
				n = d
			}
			if idx >= len(n.items) || n.dynamic && idx >= n.sure {
				return file, line
			}
			n = n.items[idx]
			line, file = n.line, nfile
		}
	}
	return file, line
}

type tplDoc struct {
	kinds []string // the kinds written (in each branch, for an if/else)
	root  *tplNode
}

// templateDocs splits src at its "---" lines and reads each document's
// shape.
func templateDocs(src string) []tplDoc {
	var docs []tplDoc
	p := newTplParser()
	for i, raw := range strings.Split(src, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		if line == "---" || strings.HasPrefix(line, "--- ") {
			docs = append(docs, p.done())
			p = newTplParser()
			continue
		}
		p.line(i+1, line)
	}
	return append(docs, p.done())
}

type tplParser struct {
	root  *tplNode
	stack []*tplNode
	conds int
}

func newTplParser() *tplParser {
	root := &tplNode{indent: -1, keys: map[string]*tplNode{}}
	return &tplParser{root: root, stack: []*tplNode{root}}
}

func (p *tplParser) done() tplDoc {
	d := tplDoc{root: p.root}
	if k := p.root.keys["kind"]; k != nil {
		for _, v := range k.values {
			d.kinds = append(d.kinds, strings.Trim(v, `"'`))
		}
	}
	return d
}

func (p *tplParser) top() *tplNode { return p.stack[len(p.stack)-1] }

// parentAt pops the stack to the node that holds content at column col.
func (p *tplParser) parentAt(col int) *tplNode {
	for len(p.stack) > 1 && p.top().indent >= col {
		p.stack = p.stack[:len(p.stack)-1]
	}
	return p.top()
}

func (p *tplParser) line(no int, line string) {
	text := strings.TrimLeft(line, " ")
	col := len(line) - len(text)
	if text == "" {
		return
	}
	if strings.HasPrefix(text, "#") {
		return
	}
	if strings.HasPrefix(text, "{{") {
		if rest := tplActionRe().ReplaceAllString(text, ""); strings.TrimSpace(rest) == "" {
			p.actions(col, text)
			return
		}
		// Text written around an action at a line's start: unknown.
		p.parentAt(col).markDynamic()
		return
	}
	p.content(no, col, text)
}

// actions reads a line of actions only: control blocks are counted, and an
// action that writes content makes its place dynamic.
func (p *tplParser) actions(col int, text string) {
	for _, m := range tplActionRe().FindAllStringSubmatch(text, -1) {
		a := m[1]
		word, _, _ := strings.Cut(a, " ")
		switch word {
		case "if", "with", "range", "define", "block":
			p.conds++
		case "end":
			p.conds--
		case "else":
		default:
			if strings.HasPrefix(a, "/*") || strings.HasPrefix(a, "$") && strings.Contains(a, ":=") {
				continue // a comment, a variable
			}
			at := col
			if im := tplIndentRe().FindStringSubmatch(a); im != nil {
				at, _ = strconv.Atoi(im[1])
			}
			parent := p.parentAt(at)
			parent.markDynamic()
			if im := tplIncludeRe().FindStringSubmatch(a); im != nil {
				parent.includes = append(parent.includes, im[1])
			}
		}
	}
}

// content reads a key line or a sequence item at column col.
func (p *tplParser) content(no, col int, text string) {
	if text == "-" || strings.HasPrefix(text, "- ") {
		// An item belongs to the key above it at a lower column, or at the
		// same column ("containers:\n- name: x").
		for len(p.stack) > 1 {
			t := p.top()
			if t.indent > col || t.indent == col && t.item {
				p.stack = p.stack[:len(p.stack)-1]
				continue
			}
			break
		}
		seq := p.top()
		it := &tplNode{line: no, indent: col, item: true, keys: map[string]*tplNode{}, conds: p.conds}
		if p.conds != seq.conds {
			seq.markDynamic() // an item under a condition: indices from here unknown
		}
		seq.items = append(seq.items, it)
		p.stack = append(p.stack, it)
		rest := strings.TrimPrefix(text, "-")
		inner := strings.TrimLeft(rest, " ")
		if inner == "" {
			return
		}
		at := col + 1 + len(rest) - len(inner)
		if strings.HasPrefix(inner, "{{") {
			if strings.TrimSpace(tplActionRe().ReplaceAllString(inner, "")) == "" {
				p.actions(at, inner)
			}
			return
		}
		p.content(no, at, inner)
		return
	}
	m := tplKeyRe().FindStringSubmatch(text)
	parent := p.parentAt(col)
	if m == nil {
		return // a scalar, a flow value's continuation
	}
	key, value := strings.Trim(m[1], `"'`), m[2]
	if strings.Contains(key, "{{") {
		key = "\x00" + strconv.Itoa(no) // a templated key: a name of its own, never looked up
	}
	n := &tplNode{line: no, indent: col, keys: map[string]*tplNode{}, conds: p.conds}
	if old := parent.keys[key]; old != nil {
		old.twice = true
		n = old
	} else {
		parent.keys[key] = n
	}
	p.stack = append(p.stack, n)
	v := strings.TrimSpace(value)
	n.values = append(n.values, v)
	// "resources: {{- include "x.resources" . | nindent 12 }}"
	if strings.HasPrefix(v, "{{") && strings.TrimSpace(tplActionRe().ReplaceAllString(v, "")) == "" {
		for _, m := range tplActionRe().FindAllStringSubmatch(v, -1) {
			if im := tplIncludeRe().FindStringSubmatch(m[1]); im != nil {
				n.markDynamic()
				n.includes = append(n.includes, im[1])
			}
		}
	}
}

// defineShapes reads the named templates of files (name → text) into their
// shapes: each define's lines, from the line after its opening action to
// its end, parsed as a document of its own (lines keep their numbers). A
// name defined twice is left out (which one Helm takes depends on the
// order it loads files in).
func defineShapes(files map[string][]byte) map[string]struct {
	root *tplNode
	file string
} {
	type shape = struct {
		root *tplNode
		file string
	}
	out := map[string]shape{}
	twice := map[string]bool{}
	for file, text := range files {
		var p *tplParser
		name, depth := "", 0
		for i, raw := range strings.Split(string(text), "\n") {
			line := strings.TrimRight(raw, " \t\r")
			trimmed := strings.TrimSpace(line)
			if p == nil {
				if m := tplDefineRe().FindStringSubmatch(trimmed); m != nil {
					p, name, depth = newTplParser(), m[1], 1
				}
				continue
			}
			for _, a := range tplActionRe().FindAllStringSubmatch(trimmed, -1) {
				switch w, _, _ := strings.Cut(a[1], " "); w {
				case "if", "with", "range", "define", "block":
					depth++
				case "end":
					depth--
				}
			}
			if depth == 0 {
				if _, seen := out[name]; seen {
					twice[name] = true
				}
				out[name] = shape{p.root, file}
				p = nil
				continue
			}
			p.line(i+1, line)
		}
	}
	for name := range twice {
		delete(out, name)
	}
	return out
}

// markDynamic records that the template writes content into n by an
// action from here on: the items written so far keep their indices.
func (n *tplNode) markDynamic() {
	if !n.dynamic {
		n.dynamic, n.sure = true, len(n.items)
	}
}
