package api_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/incidentlib/internal/api"
	"github.com/incidentlib/incidentlib/internal/search"
)

// TestOpenAPIParamsFromTable: every route's query parameters in the served
// OpenAPI document are the parameter table's for its route, and
// openapi.json itself lists none, so none is written by hand.
func TestOpenAPIParamsFromTable(t *testing.T) {
	var file struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for path, item := range file.Paths {
		for key, op := range item {
			var o struct {
				Parameters []api.QueryParam `json:"parameters"`
			}
			json.Unmarshal(op, &o)
			if key == "parameters" {
				json.Unmarshal(op, &o.Parameters)
			}
			for _, p := range o.Parameters {
				if p.In == "query" {
					t.Errorf("openapi.json lists the query parameter %s of %s %s by hand; it comes from the table", p.Name, key, path)
				}
			}
		}
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, rt := range api.Routes {
		method, path, _ := strings.Cut(rt.Pattern, " ")
		var op struct {
			Parameters []api.QueryParam `json:"parameters"`
		}
		if err := json.Unmarshal(doc.Paths[path][strings.ToLower(method)], &op); err != nil {
			t.Fatalf("%s: %v", rt.Pattern, err)
		}
		var names []string
		for _, p := range op.Parameters {
			if p.In == "query" {
				names = append(names, p.Name)
			}
		}
		if diff := cmp.Diff(search.RouteParamNames(search.FaceAPI, rt.Params), names); diff != "" {
			t.Errorf("%s: query parameters (-table +document):\n%s", rt.Pattern, diff)
		}
	}
}
