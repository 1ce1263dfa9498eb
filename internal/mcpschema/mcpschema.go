// Package mcpschema builds MCP tool input schemas that every host accepts.
package mcpschema

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/incidentlib/incidentlib/internal/locale"
)

// Input is the input schema of a tool taking T, with no type union
// with null anywhere: an optional field is one that may be left out. Hosts
// that hand tools to some models (Gemini among them) refuse
// ["null", "array"]; a nil Go slice and an absent field mean the same here.
func Input[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic("mcpschema: input schema: " + err.Error())
	}
	dropNull(s)
	bound(s)
	return s
}

// Output makes s, a tool's output schema, free of type unions with null
// in the same way: every list an answer holds is a list (empty when there
// is nothing) or absent, never null. It returns s.
func Output(s *jsonschema.Schema) *jsonschema.Schema {
	dropNull(s)
	return s
}

// bound gives the conventional top-level inputs their closed sets: lang
// follows the one language rule (locale.Parse, as a pattern), view is
// full or summary. Bounds of numbers and other closed sets are each
// server's own: incidentlib's come from its parameter table, kubegap's
// from its findings.
func bound(s *jsonschema.Schema) {
	for name, p := range s.Properties {
		switch name {
		case "lang":
			p.Pattern = locale.Pattern
		case "view":
			p.Enum = []any{"full", "summary"}
		}
	}
}

func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		var keep []string
		for _, t := range s.Types {
			if t != "null" {
				keep = append(keep, t)
			}
		}
		if len(keep) == 1 {
			s.Type, s.Types = keep[0], nil
		} else {
			s.Types = keep
		}
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	for _, d := range s.Defs {
		dropNull(d)
	}
	dropNull(s.Items)
	dropNull(s.AdditionalProperties)
	for _, x := range s.PrefixItems {
		dropNull(x)
	}
	for _, x := range s.AnyOf {
		dropNull(x)
	}
	for _, x := range s.OneOf {
		dropNull(x)
	}
}
