package api

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/view"
)

// The fields a fields= parameter may name: the JSON keys of a case (GET
// /api/cases/{id}) and of a search result (the items of GET /api/cases),
// read from the types themselves so that a new field is accepted at once.
var (
	caseFields = jsonKeys(reflect.TypeFor[incidentlib.Case]())
	itemFields = jsonKeys(reflect.TypeFor[view.SearchItem]())
)

func jsonKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// fieldsOf checks the fields= names against the accepted keys. No
// fields means the whole answer.
func fieldsOf(p search.Parsed, accepted []string) ([]string, error) {
	for _, f := range p.Fields {
		if !slices.Contains(accepted, f) {
			return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "unknown field %q; fields takes a comma-separated list of: %s", truncate(f, 40), strings.Join(accepted, ", "))
		}
	}
	out := p.Fields
	if p.FieldsGiven && len(out) == 0 {
		return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "fields is empty; name at least one of: %s", strings.Join(accepted, ", "))
	}
	return out, nil
}

// keepFields returns v as JSON values with only the keys in keep; at, when
// not empty, names the list inside v whose objects are trimmed instead
// (the items of a search answer).
func keepFields(v any, keep []string, at string) (any, error) {
	if len(keep) == 0 {
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var x map[string]any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, err
	}
	trim := func(m map[string]any) {
		for k := range m {
			if !slices.Contains(keep, k) {
				delete(m, k)
			}
		}
	}
	if at == "" {
		trim(x)
		return x, nil
	}
	items, _ := x[at].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			trim(m)
		}
	}
	return x, nil
}
