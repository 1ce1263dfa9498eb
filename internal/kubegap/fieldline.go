package kubegap

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
)

// maxFieldFile is the largest file whose findings get the line of their
// field: finding it parses the whole file into nodes, which for a file of
// tens of megabytes would cost more than the scan. Findings in larger
// files keep the object's line.
const maxFieldFile = 8 << 20

// fieldLines sets each finding's FieldLine: the line, in the object's file,
// of the field the finding names (checks.Finding.Field), or of the nearest
// enclosing field the file writes when that one is absent (a probe left to
// its defaults points at its container). An object a chart's template on
// disk rendered gets the template's line of the field, as far as the
// template's text decides it (templateFieldLine). Objects from standard
// input, from live clusters, from packaged charts and from kustomize
// keep FieldLine 0: no file holds what was scanned. Each file is parsed
// once.
func fieldLines(fs []checks.Finding, sources map[inventory.Ref]inventory.Source) {
	files := map[string]map[int][]*yaml.Node{}
	templates := map[string][]byte{}
	charts := chartDefines{}
	for i := range fs {
		f := &fs[i]
		src, ok := sources[f.Object]
		if f.Field == "" || !ok || src.File == "" || src.File == manifest.StdinName {
			continue
		}
		if src.FromTemplate {
			text, seen := templates[src.File]
			if !seen {
				text = readTemplate(src.File)
				templates[src.File] = text
			}
			if text != nil {
				file, line := templateFieldLine(text, f.Object.Kind, f.Field, charts.defines(src.File))
				f.FieldLine = line
				if file != "" && file != src.File {
					f.FieldFile = file
				}
			}
			continue
		}
		if src.Template != "" || src.Line <= 0 {
			continue
		}
		byLine, seen := files[src.File]
		if !seen {
			byLine = mappingsByLine(parseNodes(src.File))
			files[src.File] = byLine
		}
		for _, m := range byLine[src.Line] {
			if scalarAt(m, "kind") == f.Object.Kind && scalarAt(child(m, "metadata"), "name") == f.Object.Name {
				f.FieldLine = walkField(m, f.Field)
				break
			}
		}
	}
}

// chartDefines holds the named templates of each chart read, by the
// chart's folder.
type chartDefines map[string]map[string]struct {
	root *tplNode
	file string
}

// defines is the lookup of named templates for a template file: those of
// every template file of its chart (the topmost Chart.yaml above it, as
// Helm shares defines with subcharts), read once per chart.
func (c chartDefines) defines(template string) defines {
	root := chartRoot(template)
	if root == "" {
		return nil
	}
	shapes, seen := c[root]
	if !seen {
		files := map[string][]byte{}
		total := 0
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || total > maxFieldFile {
				return nil
			}
			if filepath.Base(filepath.Dir(p)) != "templates" && !strings.Contains(filepath.ToSlash(p), "/templates/") {
				return nil
			}
			switch filepath.Ext(p) {
			case ".tpl", ".yaml", ".yml", ".txt":
			default:
				return nil
			}
			if b := readTemplate(p); b != nil {
				files[p] = b
				total += len(b)
			}
			return nil
		})
		shapes = defineShapes(files)
		c[root] = shapes
	}
	return func(name string) (*tplNode, string) {
		s, ok := shapes[name]
		if !ok {
			return nil, ""
		}
		return s.root, s.file
	}
}

// chartRoot is the folder of the topmost chart holding file (a subchart's
// templates are in charts/NAME/templates of its parent), or "".
func chartRoot(file string) string {
	root := ""
	for dir := filepath.Dir(file); ; {
		if st, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err == nil && st.Mode().IsRegular() {
			root = dir
		} else if root != "" && filepath.Base(dir) != "charts" {
			return root
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return root
		}
		dir = parent
	}
}

// fieldPart splits a part of a field path into its key and, for a list
// item ("containers[1]"), its index (-1 otherwise); ok is false for an
// index that is not a number.
func fieldPart(part string) (key string, idx int, ok bool) {
	i := strings.IndexByte(part, '[')
	if i < 0 || !strings.HasSuffix(part, "]") {
		return part, -1, true
	}
	k, err := strconv.Atoi(part[i+1 : len(part)-1])
	if err != nil {
		return "", 0, false
	}
	return part[:i], k, true
}

// readTemplate reads a chart template on disk, or gives nil (a packaged
// chart's template, named inside the chart, is no file; a file too large
// to parse for a line is left).
func readTemplate(file string) []byte {
	st, err := os.Stat(file)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxFieldFile {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	return b
}

// mappingsByLine indexes the mappings of docs that name a kind (objects,
// at any depth: a List's items too) by the line they start on.
func mappingsByLine(docs []*yaml.Node) map[int][]*yaml.Node {
	out := map[int][]*yaml.Node{}
	var visit func(n *yaml.Node)
	visit = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode && scalarAt(n, "kind") != "" {
			out[n.Line] = append(out[n.Line], n)
		}
		for _, c := range n.Content {
			visit(c)
		}
	}
	for _, d := range docs {
		visit(d)
	}
	return out
}

// parseNodes reads file into YAML nodes, one per document (JSON is read as
// YAML). A file that is too large or does not parse gives none.
func parseNodes(file string) []*yaml.Node {
	st, err := os.Stat(file)
	if err != nil || st.Size() > maxFieldFile {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			return docs // the documents before the one that does not parse
		}
		docs = append(docs, &n)
	}
}

// child is the value of key in mapping n, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func scalarAt(n *yaml.Node, key string) string {
	if v := child(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// walkField follows path ("spec.template.spec.containers[1].livenessProbe")
// from obj and returns the line of the deepest part the file writes: the
// key's line for a field, the item's line for a list item.
func walkField(obj *yaml.Node, path string) int {
	n, line := obj, obj.Line
	for _, part := range strings.Split(path, ".") {
		key, idx, ok := fieldPart(part)
		if !ok {
			return line
		}
		if n.Kind != yaml.MappingNode {
			return line
		}
		var v *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line, v = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		if v == nil {
			return line
		}
		n = v
		if idx >= 0 {
			if n.Kind != yaml.SequenceNode || idx >= len(n.Content) {
				return line
			}
			n = n.Content[idx]
			line = n.Line
		}
	}
	return line
}
