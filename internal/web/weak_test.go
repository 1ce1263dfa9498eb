package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/web"
)

// TestWeakNoteFollowsTheSearch: the page shows the weak-match note exactly
// when the search says its best hit is weak (search.Result.Weak), as the
// API and MCP carry it in their notes, for a long paste and a short query
// alike.
func TestWeakNoteFollowsTheSearch(t *testing.T) {
	t.Parallel()
	ix := sharedIndex(t)
	mux := newMux(t, ix, web.Options{})
	const note = `<span class="weak-note">`
	for _, q := range []string{
		"how do I bake bread for a wedding",
		"Traceback (most recent call last):\n  File \"/app/report.py\", line 27, in build_totals\nKeyError: 'region'",
		"conntrack",
		"E1202 05:40:21.123456    2188 kubelet.go:2185] \"Skipping pod synchronization\" err=\"PLEG is not healthy: pleg was last seen active 3m12s ago\"",
	} {
		res, err := ix.Public().Search(search.Query{Text: q, NoFacets: true})
		if err != nil {
			t.Fatal(err)
		}
		body := get(t, mux, "/cases?q="+url.QueryEscape(q)).body
		if shown := strings.Contains(body, note); shown != res.Weak {
			t.Errorf("%.40q: the page shows the weak-match note: %v; the search says weak: %v", q, shown, res.Weak)
		}
	}
	if res, _ := ix.Public().Search(search.Query{Text: "how do I bake bread for a wedding"}); !res.Weak {
		t.Error("a question the library cannot answer is not weak")
	}
	if res, _ := ix.Public().Search(search.Query{Text: "conntrack"}); res.Weak {
		t.Error("a one-word query with close cases is weak")
	}
}
