package server_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestFields: fields= trims a case and each search result to the keys
// asked for, refuses an unknown one with the accepted list, and each
// fields value has its own ETag.
func TestFields(t *testing.T) {
	ts := readOnlyServer(t)

	c := ts.get(t, "/api/cases/IL-0049?fields=title,id&lang=en")
	if c.status != 200 {
		t.Fatalf("GET case with fields: %d %s", c.status, c.body)
	}
	m := c.json(t)
	if diff := cmp.Diff([]string{"id", "title"}, keys(m)); diff != "" {
		t.Errorf("case keys (-want +got):\n%s", diff)
	}
	if title, _ := m["title"].(map[string]any); len(title) != 1 || title["en"] == nil {
		t.Errorf("fields and lang together: title %v", m["title"])
	}

	s := ts.get(t, "/api/cases?q=conntrack&limit=5&fields=id,url,match&facets=true")
	if s.status != 200 {
		t.Fatalf("search with fields: %d %s", s.status, s.body)
	}
	sm := s.json(t)
	items, _ := sm["items"].([]any)
	if len(items) == 0 || sm["total"] == nil || sm["facets"] == nil {
		t.Fatalf("search with fields lost the answer around the items: %.300s", s.body)
	}
	for _, it := range items {
		if diff := cmp.Diff([]string{"id", "match", "url"}, keys(it.(map[string]any))); diff != "" {
			t.Errorf("item keys (-want +got):\n%s", diff)
		}
	}

	for _, tc := range []struct{ path, accepted string }{
		{"/api/cases/IL-0049?fields=id,colour", "org_slug"},
		{"/api/cases?q=dns&fields=summary", "snippet"},
		{"/api/cases/IL-0049?fields=", "title"},
	} {
		r := ts.get(t, tc.path)
		var e struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal(r.body, &e)
		if r.status != 400 || e.Error.Code != "bad_request" || !strings.Contains(e.Error.Message, tc.accepted) {
			t.Errorf("GET %s: %d %s; want a 400 listing the accepted fields (%s among them)", tc.path, r.status, r.body, tc.accepted)
		}
	}

	a := ts.get(t, "/api/cases/IL-0049?fields=id")
	b := ts.get(t, "/api/cases/IL-0049?fields=id,title")
	full := ts.get(t, "/api/cases/IL-0049")
	ea, eb, ef := a.header.Get("ETag"), b.header.Get("ETag"), full.header.Get("ETag")
	if ea == "" || ea == eb || ea == ef || eb == ef {
		t.Errorf("ETags per fields value: id %q, id,title %q, all %q", ea, eb, ef)
	}
	if r := ts.get(t, "/api/cases/IL-0049?fields=id,title", "If-None-Match", ea); r.status != 200 {
		t.Errorf("the ETag of fields=id revalidated fields=id,title: %d", r.status)
	}
	if r := ts.get(t, "/api/cases/IL-0049?fields=id", "If-None-Match", ea); r.status != 304 {
		t.Errorf("its own ETag: %d, want 304", r.status)
	}
}
