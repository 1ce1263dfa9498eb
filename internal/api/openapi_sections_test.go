package api

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
)

// TestOpenAPISectionsFromTable: the file as it is needs nothing added, and
// a text section the file does not describe is added to the Case schema
// from its row (a required field also to "required").
func TestOpenAPISectionsFromTable(t *testing.T) {
	// A file that describes every text section is served as it is, byte
	// for byte (its order and layout kept).
	var file map[string]any
	if err := json.Unmarshal(openapiFile, &file); err != nil {
		t.Fatal(err)
	}
	fileProps := file["components"].(map[string]any)["schemas"].(map[string]any)["Case"].(map[string]any)["properties"].(map[string]any)
	complete := true
	for _, s := range incidentlib.Sections {
		if _, ok := fileProps[s.Key]; !ok && (s.Kind == incidentlib.Prose || s.Kind == incidentlib.Items) {
			complete = false
		}
	}
	if complete && !bytes.Equal(withSections(openapiFile), openapiFile) {
		t.Errorf("openapi.json describes every section, so it should be served as it is")
	}
	for _, key := range []string{"lessons", "remediation"} {
		var doc map[string]any
		if err := json.Unmarshal(openapiFile, &doc); err != nil {
			t.Fatal(err)
		}
		cs := doc["components"].(map[string]any)["schemas"].(map[string]any)["Case"].(map[string]any)
		delete(cs["properties"].(map[string]any), key)
		var req []any
		for _, r := range cs["required"].([]any) {
			if r != key {
				req = append(req, r)
			}
		}
		cs["required"] = req
		stripped, _ := json.Marshal(doc)
		var got map[string]any
		if err := json.Unmarshal(withSections(stripped), &got); err != nil {
			t.Fatal(err)
		}
		gcs := got["components"].(map[string]any)["schemas"].(map[string]any)["Case"].(map[string]any)
		p, _ := json.Marshal(gcs["properties"].(map[string]any)[key])
		want := map[string]string{"lessons": "Text", "remediation": "Item"}[key]
		if !strings.Contains(string(p), "#/components/schemas/"+want) {
			t.Errorf("%s: added as %s, want a reference to %s", key, p, want)
		}
		var greq []string
		for _, r := range gcs["required"].([]any) {
			greq = append(greq, r.(string))
		}
		if inReq := slices.Contains(greq, key); inReq != (key == "lessons") {
			t.Errorf("%s: required = %v, want %v (the Case field's il tag)", key, inReq, key == "lessons")
		}
		if got["paths"] == nil || len(got["paths"].(map[string]any)) < 5 {
			t.Errorf("the rest of the document was lost")
		}
	}
}
