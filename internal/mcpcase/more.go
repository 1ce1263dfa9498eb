package mcpcase

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// Field is one section of a case that Incident has no field of its own
// for: a prose section as a string, an items section as a list. A new
// section reaches get_incident from its row in incidentlib.Sections alone:
// its MCP name and text come from the table, its place in the output schema
// from Schema.
type Field struct {
	Name  string
	Value any
}

// MarshalJSON writes the fields of inc, then its More sections in table
// order.
func (inc Incident) MarshalJSON() ([]byte, error) {
	type plain Incident // the same fields, without this method
	b, err := json.Marshal(plain(inc))
	if err != nil {
		return nil, err
	}
	for _, f := range inc.More {
		if b, err = AppendField(b, f.Name, f.Value); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// AppendField adds "name": v to the JSON object obj, for types that embed
// Incident and add fields of their own to its JSON.
func AppendField(obj []byte, name string, v any) ([]byte, error) {
	if len(obj) < 2 || obj[len(obj)-1] != '}' {
		return nil, fmt.Errorf("mcpcase: %q is not a JSON object", obj)
	}
	val, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	key, _ := json.Marshal(name)
	out := obj[:len(obj)-1]
	if len(out) > 1 {
		out = append(out, ',')
	}
	out = append(out, key...)
	out = append(out, ':')
	out = append(out, val...)
	return append(out, '}'), nil
}

// moreSections are the sections with an MCP name that Incident has no
// field for, in table order, once each: the ones that go into More.
func moreSections() []*incidentlib.Section {
	var out []*incidentlib.Section
	seen := map[string]bool{}
	for i := range incidentlib.Sections {
		s := &incidentlib.Sections[i]
		if _, ok := places[s.MCP]; s.MCP == "" || ok || seen[s.MCP] {
			continue
		}
		seen[s.MCP] = true
		out = append(out, s)
	}
	return out
}

// canGoInMore says why a section cannot go into More, or nil: only prose
// and items have a form there.
func canGoInMore(s *incidentlib.Section) error {
	if s.Kind == incidentlib.Prose || s.Kind == incidentlib.Items {
		return nil
	}
	return fmt.Errorf("section %s (MCP name %s) is neither prose nor items: give mcpcase.Incident a field %s", s.Key, s.MCP, s.MCP)
}

// MoreNames are the MCP names of the sections that go into More, in table
// order: the properties Schema adds to those of Incident's fields.
func MoreNames() []string {
	var out []string
	for _, s := range moreSections() {
		out = append(out, s.MCP)
	}
	return out
}

// Schema is the output schema of a get_incident that answers T (Incident,
// or a type that embeds it): the schema of T's fields, and a property for
// each section that goes into More.
func Schema[T any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{})
	if err != nil {
		return nil, err
	}
	for i := range incidentlib.Sections {
		if err := checkSection(&incidentlib.Sections[i]); err != nil {
			return nil, err
		}
	}
	for _, sec := range moreSections() {
		if s.Properties[sec.MCP] != nil {
			continue // T has a field of that name (kubegap's cited_by, say)
		}
		desc := "the case's " + locale.T("en", sec.Words) + " section, in the asked language"
		p := &jsonschema.Schema{Type: "string", Description: desc}
		if sec.Kind == incidentlib.Items {
			p = &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: desc}
		}
		if s.Properties == nil {
			s.Properties = map[string]*jsonschema.Schema{}
		}
		s.Properties[sec.MCP] = p
		s.PropertyOrder = append(s.PropertyOrder, sec.MCP)
	}
	return s, nil
}

// OutputSchema is Schema[Incident]; the MCP tool registration uses it in
// place of the schema inferred from Incident's fields alone.
func (Incident) OutputSchema() (*jsonschema.Schema, error) { return Schema[Incident]() }
