package api

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/search"
)

//go:embed openapi.json
var openapiFile []byte

// OpenAPI is the API's OpenAPI 3.1 document; {{BASE_URL}} is replaced by the
// server's base URL when served. The query parameters of every route come
// from the one parameter table (withParams), not from the file. A test keeps it true to the routes and to
// the fields the handlers write. A text section of the sections table
// (prose or items) that openapi.json does not describe is added to the Case
// schema from its row, so a new section reaches the API's description
// without an edit of the file.
func OpenAPI() []byte { return openapiDoc() }

// openapiDoc is made in init: the document names Routes, whose handlers
// serve it.
var openapiDoc func() []byte

func init() {
	openapiDoc = sync.OnceValue(func() []byte { return withParams(withSections(openapiFile)) })
}

// withSections is doc with the Case schema's missing text sections added,
// or doc itself, byte for byte, when none is missing.
func withSections(doc []byte) []byte {
	must := func(err error) {
		if err != nil {
			panic("openapi.json: " + err.Error())
		}
	}
	var top, components, schemas, cs, props map[string]json.RawMessage
	var required []string
	must(json.Unmarshal(doc, &top))
	must(json.Unmarshal(top["components"], &components))
	must(json.Unmarshal(components["schemas"], &schemas))
	must(json.Unmarshal(schemas["Case"], &cs))
	must(json.Unmarshal(cs["properties"], &props))
	must(json.Unmarshal(cs["required"], &required))
	added := false
	for _, s := range incidentlib.Sections {
		if _, ok := props[s.Key]; ok {
			continue
		}
		switch s.Kind {
		case incidentlib.Prose:
			props[s.Key] = json.RawMessage(`{"$ref": "#/components/schemas/Text"}`)
		case incidentlib.Items:
			props[s.Key] = json.RawMessage(`{"type": "array", "items": {"$ref": "#/components/schemas/Item"}}`)
		default:
			continue // other kinds are described by hand (TestOpenAPIFields)
		}
		added = true
		if requiredField(s.Key) && !slices.Contains(required, s.Key) {
			required = append(required, s.Key)
		}
	}
	if !added {
		return doc
	}
	put := func(m map[string]json.RawMessage, key string, v any) {
		b, err := json.Marshal(v)
		must(err)
		m[key] = b
	}
	put(cs, "properties", props)
	put(cs, "required", required)
	put(schemas, "Case", cs)
	put(components, "schemas", schemas)
	put(top, "components", components)
	out, err := json.MarshalIndent(top, "", "  ")
	must(err)
	return out
}

// requiredField reports whether the Case field of JSON name key is
// required (il:"required").
func requiredField(key string) bool {
	t := reflect.TypeOf(incidentlib.Case{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == key {
			return strings.Contains(f.Tag.Get("il"), "required")
		}
	}
	panic(fmt.Sprintf("sections table: no Case field of JSON name %q", key))
}

// QueryParam is a query parameter as the OpenAPI document gives it.
type QueryParam struct {
	Name   string      `json:"name"`
	In     string      `json:"in"`
	Schema ParamSchema `json:"schema"`
	Desc   string      `json:"description,omitempty"`
}

// ParamSchema is a query parameter's schema.
type ParamSchema struct {
	Type    string   `json:"type"`
	Enum    []string `json:"enum,omitempty"`
	Pattern string   `json:"pattern,omitempty"`
	Minimum *int     `json:"minimum,omitempty"`
	Maximum *int     `json:"maximum,omitempty"`
	Default any      `json:"default,omitempty"`
}

// DocParams are the query parameters of route as the OpenAPI document
// lists them: the parameter table's, with its kinds, closed sets, bounds,
// defaults and descriptions.
func DocParams(route search.Route) []QueryParam {
	out := []QueryParam{}
	for i := range search.Params {
		p := &search.Params[i]
		if !p.Takes(search.FaceAPI, route) {
			continue
		}
		d := QueryParam{Name: p.Name, In: "query", Desc: p.Doc, Schema: ParamSchema{Type: "string"}}
		switch p.Kind {
		case search.KindInt:
			d.Schema.Type = "integer"
			d.Schema.Minimum = &p.Min
			if p.Max > 0 {
				d.Schema.Maximum = &p.Max
			}
			if n, err := strconv.Atoi(p.Default); err == nil {
				d.Schema.Default = n
			}
		case search.KindBool:
			d.Schema.Type = "boolean"
		case search.KindEnum:
			d.Schema.Enum = p.Enum
		case search.KindLang:
			d.Schema.Pattern = search.LangPattern
			d.Schema.Default = p.Default
		}
		out = append(out, d)
	}
	return out
}

// withParams is doc with the query parameters of every route's operation
// set from the parameter table (DocParams); parameters in the path are
// kept as the document gives them. A route the document does not describe
// is a panic at start, which every test of the package meets.
func withParams(doc []byte) []byte {
	must := func(err error) {
		if err != nil {
			panic("openapi.json: " + err.Error())
		}
	}
	var top, paths map[string]json.RawMessage
	must(json.Unmarshal(doc, &top))
	must(json.Unmarshal(top["paths"], &paths))
	for _, rt := range Routes {
		method, path, _ := strings.Cut(rt.Pattern, " ")
		var item, op map[string]json.RawMessage
		must(json.Unmarshal(paths[path], &item))
		key := strings.ToLower(method)
		if item[key] == nil {
			panic(fmt.Sprintf("openapi.json does not describe %s", rt.Pattern))
		}
		must(json.Unmarshal(item[key], &op))
		var params []json.RawMessage
		if op["parameters"] != nil {
			var old []json.RawMessage
			must(json.Unmarshal(op["parameters"], &old))
			for _, p := range old {
				var in struct {
					In string `json:"in"`
				}
				must(json.Unmarshal(p, &in))
				if in.In != "query" {
					params = append(params, p)
				}
			}
		}
		for _, p := range DocParams(rt.Params) {
			b, err := json.Marshal(p)
			must(err)
			params = append(params, b)
		}
		if len(params) == 0 {
			delete(op, "parameters")
		} else {
			b, err := json.Marshal(params)
			must(err)
			op["parameters"] = b
		}
		b, err := json.Marshal(op)
		must(err)
		item[key] = b
		b, err = json.Marshal(item)
		must(err)
		paths[path] = b
	}
	b, err := json.Marshal(paths)
	must(err)
	top["paths"] = b
	out, err := json.MarshalIndent(top, "", "  ")
	must(err)
	return out
}
