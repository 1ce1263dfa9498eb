// Package mcpschema builds MCP tool input schemas that every host accepts.
package mcpschema

import (
	"github.com/google/jsonschema-go/jsonschema"
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

// The bounds every tool shares, stated in the schema rather than in prose.
const (
	MaxLimit  = 25    // results a call returns at most
	MaxOffset = 10000 // results a call may skip at most
)

// bound gives the conventional top-level inputs their closed sets and
// limits: lang is en or ko, limit 1 to MaxLimit, offset 0 to MaxOffset,
// view full or summary, sort date or -date.
func bound(s *jsonschema.Schema) {
	f := func(v float64) *float64 { return &v }
	for name, p := range s.Properties {
		switch name {
		case "lang":
			p.Enum = []any{"en", "ko"}
		case "limit":
			p.Minimum, p.Maximum = f(1), f(MaxLimit)
		case "offset":
			p.Minimum, p.Maximum = f(0), f(MaxOffset)
		case "view":
			p.Enum = []any{"full", "summary"}
		case "sort":
			p.Enum = []any{"date", "-date"}
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
