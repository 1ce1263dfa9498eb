package corpus

import (
	"bytes"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/incidentlib/incidentlib"
)

// flowLists are the lists short enough to write on one line.
var flowLists = map[string]bool{"domain": true, "symptoms": true, "components": true, "contributing": true, "related": true}

// MarshalCase writes c as a case file: fields in the documented order, block
// scalars for multi-line text. Loading the result gives c back.
func MarshalCase(c *incidentlib.Case) ([]byte, error) {
	n := toNode(reflect.ValueOf(*c), "")
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func toNode(v reflect.Value, key string) *yaml.Node {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
		}
		return toNode(v.Elem(), key)
	case reflect.String:
		s := v.String()
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
		// Every text is a block scalar: a plain one would be cut at " #".
		if strings.Contains(s, "\n") || key == "en" || key == "ko" {
			n.Style = yaml.LiteralStyle
		}
		return n
	case reflect.Bool:
		if v.Bool() {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"}
	case reflect.Slice:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if v.Len() == 0 || flowLists[key] {
			n.Style = yaml.FlowStyle
		}
		for i := 0; i < v.Len(); i++ {
			n.Content = append(n.Content, toNode(v.Index(i), ""))
		}
		return n
	case reflect.Struct:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			tag := strings.Split(f.Tag.Get("yaml"), ",")
			name := tag[0]
			if name == "" || name == "-" {
				continue
			}
			if len(tag) > 1 && tag[1] == "omitempty" && v.Field(i).IsZero() {
				continue
			}
			if len(tag) > 1 && tag[1] == "omitempty" && v.Field(i).Kind() == reflect.Slice && v.Field(i).Len() == 0 {
				continue
			}
			n.Content = append(n.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name},
				toNode(v.Field(i), name))
		}
		return n
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

// Format rewrites a case file in the canonical form MarshalCase writes, with
// every text as a block scalar; with unwrap it also joins hard-wrapped
// paragraphs (see Unwrap). A file that cannot be decoded is left alone and its
// problems are returned: formatting never drops what it could not read.
func Format(file string, data []byte, unwrap bool) ([]byte, Problems) {
	var c incidentlib.Case
	pos, probs := decodeFile(file, data, &c)
	if pos == nil || len(probs) > 0 {
		return nil, probs
	}
	if unwrap {
		walkTexts("", reflect.ValueOf(&c).Elem(), func(_ string, t *incidentlib.Text) {
			t.EN, t.KO = Unwrap(t.EN), Unwrap(t.KO)
		})
	}
	out, err := MarshalCase(&c)
	if err != nil {
		return nil, Problems{{file, 1, "cannot write the case as YAML: " + err.Error()}}
	}
	return out, nil
}
