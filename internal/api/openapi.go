package api

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/incidentlib/incidentlib"
)

//go:embed openapi.json
var openapiFile []byte

// OpenAPI is the API's OpenAPI 3.1 document; {{BASE_URL}} is replaced by the
// server's base URL when served. A test keeps it true to the routes and to
// the fields the handlers write. A text section of the sections table
// (prose or items) that openapi.json does not describe is added to the Case
// schema from its row, so a new section reaches the API's description
// without an edit of the file.
var OpenAPI = withSections(openapiFile)

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
