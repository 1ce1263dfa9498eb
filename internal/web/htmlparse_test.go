package web_test

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// node is an element of a parsed page, enough to ask what a reader or a
// crawler would: which elements, with which attributes and text.
type node struct {
	Tag   string
	Attr  map[string]string
	Kids  []*node
	Text  string // the text directly inside, in order
	Outer *node
}

// parseHTML reads a page with encoding/xml in its lenient HTML mode (void
// elements closed, HTML entities known). It fails the test on markup that
// mode cannot read, which a browser would read only by guessing.
func parseHTML(t *testing.T, page string) *node {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(strings.TrimPrefix(strings.TrimSpace(page), "<!doctype html>")))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	root := &node{Tag: "#document"}
	cur := root
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the page does not parse: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{Tag: strings.ToLower(tok.Name.Local), Attr: map[string]string{}, Outer: cur}
			for _, a := range tok.Attr {
				name := a.Name.Local
				if a.Name.Space != "" {
					name = a.Name.Space + ":" + name
				}
				n.Attr[strings.ToLower(name)] = a.Value
			}
			cur.Kids = append(cur.Kids, n)
			cur = n
		case xml.EndElement:
			for n := cur; n != nil; n = n.Outer {
				if n.Tag == strings.ToLower(tok.Name.Local) {
					cur = n.Outer
					break
				}
			}
			if cur == nil {
				cur = root
			}
		case xml.CharData:
			cur.Text += string(tok)
			cur.Kids = append(cur.Kids, &node{Tag: "#text", Text: string(tok), Outer: cur})
		}
	}
	return root
}

// all returns the elements under n (n included) for which match is true, in
// document order.
func (n *node) all(match func(*node) bool) []*node {
	var out []*node
	var walk func(*node)
	walk = func(x *node) {
		if x.Tag != "#text" && match(x) {
			out = append(out, x)
		}
		for _, k := range x.Kids {
			walk(k)
		}
	}
	walk(n)
	return out
}

// first is the first element match finds, or nil.
func (n *node) first(match func(*node) bool) *node {
	if all := n.all(match); len(all) > 0 {
		return all[0]
	}
	return nil
}

// tagged matches elements by tag and, optionally, attribute values
// ("class" matches one of the classes).
func tagged(tag string, attrs ...string) func(*node) bool {
	return func(n *node) bool {
		if tag != "" && n.Tag != tag {
			return false
		}
		for i := 0; i+1 < len(attrs); i += 2 {
			v, ok := n.Attr[attrs[i]]
			if !ok {
				return false
			}
			if attrs[i] == "class" {
				found := false
				for _, c := range strings.Fields(v) {
					found = found || c == attrs[i+1]
				}
				if !found {
					return false
				}
				continue
			}
			if v != attrs[i+1] {
				return false
			}
		}
		return true
	}
}

// textOf is all the text under n, spaces collapsed.
func (n *node) textOf() string {
	var b strings.Builder
	var walk func(*node)
	walk = func(x *node) {
		if x.Tag == "#text" {
			b.WriteString(x.Text)
		}
		for _, k := range x.Kids {
			walk(k)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// rawText is the text under n as written, for <pre> blocks.
func (n *node) rawText() string {
	var b strings.Builder
	var walk func(*node)
	walk = func(x *node) {
		if x.Tag == "#text" {
			b.WriteString(x.Text)
		}
		for _, k := range x.Kids {
			walk(k)
		}
	}
	walk(n)
	return b.String()
}

// meta returns the content of <meta property=prop> (or name=prop).
func (n *node) meta(prop string) (string, bool) {
	m := n.first(func(x *node) bool { return x.Tag == "meta" && (x.Attr["property"] == prop || x.Attr["name"] == prop) })
	if m == nil {
		return "", false
	}
	return m.Attr["content"], true
}
