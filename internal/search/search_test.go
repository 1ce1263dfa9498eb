package search_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
)

func ids(res *search.Result) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Case.ID)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func mustSearch(t *testing.T, v *search.View, q search.Query) *search.Result {
	t.Helper()
	res, err := v.Search(q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return res
}

func TestAnalysis(t *testing.T) {
	ix := realIndex(t)
	tests := []struct {
		name, q, want string
	}{
		{"korean_particle_stripped", "Terraform 모듈을 디스크가", "IL-0019"},
		{"identifier_whole", "conntrack_allowance_exceeded", "IL-0461"},
		{"identifier_parts", "allowance exceeded", "IL-0461"},
		{"english_stemming", "throttles", "IL-0326"}, // the corpus says throttled and throttling only
		{"korean_glued_to_latin", "kube-proxy가", "IL-0049"},
		{"quoted_phrase", `"PLEG is not healthy"`, "IL-0425"},
		{"case_id", "IL-0153", "IL-0153"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustSearch(t, ix.Public(), search.Query{Text: tt.q, Limit: 10, NoFacets: true})
			if !contains(ids(res), tt.want) {
				t.Errorf("%q: %s not in the top ten %v", tt.q, tt.want, ids(res))
			}
		})
	}
	t.Run("stemming_word_is_not_in_the_corpus", func(t *testing.T) {
		// english_stemming finds its case only through the stem.
		c, err := corpus.LoadEmbedded()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range c.Cases {
			b, err := json.Marshal(k)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(strings.ToLower(string(b)), "throttles") {
				t.Fatalf("%s holds the word throttles; pick another form for english_stemming", k.ID)
			}
		}
	})
	t.Run("phrase_must_match_as_phrase", func(t *testing.T) {
		res := mustSearch(t, ix.Public(), search.Query{Text: `"healthy is not PLEG"`, NoFacets: true})
		if res.Total != 0 {
			t.Errorf("a phrase in the wrong order matched %v", ids(res))
		}
	})
	t.Run("case_id_first", func(t *testing.T) {
		res := mustSearch(t, ix.Public(), search.Query{Text: "IL-0153", NoFacets: true})
		if len(res.Hits) == 0 || res.Hits[0].Case.ID != "IL-0153" {
			t.Errorf("IL-0153 is not first: %v", ids(res))
		}
	})
}

func TestFiltersAndFacets(t *testing.T) {
	ix := realIndex(t)
	all := mustSearch(t, ix.Public(), search.Query{Limit: 100})
	if all.Total != ix.All().Len() {
		t.Fatalf("an empty query returns %d of %d cases", all.Total, ix.All().Len())
	}
	// Every facet count over the whole corpus equals the number of cases
	// that carry the term.
	for _, f := range search.FilterFields {
		for _, fc := range all.Facets[f] {
			res := mustSearch(t, ix.Public(), search.Query{Filters: map[string][]string{f: {fc.Term}}, NoFacets: true})
			if res.Total != fc.Count {
				t.Errorf("facet %s=%s counts %d, the filter finds %d", f, fc.Term, fc.Count, res.Total)
			}
		}
	}
	// Filters combine: every hit carries every filter term.
	q := search.Query{Text: "DNS", Filters: map[string][]string{"components": {"coredns"}, "domain": {"kubernetes"}}, YearFrom: 2019, YearTo: 2025, Limit: 100}
	res := mustSearch(t, ix.Public(), q)
	if res.Total == 0 {
		t.Fatal("no CoreDNS cases on Kubernetes in 2019-2025")
	}
	for _, h := range res.Hits {
		c := h.Case
		if !contains(c.Components, "coredns") || !contains(c.Domain, "kubernetes") || c.Year() < 2019 || c.Year() > 2025 {
			t.Errorf("%s breaks the filters", c.ID)
		}
	}
	var sum int
	for _, fc := range res.Facets["components"] {
		if fc.Term == "coredns" {
			sum = fc.Count
		}
	}
	if sum != res.Total {
		t.Errorf("the coredns facet counts %d of %d filtered results", sum, res.Total)
	}
	orgs := mustSearch(t, ix.Public(), search.Query{Filters: map[string][]string{"org": {"palark"}}})
	for _, h := range orgs.Hits {
		if h.Case.OrgSlug != "palark" {
			t.Errorf("org filter let %s through", h.Case.ID)
		}
	}
	if orgs.Total == 0 || orgs.Total != len(orgs.Hits) {
		t.Errorf("org=palark finds %d cases, %d of them on the page; want some, all on the page", orgs.Total, len(orgs.Hits))
	}
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range c.Cases {
		if k.OrgSlug == "palark" && !contains(ids(orgs), k.ID) {
			t.Errorf("org=palark leaves out %s", k.ID)
		}
	}
	// The reviewed filter, over the corpus and one reviewed case more (the
	// corpus may have none).
	at, by := "2026-11-30T00:00:00Z", "Kim Editor"
	extra := *c.Cases[0]
	extra.ID, extra.Related, extra.Review.ReviewedAt, extra.Review.ReviewedBy = "IL-9980", nil, &at, &by
	withReview, err := search.New(c.Vocab, append(append([]*incidentlib.Case{}, c.Cases...), &extra))
	if err != nil {
		t.Fatal(err)
	}
	want := map[bool]int{true: 1}
	for _, k := range c.Cases {
		want[k.Reviewed()]++
	}
	for _, rev := range []bool{false, true} {
		res := mustSearch(t, withReview.Public(), search.Query{Reviewed: &rev, NoFacets: true, Limit: search.MaxLimit})
		if res.Total != want[rev] {
			t.Errorf("reviewed=%v finds %d, want the %d such cases", rev, res.Total, want[rev])
		}
		for _, h := range res.Hits {
			if h.Case.Reviewed() != rev {
				t.Errorf("reviewed=%v lets %s through", rev, h.Case.ID)
			}
		}
	}
}

// TestFilterValuesAreAnyOf: values of one field are ORed, fields ANDed; a
// case has one severity and one root cause, so two values must not give 0.
func TestFilterValuesAreAnyOf(t *testing.T) {
	ix := realIndex(t)
	count := func(f map[string][]string, all map[string][]string) int {
		return mustSearch(t, ix.Public(), search.Query{Filters: f, AllOf: all, NoFacets: true}).Total
	}
	for _, pair := range [][3]string{
		{"severity", "critical", "major"}, {"root_cause", "config-change", "upgrade"},
		{"components", "coredns", "etcd"}, {"org", "palark", "datadog"},
	} {
		a := count(map[string][]string{pair[0]: {pair[1]}}, nil)
		b := count(map[string][]string{pair[0]: {pair[2]}}, nil)
		either := count(map[string][]string{pair[0]: {pair[1], pair[2]}}, nil)
		if a == 0 || b == 0 {
			t.Fatalf("%s: %s finds %d, %s finds %d; pick terms the corpus uses", pair[0], pair[1], a, pair[2], b)
		}
		if either < max(a, b) || either > a+b {
			t.Errorf("%s=%s,%s finds %d; want between %d and %d (any of)", pair[0], pair[1], pair[2], either, max(a, b), a+b)
		}
		if pair[0] == "severity" || pair[0] == "root_cause" || pair[0] == "org" {
			if either != a+b {
				t.Errorf("%s is single-valued: %s,%s finds %d, want %d+%d", pair[0], pair[1], pair[2], either, a, b)
			}
		}
	}
	// Fields still AND, and components_all asks for all of them.
	anyOf := count(map[string][]string{"components": {"coredns", "conntrack"}}, nil)
	allOf := count(nil, map[string][]string{"components": {"coredns", "conntrack"}})
	if allOf == 0 || allOf >= anyOf {
		t.Errorf("components all-of finds %d, any-of %d; want 0 < all-of < any-of", allOf, anyOf)
	}
	res := mustSearch(t, ix.Public(), search.Query{AllOf: map[string][]string{"components": {"coredns", "conntrack"}}, Limit: 100})
	for _, h := range res.Hits {
		if !contains(h.Case.Components, "coredns") || !contains(h.Case.Components, "conntrack") {
			t.Errorf("%s lacks a component of the all-of filter", h.Case.ID)
		}
	}
	if _, err := ix.Public().Search(search.Query{AllOf: map[string][]string{"severity": {"major"}}}); err == nil {
		t.Errorf("an all-of filter on severity is accepted")
	}
}

// TestMatchMeasure: every hit says what share of the query's terms it
// holds (by weight); a long pasted line shares a common word with most of
// the library, and its results are only the cases holding at least a
// quarter of what the best one holds, which its total and facets count.
func TestMatchMeasure(t *testing.T) {
	ix := realIndex(t)
	const pasted = `E0228 20:13:53.795782 1 proxier.go:610] Failed to delete kube-system/kube-dns:dns endpoint connections, error: error deleting conntrack entries for UDP peer {100.64.0.10, 100.110.33.231}`
	res := mustSearch(t, ix.Public(), search.Query{Text: pasted, Limit: 100})
	if !res.Long || res.Terms < search.LongQueryTerms {
		t.Fatalf("a pasted log line is not read as long: %d terms", res.Terms)
	}
	if res.Close == 0 || res.Close > res.Total {
		t.Fatalf("close %d of %d: want some, at most all", res.Close, res.Total)
	}
	// Its common words alone are held by far more cases than are results.
	for _, word := range []string{"error", "failed", "delete"} {
		if common := mustSearch(t, ix.Public(), search.Query{Text: word, NoFacets: true}); common.Total <= 2*res.Total {
			t.Errorf("%q alone has %d results, the pasted line that holds it %d: the results are not cut to the near ones", word, common.Total, res.Total)
		}
	}
	close, best := 0, 0.0
	for _, h := range res.Hits {
		best = max(best, h.Match)
	}
	for _, h := range res.Hits {
		if h.Match < 0 || h.Match > 1 {
			t.Errorf("%s: match %v out of [0, 1]", h.Case.ID, h.Match)
		}
		if 4*h.Match < best*(1-1e-6) {
			t.Errorf("%s: match %v, under a quarter of the best's %v", h.Case.ID, h.Match, best)
		}
		if h.Match >= 0.5 {
			close++
		}
	}
	if res.Total <= 100 && close != res.Close {
		t.Errorf("%d hits hold half the terms, the result says %d", close, res.Close)
	}
	if !contains(ids(res)[:min(3, len(res.Hits))], "IL-0049") {
		t.Errorf("IL-0049, whose log line this is, is not in the top three: %v", ids(res))
	}
	sum := 0
	for _, fc := range res.Facets["root_cause"] {
		sum += fc.Count
	}
	if sum != res.Total {
		t.Errorf("the root-cause facet counts %d cases; the results are %d", sum, res.Total)
	}
	// A query nothing matches closely says so.
	weak := mustSearch(t, ix.Public(), search.Query{Text: "banana toaster kubernetes orchestra"})
	said := false
	for _, n := range weak.Notes {
		said = said || strings.HasPrefix(n, "no case closely matches")
	}
	if weak.Total == 0 || weak.Close != 0 || !said {
		t.Errorf("a weak query: total %d, close %d, notes %q", weak.Total, weak.Close, weak.Notes)
	}
	for _, n := range mustSearch(t, ix.Public(), search.Query{Text: "conntrack kube-proxy"}).Notes {
		if strings.HasPrefix(n, "no case closely matches") {
			t.Errorf("a query with close matches says: %s", n)
		}
	}
	// A short query: all results are described, and a full match is 1.
	short := mustSearch(t, ix.Public(), search.Query{Text: "conntrack"})
	if short.Long || short.Hits[0].Match != 1 {
		t.Errorf("one word: long=%v, first match %v", short.Long, short.Hits[0].Match)
	}
}

// TestOrgByNameOrSlug: org takes a slug or a name in any case; an unknown
// one is a clear error with suggestions, and private cases' organisations
// are not among them.
func TestOrgByNameOrSlug(t *testing.T) {
	ix := freshIndex(t)
	want := mustSearch(t, ix.Public(), search.Query{Filters: map[string][]string{"org": {"datadog"}}, NoFacets: true}).Total
	if want == 0 {
		t.Fatal("no Datadog case")
	}
	for _, o := range []string{"Datadog", "DATADOG", " datadog ", "Amazon Web Services", "amazon-web-services"} {
		res, err := ix.Public().Search(search.Query{Filters: map[string][]string{"org": {o}}, NoFacets: true})
		if err != nil {
			t.Errorf("org %q: %v", o, err)
			continue
		}
		if o != "Amazon Web Services" && o != "amazon-web-services" && res.Total != want {
			t.Errorf("org %q finds %d, want %d", o, res.Total, want)
		}
		if res.Total == 0 {
			t.Errorf("org %q finds nothing", o)
		}
	}
	_, err := ix.Public().Search(search.Query{Filters: map[string][]string{"org": {"Datadgo"}}})
	if !errors.Is(err, incidentlib.ErrInvalid) || !strings.Contains(err.Error(), "datadog") {
		t.Errorf("a misspelt org: %v, want an error suggesting datadog", err)
	}
	// A private case's organisation is unknown to a public search.
	c := *ix.All().Case("IL-0049")
	c.ID, c.Org, c.OrgSlug, c.Private = "IL-9911", "Hush Corp", "hush-corp", true
	if err := ix.Upsert(&c); err != nil {
		t.Fatal(err)
	}
	defer ix.Delete("IL-9911")
	if _, err := ix.Public().Search(search.Query{Filters: map[string][]string{"org": {"Hush Corp"}}}); !errors.Is(err, incidentlib.ErrInvalid) || strings.Contains(err.Error(), "hush-corp") {
		t.Errorf("a private case's org answers a public search: %v", err)
	}
	if res, err := ix.All().Search(search.Query{Filters: map[string][]string{"org": {"Hush Corp"}}}); err != nil || res.Total != 1 {
		t.Errorf("the token holder's search for a private org: %v", err)
	}
}

// TestAliases: the words people paste (Kubernetes states, error strings,
// abbreviations) find the cases of the term they name, and the answer says
// how the query was read.
func TestAliases(t *testing.T) {
	ix := realIndex(t)
	carry := func(vocab, term string) int {
		return mustSearch(t, ix.Public(), search.Query{Filters: map[string][]string{vocab: {term}}, NoFacets: true}).Total
	}
	for _, tt := range []struct{ q, vocab, term string }{
		{"OOMKilled", "symptoms", "oom-kills"},
		{"pods stuck in CrashLoopBackOff", "symptoms", "pods-crashlooping"},
		{"HPA scaled to zero", "components", "workload-autoscaler"},
		{`Back-off pulling image "nginx:latest"`, "symptoms", "image-pull-failures"},
		{"x509: certificate has expired or is not yet valid", "symptoms", "certificate-errors"},
		{"etcdserver: mvcc: database space exceeded", "components", "etcd"},
	} {
		n := carry(tt.vocab, tt.term)
		if n == 0 {
			t.Fatalf("no case carries %s/%s", tt.vocab, tt.term)
		}
		res := mustSearch(t, ix.Public(), search.Query{Text: tt.q, Limit: 100})
		found := 0
		for _, h := range res.Hits {
			if contains(incidentlib.CaseTerms(h.Case, tt.vocab), tt.term) {
				found++
			}
		}
		if found < n && found < 100 {
			t.Errorf("%q finds %d of the %d cases of %s/%s", tt.q, found, n, tt.vocab, tt.term)
		}
		if top := res.Hits[0].Case; !contains(incidentlib.CaseTerms(top, tt.vocab), tt.term) {
			t.Errorf("%q: the first result %s does not carry %s", tt.q, top.ID, tt.term)
		}
		read := false
		for _, note := range res.Notes {
			read = read || strings.Contains(note, "the "+tt.vocab+" term "+tt.term)
		}
		if !read {
			t.Errorf("%q: no note says it was read as %s/%s: %q", tt.q, tt.vocab, tt.term, res.Notes)
		}
	}
	// An alias counts only as a whole word: HPAs is not HPA, and an alias
	// inside another word (kube-dnsmasq) does not fire.
	for _, q := range []string{"HPAS", "kube-dnsmasq"} {
		for _, note := range mustSearch(t, ix.Public(), search.Query{Text: q}).Notes {
			if strings.Contains(note, "was read as") {
				t.Errorf("%q: %s", q, note)
			}
		}
	}
	// Quotes alone still ask for the exact phrase.
	if res := mustSearch(t, ix.Public(), search.Query{Text: `"healthy is not PLEG"`}); res.Total != 0 {
		t.Errorf("a quoted phrase in the wrong order matched %d", res.Total)
	}
}

func TestPagingAndSort(t *testing.T) {
	ix := realIndex(t)
	p1 := mustSearch(t, ix.Public(), search.Query{Sort: search.SortNewest, Limit: 5})
	p2 := mustSearch(t, ix.Public(), search.Query{Sort: search.SortNewest, Limit: 5, Offset: 5})
	if p1.Total != p2.Total || len(p1.Hits) != 5 || len(p2.Hits) != 5 {
		t.Fatalf("pages: %d/%d hits, totals %d/%d", len(p1.Hits), len(p2.Hits), p1.Total, p2.Total)
	}
	prev := "9999"
	for _, h := range append(p1.Hits, p2.Hits...) {
		if h.Case.Date > prev {
			t.Errorf("not newest first: %s after %s", h.Case.Date, prev)
		}
		prev = h.Case.Date
	}
	for _, id := range ids(p1) {
		if contains(ids(p2), id) {
			t.Errorf("%s on both pages", id)
		}
	}
	past := mustSearch(t, ix.Public(), search.Query{Offset: 5000})
	if len(past.Hits) != 0 || past.Total != ix.All().Len() || len(past.Notes) == 0 {
		t.Errorf("offset past the end: %d hits, total %d, notes %v", len(past.Hits), past.Total, past.Notes)
	}
}

func TestBadInput(t *testing.T) {
	ix := realIndex(t)
	long := strings.Repeat("conntrack DNS 오류 ", 700)
	for _, q := range []string{"", "   ", long, "!!!???...", `"unbalanced`, `a "b`, "\x00\x01\x1b[31m", "\xff\xfe bad utf8", "((()))", "*", "???\"\"\"", "AND OR NOT", "-", "+kube -proxy", "title:foo", "field:", "\"\""} {
		res, err := ix.Public().Search(search.Query{Text: q})
		if err != nil {
			t.Errorf("query %.20q: %v", q, err)
			continue
		}
		if res.Limit != search.DefaultLimit {
			t.Errorf("query %.20q: limit %d", q, res.Limit)
		}
	}
	res := mustSearch(t, ix.Public(), search.Query{Text: long})
	if len(res.Notes) == 0 {
		t.Errorf("a 10 KB query gives no note that it was cut")
	}
	for _, tc := range []struct {
		limit, want int
		note        bool
	}{{0, search.DefaultLimit, false}, {-3, search.DefaultLimit, true}, {10000, search.MaxLimit, true}, {7, 7, false}} {
		res := mustSearch(t, ix.Public(), search.Query{Limit: tc.limit})
		if res.Limit != tc.want || (len(res.Notes) > 0) != tc.note {
			t.Errorf("limit %d: used %d, notes %v", tc.limit, res.Limit, res.Notes)
		}
	}
	_, err := ix.Public().Search(search.Query{Filters: map[string][]string{"components": {"flux-capacitor"}}})
	if !errors.Is(err, incidentlib.ErrInvalid) || !strings.Contains(err.Error(), "coredns") {
		t.Errorf("unknown term: %v (want ErrInvalid listing the valid terms)", err)
	}
	_, err = ix.Public().Search(search.Query{Filters: map[string][]string{"colour": {"blue"}}})
	if !errors.Is(err, incidentlib.ErrInvalid) || !strings.Contains(err.Error(), "components") {
		t.Errorf("unknown filter: %v", err)
	}
	if _, err = ix.Public().Search(search.Query{Sort: "sideways"}); !errors.Is(err, incidentlib.ErrInvalid) {
		t.Errorf("bad sort: %v", err)
	}
	if _, err = ix.Public().Search(search.Query{YearFrom: 2024, YearTo: 2020}); !errors.Is(err, incidentlib.ErrInvalid) {
		t.Errorf("year range backwards: %v", err)
	}
}

func TestSnippets(t *testing.T) {
	ix := realIndex(t)
	for _, tc := range []struct{ lang, q, mark string }{
		{"ko", "conntrack 항목", "<mark>conntrack</mark>"},
		{"en", "conntrack entries", "<mark>conntrack</mark>"},
		{"en", "kube-proxy", "<mark>kube-proxy</mark>"},
	} {
		res := mustSearch(t, ix.Public(), search.Query{Text: tc.q, Lang: tc.lang, Limit: 3})
		if len(res.Hits) == 0 {
			t.Fatalf("%q: no hits", tc.q)
		}
		s := res.Hits[0].Snippet
		if !strings.Contains(s, tc.mark) {
			t.Errorf("%s %q: snippet lacks %s: %s", tc.lang, tc.q, tc.mark, s)
		}
		hangul := strings.ContainsFunc(s, func(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 })
		if hangul != (tc.lang == "ko") {
			t.Errorf("%s snippet in the wrong language: %s", tc.lang, s)
		}
	}
	res := mustSearch(t, ix.Public(), search.Query{Text: "<script>alert(1)</script> dns", Limit: 3})
	for _, h := range res.Hits {
		if strings.Contains(h.Snippet, "<script") {
			t.Errorf("snippet holds raw HTML: %s", h.Snippet)
		}
	}
}

func TestSimilarAndRelated(t *testing.T) {
	ix := realIndex(t)
	sims, err := ix.Public().SimilarTo("IL-0049", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(sims) == 0 {
		t.Fatal("no similar cases for IL-0049")
	}
	for _, s := range sims {
		if s.Case.ID == "IL-0049" {
			t.Error("a case is similar to itself")
		}
		if s.Reason.Label.KO == "" || s.Reason.Label.EN == "" {
			t.Errorf("%s has no reason", s.Case.ID)
		}
		if s.Reason.SameRootCause != (s.Case.RootCause == "dns-network") {
			t.Errorf("%s: same_root_cause is wrong", s.Case.ID)
		}
		for f, terms := range s.Reason.Shared {
			for _, term := range terms {
				if !contains(incidentlib.CaseTerms(s.Case, f), term) || !contains(incidentlib.CaseTerms(ix.All().Case("IL-0049"), f), term) {
					t.Errorf("%s: %s %s is not shared", s.Case.ID, f, term)
				}
			}
		}
	}
	// The seed's reason wording, "같은 원인 · 공통 conntrack 테이블": the
	// same root cause first, then the shared components by their labels.
	sameCause, conntrack := false, false
	for _, s := range sims {
		sameCause = sameCause || (s.Reason.SameRootCause && strings.HasPrefix(s.Reason.Label.KO, "같은 원인 · 공통 ") && strings.HasPrefix(s.Reason.Label.EN, "Same root cause · Shared "))
		conntrack = conntrack || strings.Contains(s.Reason.Label.KO, "공통 conntrack 테이블")
	}
	if !sameCause || !conntrack {
		t.Errorf("no similar case of IL-0049 says 같은 원인 · 공통 …, or none shares the conntrack table: %+v", sims)
	}
	rel, err := ix.Public().Related("IL-0191", 6)
	if err != nil {
		t.Fatal(err)
	}
	curated := ix.All().Case("IL-0191").Related
	for i, id := range curated {
		if i >= len(rel) || rel[i].Case.ID != id || !rel[i].Reason.Curated {
			t.Errorf("curated related %s not in place %d", id, i)
		}
	}
	if len(rel) != 6 {
		t.Errorf("related gives %d cases, want 6", len(rel))
	}
	free := ix.Public().SimilarText("E0228 kube-proxy Failed to delete kube-dns endpoint connections: error deleting conntrack entries for UDP peer", 5)
	if len(free) == 0 || free[0].Case.ID != "IL-0049" {
		t.Errorf("pasted log line: first similar case is not IL-0049: %v", free)
	}
	if _, err := ix.Public().SimilarTo("IL-9999", 5); !errors.Is(err, incidentlib.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

func TestTopic(t *testing.T) {
	ix := realIndex(t)
	tp, err := ix.Public().Topic("cilium", "ko")
	if err != nil {
		t.Fatal(err)
	}
	if tp.Vocab != "components" || len(tp.Cases) == 0 {
		t.Fatalf("topic cilium: %s, %d cases", tp.Vocab, len(tp.Cases))
	}
	n := 0
	for _, y := range tp.ByYear {
		n += y.Count
	}
	if n != len(tp.Cases) {
		t.Errorf("years count %d of %d cases", n, len(tp.Cases))
	}
	for _, c := range tp.Cases {
		if !contains(c.Components, "cilium") {
			t.Errorf("%s is not about cilium", c.ID)
		}
	}
	for _, fc := range tp.CoOccurring["components"] {
		if fc.Term == "cilium" {
			t.Error("a topic co-occurs with itself")
		}
	}
	if v, _ := ix.FindTerm("severity:unknown"); v != "severity" {
		t.Errorf("severity:unknown resolves to %q", v)
	}
	if _, err := ix.Public().Topic("nope", "ko"); !errors.Is(err, incidentlib.ErrNotFound) {
		t.Errorf("unknown topic: %v", err)
	}
	// A topic is found as search finds its term: by alias, by label, in
	// any letter case.
	for ref, want := range map[string]string{"kube-dns": "coredns", "Kube-DNS": "coredns", "CoreDNS": "coredns", "OOMKilled": "oom-kills", "oom killed": "oom-kills", "SERVFAIL": "dns-resolution-failures"} {
		v, term := ix.FindTerm(ref)
		if term == nil || term.ID != want {
			t.Errorf("FindTerm(%q) = %s:%v, want %s", ref, v, term, want)
		}
	}
	if tp, err := ix.Public().Topic("kube-dns", "en"); err != nil || tp.Term.ID != "coredns" || len(tp.Cases) == 0 {
		t.Errorf("topic kube-dns: %v", err)
	}
	// An unknown one is refused with the terms it was probably meant as.
	for ref, want := range map[string]string{"corednss": "components:coredns", "cilum": "components:cilium", "conntrak": "conntrack"} {
		_, err := ix.Public().Topic(ref, "en")
		if !errors.Is(err, incidentlib.ErrNotFound) || !strings.Contains(err.Error(), "did you mean") || !strings.Contains(err.Error(), want) {
			t.Errorf("topic %q: %v, want a suggestion of %s", ref, err, want)
		}
	}
	if sug := ix.SuggestTerms("zzzzqqqq", 5); len(sug) != 0 {
		t.Errorf("suggestions for nonsense: %v", sug)
	}
}

func TestPrivateCasesStayHidden(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	secret := *c.Case("IL-0049")
	secret.ID = "IL-9999"
	secret.Private = true
	secret.Title.EN = "zebracorn private outage"
	secret.Related = nil
	ix, err := search.New(c.Vocab, append(append([]*incidentlib.Case{}, c.Cases...), &secret))
	if err != nil {
		t.Fatal(err)
	}
	if res := mustSearch(t, ix.Public(), search.Query{Text: "zebracorn"}); res.Total != 0 {
		t.Errorf("a private case is found publicly")
	}
	if res := mustSearch(t, ix.All(), search.Query{Text: "zebracorn"}); res.Total != 1 {
		t.Errorf("the token holder cannot find the private case")
	}
	sims, _ := ix.Public().SimilarTo("IL-0049", 50)
	for _, s := range sims {
		if s.Case.Private {
			t.Error("a private case appears among similar cases")
		}
	}
	tp, _ := ix.Public().Topic("conntrack", "ko")
	for _, x := range tp.Cases {
		if x.Private {
			t.Error("a private case appears in a topic")
		}
	}
	if _, err := ix.Public().SimilarTo("IL-9999", 5); err == nil {
		t.Error("similar to a private case answers publicly")
	}
}

func TestUpsertDelete(t *testing.T) {
	ix := freshIndex(t)
	c := *ix.All().Case("IL-0049")
	c.Title.EN = "quokkaflux " + c.Title.EN
	if err := ix.Upsert(&c); err != nil {
		t.Fatal(err)
	}
	if res := mustSearch(t, ix.Public(), search.Query{Text: "quokkaflux"}); res.Total != 1 {
		t.Fatalf("an updated case is not found by its new words")
	}
	if err := ix.Delete("IL-0049"); err != nil {
		t.Fatal(err)
	}
	if res := mustSearch(t, ix.Public(), search.Query{Text: "quokkaflux"}); res.Total != 0 {
		t.Fatalf("a deleted case is still found")
	}
	if ix.All().Case("IL-0049") != nil {
		t.Fatal("a deleted case is still held")
	}
}

// TestFacetsFollowChanges: the facet counts (and the snippet words) follow
// an update and a deletion: a new organisation and a new root cause show,
// with their labels, and go again when the case goes.
func TestFacetsFollowChanges(t *testing.T) {
	ix := freshIndex(t)
	c := *ix.All().Case("IL-0049")
	c.Org, c.OrgSlug = "Quokka Systems", "quokka-systems"
	c.RootCause = "upgrade"
	c.Summary.EN = "quokkaflux broke the nodes. " + c.Summary.EN
	if err := ix.Upsert(&c); err != nil {
		t.Fatal(err)
	}
	count := func(res *search.Result, field, term string) (int, string) {
		for _, fc := range res.Facets[field] {
			if fc.Term == term {
				return fc.Count, fc.Label
			}
		}
		return 0, ""
	}
	res := mustSearch(t, ix.Public(), search.Query{Text: "quokkaflux", Lang: "en"})
	if n, label := count(res, "org", "quokka-systems"); n != 1 || label != "Quokka Systems" {
		t.Errorf("org facet after update: %d %q, want 1 \"Quokka Systems\"", n, label)
	}
	if n, _ := count(res, "root_cause", "upgrade"); n != 1 {
		t.Errorf("root_cause facet after update: %d, want 1", n)
	}
	if len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Snippet, "<mark>quokkaflux</mark>") {
		t.Errorf("the snippet does not mark the updated summary's word: %+v", res.Hits)
	}
	if err := ix.Delete("IL-0049"); err != nil {
		t.Fatal(err)
	}
	res = mustSearch(t, ix.Public(), search.Query{})
	if n, _ := count(res, "org", "quokka-systems"); n != 0 {
		t.Errorf("org facet after delete: %d, want 0", n)
	}
}

// TestStatisticsFollowWrites: after an update, an addition and a deletion,
// an index answers exactly as one built afresh over the same cases (the
// term statistics it keeps between searches describe the documents now).
func TestStatisticsFollowWrites(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := search.New(c.Vocab, c.Cases)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	queries := []string{"conntrack", "CoreDNS OOM", "certificate expired webhook", "etcd 메모리"}
	answers := func(ix *search.Index) string {
		var b strings.Builder
		for _, q := range queries {
			for _, sort := range []string{"", search.SortNewest, search.SortOldest} {
				res := mustSearch(t, ix.Public(), search.Query{Text: q, Sort: sort, Limit: 30, NoFacets: true})
				fmt.Fprintf(&b, "%s (%s): %d", q, sort, res.Total)
				for _, h := range res.Hits {
					fmt.Fprintf(&b, " %s=%.6f/%.4f", h.Case.ID, h.Score, h.Match)
				}
				b.WriteByte('\n')
			}
		}
		// No query: every case by date, and the facets of them all.
		for _, sort := range []string{search.SortNewest, search.SortOldest} {
			res := mustSearch(t, ix.Public(), search.Query{Sort: sort, Limit: 5})
			fmt.Fprintf(&b, "(%s): %d", sort, res.Total)
			for _, h := range res.Hits {
				fmt.Fprintf(&b, " %s", h.Case.ID)
			}
			fmt.Fprintf(&b, " %v\n", res.Facets)
		}
		return b.String()
	}
	cases := append([]*incidentlib.Case{}, c.Cases...)
	answers(ix) // fill what it keeps
	check := func(step string) {
		t.Helper()
		fresh, err := search.New(c.Vocab, cases)
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		if got, want := answers(ix), answers(fresh); got != want {
			t.Errorf("after %s the index answers otherwise than one built afresh:\n got %s\nwant %s", step, got, want)
		}
	}
	// A new case that says the queries' words many times.
	add := *c.Case("IL-0049")
	add.ID = "IL-9990"
	add.Date = "2026-11-30" // the newest, until the update makes it the oldest
	add.Summary.EN = strings.Repeat("conntrack CoreDNS OOM certificate expired webhook etcd ", 20)
	if err := ix.Upsert(&add); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, &add)
	check("an addition")
	upd := add
	upd.Summary.EN = "nothing of the sort"
	upd.Date = "1990-01-02"
	if err := ix.Upsert(&upd); err != nil {
		t.Fatal(err)
	}
	cases[len(cases)-1] = &upd
	check("an update")
	if err := ix.Delete("IL-0049"); err != nil {
		t.Fatal(err)
	}
	for i, k := range cases {
		if k.ID == "IL-0049" {
			cases = append(cases[:i], cases[i+1:]...)
			break
		}
	}
	check("a deletion")
}

// TestSearchByIDPastNineThousand: a case id of five digits typed in a
// query finds its case first, as a four-digit one does.
func TestSearchByIDPastNineThousand(t *testing.T) {
	ix := freshIndex(t)
	c := *ix.All().Case("IL-0049")
	c.ID = "IL-12345"
	if err := ix.Upsert(&c); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"IL-12345", "il-12345 coredns", "IL-0049"} {
		res := mustSearch(t, ix.Public(), search.Query{Text: q})
		want := strings.ToUpper(strings.Fields(q)[0])
		if len(res.Hits) == 0 || res.Hits[0].Case.ID != want {
			t.Errorf("%q: first hit %v, want %s", q, ids(res), want)
		}
	}
}

// TestAliasSearchLeavesTermSetsAlone: searches whose scorer prunes and
// that name vocabulary terms by an alias (the pasted logs), in a view or
// under a filter that allows fewer cases than carry the term, read the
// index's sets of terms without changing them: every facet count, in both
// views, is the same after them as before. (The pruned scorer once narrowed
// the shared set of an alias's term to the documents one search allowed,
// which every later search then saw.)
func TestAliasSearchLeavesTermSetsAlone(t *testing.T) {
	ix := realIndex(t)
	facets := func() string {
		return fmt.Sprint(mustSearch(t, ix.Public(), search.Query{Limit: 1}).Facets, mustSearch(t, ix.All(), search.Query{Limit: 1}).Facets)
	}
	before := facets()
	pruned, aliased := ix.PrunedSearches(), 0
	for _, p := range readList[pasted](t, "testdata/pastes.yaml") {
		for _, f := range []map[string][]string{{"domain": {"dns"}}, {"severity": {"major"}}} {
			for _, v := range []*search.View{ix.Public(), ix.All()} {
				res := mustSearch(t, v, search.Query{Text: p.Q, Filters: f, NoFacets: true})
				for _, note := range res.Notes {
					if strings.Contains(note, "was read as") {
						aliased++
						break
					}
				}
			}
		}
	}
	if aliased == 0 || ix.PrunedSearches() == pruned {
		t.Fatalf("%d searches named a term by an alias, %d were pruned: the test needs both", aliased, ix.PrunedSearches()-pruned)
	}
	if after := facets(); after != before {
		t.Errorf("the facets changed after searches for the pasted logs:\n%s", firstDiff(after, before))
	}
}
