package kubegap

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
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
}

// tplKeyRe matches a key line: a plain or quoted key, a colon, then a space
// or the end.
var tplKeyRe = regexp.MustCompile(`^("[^"]*"|'[^']*'|[^\s#:{}\[\]"',&*!|>%@` + "`" + `][^:]*?):(?:\s+(.*))?$`)

// tplActionRe matches one action.
var tplActionRe = regexp.MustCompile(`\{\{-?\s*(.*?)\s*-?\}\}`)

// tplIndentRe finds the column an injection writes at (nindent N, indent N).
var tplIndentRe = regexp.MustCompile(`\bn?indent\s+(\d+)`)

// templateFieldLine is the line in the template text src of path
// ("spec.template.spec.containers[0].livenessProbe") in the one document of
// kind kind, or of the nearest enclosing part the template surely writes;
// 0 when no single document of that kind is found.
func templateFieldLine(src []byte, kind, path string) int {
	var doc *tplNode
	for _, d := range templateDocs(string(src)) {
		if !slices.Contains(d.kinds, kind) {
			continue
		}
		if doc != nil {
			return 0 // two documents of the kind: which one is not known
		}
		doc = d.root
	}
	if doc == nil {
		return 0
	}
	n, line := doc, doc.line
	for _, part := range strings.Split(path, ".") {
		key, idx := part, -1
		if i := strings.IndexByte(part, '['); i >= 0 && strings.HasSuffix(part, "]") {
			key = part[:i]
			k, err := strconv.Atoi(part[i+1 : len(part)-1])
			if err != nil {
				return line
			}
			idx = k
		}
		c := n.keys[key]
		if c == nil || c.twice {
			return line
		}
		n, line = c, c.line
		if idx >= 0 {
			if idx >= len(n.items) || n.dynamic && idx >= n.sure {
				return line
			}
			n = n.items[idx]
			line = n.line
		}
	}
	return line
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
		if rest := tplActionRe.ReplaceAllString(text, ""); strings.TrimSpace(rest) == "" {
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
	for _, m := range tplActionRe.FindAllStringSubmatch(text, -1) {
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
			if im := tplIndentRe.FindStringSubmatch(a); im != nil {
				at, _ = strconv.Atoi(im[1])
			}
			p.parentAt(at).markDynamic()
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
			if strings.TrimSpace(tplActionRe.ReplaceAllString(inner, "")) == "" {
				p.actions(at, inner)
			}
			return
		}
		p.content(no, at, inner)
		return
	}
	m := tplKeyRe.FindStringSubmatch(text)
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
	n.values = append(n.values, strings.TrimSpace(value))
}

// markDynamic records that the template writes content into n by an
// action from here on: the items written so far keep their indices.
func (n *tplNode) markDynamic() {
	if !n.dynamic {
		n.dynamic, n.sure = true, len(n.items)
	}
}
