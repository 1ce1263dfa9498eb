package main

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/incidentlib/internal/checkindex"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
)

// TestIndexMatchesRegistry fails when kubegap's registry changed and the
// index the server embeds was not regenerated.
func TestIndexMatchesRegistry(t *testing.T) {
	want, err := render(checks.All())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../checks.json")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("internal/checkindex/checks.json is not what kubegap's registry makes (-registry +file):\n%s\nrun: go generate ./internal/checkindex", d)
	}
}

// TestBuiltInAnswersLikeRegistry asks the embedded index, case by case,
// what kubegap's registry says.
func TestBuiltInAnswersLikeRegistry(t *testing.T) {
	ix, err := checkindex.BuiltIn()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]checkindex.Check{}
	for _, c := range checks.All() {
		for _, id := range c.Cases {
			want[id] = append(want[id], checkindex.Check{ID: c.ID, Severity: c.Severity.String(), Title: c.Title, Cases: c.Cases})
		}
	}
	if len(want) == 0 {
		t.Fatal("kubegap's registry cites no case")
	}
	for id, w := range want {
		if d := cmp.Diff(w, ix.ForCase(id)); d != "" {
			t.Errorf("ForCase(%s) (-registry +index):\n%s", id, d)
		}
	}
	cited := 0
	for _, c := range checks.All() {
		if len(c.Cases) > 0 {
			cited++
		}
	}
	if n := len(ix.All()); n != cited {
		t.Errorf("the index holds %d checks, the registry %d that cite a case", n, cited)
	}
}
