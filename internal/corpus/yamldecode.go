package corpus

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/lazyre"
	"github.com/incidentlib/incidentlib/internal/yamlnode"
)

// Limits on what a case file may hold. A larger file is refused before it is
// parsed, so a mistaken paste cannot make the loader use much memory.
const (
	MaxFileSize = 1 << 20  // bytes in one case file
	MaxTextLen  = 64 << 10 // bytes in one text field
)

// Problem is one thing wrong with a file, at a line.
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

// Problems is a list of problems; as an error it prints one per line.
type Problems []Problem

func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// positions maps a field path ("title.en", "sources[0].url") to the line it
// was read from, so that checks after decoding can still name a line. A
// negative line marks a field that could not be decoded; later checks skip
// it so that one mistake is reported once.
type positions map[string]int

// usable reports whether path was read and decoded without a problem.
func (p positions) usable(path string) bool { return p[path] > 0 }

// line returns the line of path, or of its nearest recorded parent.
func (p positions) line(path string) int {
	for path != "" {
		if l, ok := p[path]; ok {
			if l < 0 {
				return -l
			}
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 1
}

// checkRaw refuses inputs that YAML would either misread or report badly.
func checkRaw(file string, data []byte) []Problem {
	if len(data) > MaxFileSize {
		return []Problem{{file, 1, fmt.Sprintf("the file is %d bytes; a case file may be at most %d bytes (1 MiB) - move long material to a linked source", len(data), MaxFileSize)}}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return []Problem{{file, 1, "the file is empty; expected a YAML mapping with id, org, title and the other case fields (see docs/CASE-FORMAT.md)"}}
	}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return []Problem{{file, 1, "the file starts with a UTF-8 byte-order mark; save it as UTF-8 without BOM"}}
	}
	var probs []Problem
	for i, line := range bytes.Split(data, []byte("\n")) {
		n := i + 1
		if !utf8.Valid(line) {
			probs = append(probs, Problem{file, n, "the line is not valid UTF-8; save the file as UTF-8"})
			continue
		}
		if bytes.HasSuffix(line, []byte("\r")) {
			probs = append(probs, Problem{file, n, "the line ends with CRLF; use LF (Unix) line endings"})
			if len(probs) > 20 {
				break
			}
			continue
		}
		for _, c := range line {
			if c == ' ' {
				continue
			}
			if c == '\t' {
				probs = append(probs, Problem{file, n, "a tab is used for indentation; indent with spaces (two per level)"})
			}
			break
		}
		if len(probs) > 20 {
			break
		}
	}
	return probs
}

var yamlErrLine = lazyre.New(`line (\d+): (.*)`)

// parseYAML parses one YAML document into a node tree.
func parseYAML(file string, data []byte) (*yaml.Node, []Problem) {
	if probs := checkRaw(file, data); len(probs) > 0 {
		return nil, probs
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, []Problem{yamlProblem(file, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, []Problem{{file, extra.Line, "a second YAML document starts here; a case file holds exactly one case"}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, []Problem{{file, 1, "expected one YAML mapping"}}
	}
	return doc.Content[0], nil
}

func yamlProblem(file string, err error) Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlErrLine().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	return Problem{file, line, "malformed YAML: " + msg + "; check the indentation and quote values that contain \": \" or start with a special character"}
}

// decoder turns a node tree into a Go value, collecting every problem with
// its line rather than stopping at the first.
type decoder struct {
	file  string
	probs []Problem
	pos   positions
}

func (d *decoder) fail(path string, line int, format string, args ...any) {
	d.pos[path] = -line
	d.errorf(line, format, args...)
}

func (d *decoder) errorf(line int, format string, args ...any) {
	d.probs = append(d.probs, Problem{d.file, line, fmt.Sprintf(format, args...)})
}

// truncate cuts s to n bytes, marking the cut (yamlnode.Truncate).
func truncate(s string, n int) string { return yamlnode.Truncate(s, n) }

func fieldName(path string) string {
	if path == "" {
		return "the case"
	}
	return path
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// decode reads node n into v. path names the field for messages.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	d.pos[path] = n.Line
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		d.fail(path, n.Line, "%s uses a YAML anchor or alias; write the value out in full", fieldName(path))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Pointer:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		d.decode(n, p.Elem(), path)
		v.Set(p)
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			d.fail(path, n.Line, "%s is %s; expected a string", fieldName(path), yamlnode.Describe(n))
			return
		}
		s := strings.TrimSpace(n.Value)
		if n.Style == 0 && n.LineComment != "" && isProse(path) {
			d.fail(path, n.Line, "%s is cut short by a YAML comment: in a plain value \" #\" starts a comment, so only %q is kept; write the text as a block scalar (|) or in quotes", fieldName(path), truncate(s, 40))
			return
		}
		if len(s) > MaxTextLen {
			d.fail(path, n.Line, "%s is %d bytes long; a text field may be at most %d bytes", fieldName(path), len(s), MaxTextLen)
			return
		}
		v.SetString(s)
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			d.fail(path, n.Line, "%s is %s; expected true or false", fieldName(path), yamlnode.Describe(n))
			return
		}
		b, _ := strconv.ParseBool(n.Value)
		v.SetBool(b)
	case reflect.Slice:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			v.SetZero()
			return
		}
		if n.Kind != yaml.SequenceNode {
			d.fail(path, n.Line, "%s is %s; expected a list (write [a, b] or one \"- item\" per line)", fieldName(path), yamlnode.Describe(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	default:
		d.errorf(n.Line, "%s has a type the loader cannot read", fieldName(path))
	}
}

type fieldInfo struct {
	index    int
	required bool
}

func structFields(t reflect.Type) (map[string]fieldInfo, []string) {
	m := map[string]fieldInfo{}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if tag == "" || tag == "-" {
			continue
		}
		name := strings.Split(tag, ",")[0]
		m[name] = fieldInfo{i, f.Tag.Get("il") == "required"}
		names = append(names, name)
	}
	return m, names
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	fields, names := structFields(v.Type())
	if n.Kind != yaml.MappingNode {
		hint := ""
		if strings.HasPrefix(path, "impact.") && v.Type() == reflect.TypeOf(incidentlib.Text{}) {
			hint = fmt.Sprintf(" (the impact facts are texts in both languages: write en: and ko: under %s; where the write-up does not say, en: unknown and ko: %s)", path, incidentlib.UnknownKO)
		}
		d.fail(path, n.Line, "%s is %s; expected a mapping with keys %s%s", fieldName(path), yamlnode.Describe(n), strings.Join(names, ", "), hint)
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k.Line, "a key in %s is %s; keys must be plain names", fieldName(path), yamlnode.Describe(k))
			continue
		}
		f, ok := fields[k.Value]
		if !ok {
			hint := ""
			if path != "" && v.Type().Name() == "Text" {
				hint = " (text fields take exactly the languages en and ko)"
			}
			d.errorf(k.Line, "unknown field %q in %s; expected one of: %s%s", k.Value, fieldName(path), strings.Join(names, ", "), hint)
			continue
		}
		if seen[k.Value] {
			d.errorf(k.Line, "field %q appears twice in %s; keep one", k.Value, fieldName(path))
			continue
		}
		seen[k.Value] = true
		d.decode(val, v.Field(f.index), join(path, k.Value))
	}
	var missing []string
	for _, name := range names {
		f := fields[name]
		if !f.required {
			continue
		}
		if !seen[name] {
			missing = append(missing, name)
			continue
		}
		p := join(path, name)
		if fv := v.Field(f.index); fv.Kind() == reflect.String && fv.String() == "" && d.pos.usable(p) {
			d.fail(p, d.pos.line(p), "%s is empty; write a value (\"unknown\" where the source does not say)", p)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		d.errorf(n.Line, "missing required field %q in %s", name, fieldName(path))
	}
}

// decodeFile parses data and decodes it into v, a pointer to a struct.
func decodeFile(file string, data []byte, v any) (positions, []Problem) {
	root, probs := parseYAML(file, data)
	if probs != nil {
		return nil, probs
	}
	d := &decoder{file: file, pos: positions{}}
	d.decode(root, reflect.ValueOf(v).Elem(), "")
	return d.pos, d.probs
}

// isProse reports whether path names free text (a language of a Text, the
// impact facts among them), where a cut-off value would go unnoticed.
func isProse(path string) bool {
	return strings.HasSuffix(path, ".en") || strings.HasSuffix(path, ".ko")
}
