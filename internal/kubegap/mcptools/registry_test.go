package mcptools_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
)

// TestRegistry: every tool of the list has what the documents and checks
// read (title, description, About in both languages, examples whose
// arguments its schema takes), and the server serves exactly the list's
// tools.
func TestRegistry(t *testing.T) {
	for _, p := range mcptools.Tools().Check() {
		t.Error(p)
	}
	listed, err := connect(t).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, tl := range listed.Tools {
		served = append(served, tl.Name)
	}
	slices.Sort(served)
	if want := mcptools.Tools().Names(); !slices.Equal(served, want) {
		t.Errorf("the server serves %v, the registry lists %v", served, want)
	}
}

// TestOutputsMatchSchemas: the server does not validate each answer
// against its tool's output schema, so this test does, over every example
// call of the registry: each answer is no error, its structured content is
// valid against the output schema tools/list gives, holds the example's
// Want, and its text is the same JSON.
func TestOutputsMatchSchemas(t *testing.T) {
	cs := connect(t)
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tl := range listed.Tools {
		b, err := json.Marshal(tl.OutputSchema)
		if err != nil || tl.OutputSchema == nil {
			t.Fatalf("%s: no output schema (%v)", tl.Name, err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(tl.Name, err)
		}
		if schemas[tl.Name], err = s.Resolve(nil); err != nil {
			t.Fatal(tl.Name, err)
		}
	}
	checked := 0
	for _, tl := range mcptools.Tools() {
		for _, ex := range tl.Examples {
			res, out := call(t, cs, tl.Def.Name, ex.Args)
			if res.IsError || out == nil {
				t.Errorf("%s %v: an error or no structured answer: %s", tl.Def.Name, ex.Args, textOf(res))
				continue
			}
			if err := schemas[tl.Def.Name].Validate(out); err != nil {
				t.Errorf("%s %v: the answer does not match its output schema: %v", tl.Def.Name, ex.Args, err)
			}
			b, _ := json.Marshal(out)
			if !strings.Contains(string(b), ex.Want) {
				t.Errorf("%s %v: the answer lacks %q, which the example wants", tl.Def.Name, ex.Args, ex.Want)
			}
			var fromText map[string]any
			if err := json.Unmarshal([]byte(textOf(res)), &fromText); err != nil || !reflect.DeepEqual(fromText, out) {
				t.Errorf("%s %v: the text is not the structured answer's JSON (%v)", tl.Def.Name, ex.Args, err)
			}
			checked++
		}
	}
	if checked < len(mcptools.Tools()) {
		t.Fatalf("only %d answers checked", checked)
	}
}

// TestNamesAreTheTools: the names the help text lists are the tools'.
func TestNamesAreTheTools(t *testing.T) {
	if got, want := mcptools.Names, mcptools.Tools().Names(); !slices.Equal(got, want) {
		t.Errorf("Names %v, the tools %v", got, want)
	}
}
