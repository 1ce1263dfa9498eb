package api_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/incidentlib/internal/api"
	"github.com/incidentlib/incidentlib/internal/search"
)

// docParam is a query parameter as openapi.json spells it, keys in its
// order.
type docParam struct {
	Name   string `json:"name"`
	In     string `json:"in"`
	Schema struct {
		Type    string   `json:"type"`
		Enum    []string `json:"enum,omitempty"`
		Minimum *int     `json:"minimum,omitempty"`
		Maximum *int     `json:"maximum,omitempty"`
	} `json:"schema"`
	Description string `json:"description,omitempty"`
}

// tableParam is what OpenAPI must say of a search parameter, built from
// the table.
func tableParam(p search.Param) docParam {
	d := docParam{Name: p.Name, In: "query", Description: p.Doc}
	d.Schema.Type = "string"
	switch p.Kind {
	case search.KindInt:
		d.Schema.Type = "integer"
		d.Schema.Minimum = &p.Min
		if p.Max > 0 {
			d.Schema.Maximum = &p.Max
		}
	case search.KindBool:
		d.Schema.Type = "boolean"
	case search.KindEnum:
		d.Schema.Enum = p.Enum
	}
	return d
}

func oneLine(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	s := strings.TrimSpace(b.String())
	// The document's own spacing: "key": value, one parameter a line.
	r := strings.NewReplacer(`":`, `": `, `,"`, `, "`, `,{`, `, {`)
	return r.Replace(s)
}

// TestOpenAPISearchParams: the query parameters OpenAPI documents for GET
// /api/cases are exactly the search table's API parameters, in its order,
// with its types, closed sets, bounds and descriptions. With
// INCIDENTLIB_UPDATE_OPENAPI=1 it rewrites them in openapi.json.
func TestOpenAPISearchParams(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	var op struct {
		Parameters []docParam `json:"parameters"`
	}
	if err := json.Unmarshal(doc.Paths["/api/cases"]["get"], &op); err != nil {
		t.Fatal(err)
	}
	var want, lines []string
	for _, p := range search.Params {
		if p.Faces&search.FaceAPI != 0 {
			p := p
			want = append(want, oneLine(tableParam(p)))
		}
	}
	for _, p := range op.Parameters {
		lines = append(lines, oneLine(p))
	}
	diff := cmp.Diff(want, lines)
	if diff == "" {
		return
	}
	if os.Getenv("INCIDENTLIB_UPDATE_OPENAPI") == "1" {
		rewriteParams(t, lines, want)
		return
	}
	t.Errorf("GET /api/cases parameters (-table +openapi.json); INCIDENTLIB_UPDATE_OPENAPI=1 rewrites them:\n%s", diff)
}

// rewriteParams replaces the block of lines holding the old parameters of
// GET /api/cases (one a line) with the table's.
func rewriteParams(t *testing.T, old, want []string) {
	b, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Split(string(b), "\n")
	start, end := -1, -1
	for i, l := range src {
		if start < 0 && strings.HasPrefix(strings.TrimSpace(l), `{"name": "q", "in": "query"`) {
			start = i
		}
		if start >= 0 && !strings.HasPrefix(strings.TrimSpace(l), `{"name": `) {
			end = i
			break
		}
	}
	if start < 0 || end-start != len(old) {
		t.Fatalf("cannot find the %d parameter lines of GET /api/cases in openapi.json", len(old))
	}
	indent := src[start][:len(src[start])-len(strings.TrimLeft(src[start], " "))]
	var repl []string
	for i, w := range want {
		sep := ","
		if i == len(want)-1 {
			sep = ""
		}
		repl = append(repl, indent+w+sep)
	}
	out := append(append(append([]string{}, src[:start]...), repl...), src[end:]...)
	if err := os.WriteFile("openapi.json", []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("rewrote the parameters of GET /api/cases in openapi.json")
}
