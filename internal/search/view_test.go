package search_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
)

// TestPublicViewShowsNothingPrivate: the public View of an index that holds
// private cases answers every read exactly as an index of the public cases
// alone does: the same hits, scores, totals, facets, notes, confidence,
// similar cases, topics, organisations and count. The private cases are
// copies of public ones (so they would change the term statistics, the
// facet counts and the organisation counts if any of it leaked) plus a word
// of their own and an organisation of their own.
func TestPublicViewShowsNothingPrivate(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	public := c.Cases
	mixed := append([]*incidentlib.Case{}, public...)
	var privateIDs []string
	for i, pc := range public[:60] {
		p := *pc
		p.ID = fmt.Sprintf("IL-%d", 20000+i)
		p.Private = true
		p.Related = nil
		p.RecurrenceOf = nil
		p.Title.EN += " zebracorn"
		if i%2 == 0 {
			p.Org, p.OrgSlug = "Hush Corp", "hush-corp"
		}
		mixed = append(mixed, &p)
		privateIDs = append(privateIDs, p.ID)
	}
	only, err := search.New(c.Vocab, public)
	if err != nil {
		t.Fatal(err)
	}
	both, err := search.New(c.Vocab, mixed)
	if err != nil {
		t.Fatal(err)
	}
	want, got := only.Public(), both.Public()
	if got.Private() || !both.All().Private() {
		t.Fatal("Public() must not show private cases and All() must")
	}

	same := func(what string, a, b any) {
		t.Helper()
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("%s: the public View of an index with private cases differs from the public cases alone:\n got %.400s\nwant %.400s", what, jb, ja)
		}
	}
	queries := []search.Query{
		{Text: "coredns timeout"},
		{Text: "etcd leader election slow disk", Lang: "en"},
		{Text: "인증서 만료", Lang: "ko"},
		{Text: "read udp 10.0.12.7:48213->10.96.0.10:53: i/o timeout"},
		{Text: "zebracorn"},
		{Text: "dns", Filters: map[string][]string{"root_cause": {"config-change"}}},
		{Text: "outage", Sort: search.SortNewest, Offset: 5, Limit: 7},
		{},
		{Filters: map[string][]string{"components": {"coredns"}}},
	}
	for _, q := range queries {
		a, errA := want.Search(q)
		b, errB := got.Search(q)
		same(fmt.Sprintf("Search(%q) error", q.Text), fmt.Sprint(errA), fmt.Sprint(errB))
		same(fmt.Sprintf("Search(%q)", q.Text), project(a), project(b))
	}
	// A private organisation is unknown to a public filter, with the same
	// suggestions as when it does not exist.
	_, errA := want.Search(search.Query{Filters: map[string][]string{"org": {"Hush Corp"}}})
	_, errB := got.Search(search.Query{Filters: map[string][]string{"org": {"Hush Corp"}}})
	same("Search(org=Hush Corp) error", fmt.Sprint(errA), fmt.Sprint(errB))

	for _, id := range privateIDs[:3] {
		if got.Case(id) != nil {
			t.Errorf("Case(%s): the public View returns a private case", id)
		}
		_, errA := want.SimilarTo(id, 5)
		_, errB := got.SimilarTo(id, 5)
		same("SimilarTo(private) error", fmt.Sprint(errA), fmt.Sprint(errB))
		_, errA = want.Related(id, 5)
		_, errB = got.Related(id, 5)
		same("Related(private) error", fmt.Sprint(errA), fmt.Sprint(errB))
	}
	same("Cases", caseIDs(want.Cases()), caseIDs(got.Cases()))
	same("Len", want.Len(), got.Len())
	same("Orgs", want.Orgs(), got.Orgs())
	for _, id := range []string{"IL-0049", public[0].ID, public[30].ID} {
		a, _ := want.SimilarTo(id, 20)
		b, _ := got.SimilarTo(id, 20)
		same("SimilarTo("+id+")", similar(a), similar(b))
		a, _ = want.Related(id, 8)
		b, _ = got.Related(id, 8)
		same("Related("+id+")", similar(a), similar(b))
	}
	same("SimilarText", similar(want.SimilarText("zebracorn coredns i/o timeout", 20)), similar(got.SimilarText("zebracorn coredns i/o timeout", 20)))
	for _, term := range []string{"coredns", "config-change", "etcd"} {
		a, errA := want.Topic(term, "en")
		b, errB := got.Topic(term, "en")
		same("Topic("+term+") error", fmt.Sprint(errA), fmt.Sprint(errB))
		if a != nil && b != nil {
			same("Topic("+term+")", topic(a), topic(b))
		}
	}

	// The test can fail: the View of every case does see them, and differs.
	all := both.All()
	if all.Case(privateIDs[0]) == nil || all.Len() != len(mixed) {
		t.Errorf("All() does not show the private cases")
	}
	if res, err := all.Search(search.Query{Text: "zebracorn"}); err != nil || res.Total != len(privateIDs) {
		t.Errorf("All().Search(zebracorn) = %v, %v; want %d hits", res, err, len(privateIDs))
	}
	a, _ := want.Search(search.Query{Text: "coredns timeout"})
	b, _ := all.Search(search.Query{Text: "coredns timeout"})
	if ja, jb := fmt.Sprint(project(a)), fmt.Sprint(project(b)); ja == jb {
		t.Errorf("a search with the private cases answers like one without: the comparison above could not fail")
	}
}

type projected struct {
	IDs        []string
	Scores     []float64
	Snippets   []string
	Matches    []float64
	Total      int
	Facets     map[string][]search.FacetCount
	Notes      []string
	Terms      int
	Close      int
	Confidence float64
	Weak       bool
}

func project(r *search.Result) *projected {
	if r == nil {
		return nil
	}
	p := &projected{Total: r.Total, Facets: r.Facets, Notes: r.Notes, Terms: r.Terms, Close: r.Close, Confidence: r.Confidence, Weak: r.Weak}
	for _, h := range r.Hits {
		p.IDs = append(p.IDs, h.Case.ID)
		p.Scores = append(p.Scores, h.Score)
		p.Snippets = append(p.Snippets, h.Snippet)
		p.Matches = append(p.Matches, h.Match)
	}
	return p
}

func caseIDs(cs []*incidentlib.Case) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func similar(s []search.Similar) []string {
	var out []string
	for _, x := range s {
		out = append(out, fmt.Sprintf("%s %.6f %s", x.Case.ID, x.Score, x.Reason.Label.EN))
	}
	return out
}

func topic(tp *search.Topic) any {
	return map[string]any{"cases": caseIDs(tp.Cases), "co": tp.CoOccurring, "years": tp.ByYear}
}
