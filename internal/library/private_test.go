package library

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/incidentlib/incidentlib/internal/search"
)

// TestPublicReaderAfterPrivateWrites: a private case written through the
// Library (stored in a real SQLite file and indexed) reaches Library.All
// but nothing of it reaches Library.Public: not the case, not a hit, a
// total, a facet, a count, an organisation or a term count. Public answers
// as it did before the write.
func TestPublicReaderAfterPrivateWrites(t *testing.T) {
	l := openLibrary(t, nil)
	pub := l.Public()
	if pub.Private() || !l.All().Private() {
		t.Fatal("Public must not show private cases and All must")
	}
	snapshot := func() string {
		res, err := pub.Search(search.Query{Text: "coredns timeout", Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		var scores []float64
		for _, h := range res.Hits {
			ids = append(ids, h.Case.ID)
			scores = append(scores, h.Score)
		}
		b, _ := json.Marshal(map[string]any{"ids": ids, "scores": scores, "total": res.Total, "facets": res.Facets,
			"len": pub.Len(), "orgs": pub.Orgs(), "terms": pub.TermCounts(), "cases": len(pub.Cases())})
		return string(b)
	}
	before := snapshot()

	p := *pub.Case("IL-0049")
	p.ID, p.Private = "IL-20000", true
	p.Related, p.RecurrenceOf = nil, nil
	p.Org, p.OrgSlug = "Hush Corp", "hush-corp"
	p.Title.EN += " coredns timeout zebracorn"
	if _, err := l.Put(context.Background(), &p); err != nil {
		t.Fatal(err)
	}
	if l.All().Case("IL-20000") == nil {
		t.Fatal("All does not show the private case written")
	}
	if pub.Case("IL-20000") != nil {
		t.Error("Public shows the private case")
	}
	if res, _ := pub.Search(search.Query{Text: "zebracorn"}); res == nil || res.Total != 0 {
		t.Errorf("Public finds the private case's word: %+v", res)
	}
	if after := snapshot(); after != before {
		t.Errorf("Public answers differently after a private write:\nbefore %.300s\nafter  %.300s", before, after)
	}
	if res, _ := l.All().Search(search.Query{Text: "zebracorn"}); res == nil || res.Total != 1 {
		t.Errorf("All does not find the private case's word: the checks above could not fail")
	}
}
