package search_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/incidentlib/incidentlib/internal/search"
)

func TestParseParams(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		name   string
		query  string
		face   search.Face
		want   search.Query
		page   int
		probs  []search.ProblemKind
		params []string // the parameters the problems name
	}{
		{name: "text and paging", query: "q=+dns+timeout+&lang=en&limit=5&offset=10&sort=date", face: search.FaceAPI,
			want: search.Query{Text: "dns timeout", Lang: "en", Limit: 5, Offset: 10, Sort: "date"}},
		{name: "values of a field: repeated, comma-separated, deduplicated", query: "severity=critical,major&severity=major&org=Datadog", face: search.FaceAPI,
			want: search.Query{Filters: map[string][]string{"severity": {"critical", "major"}, search.OrgFilter: {"Datadog"}}}},
		{name: "components_all is the all-of form", query: "components_all=coredns,conntrack&components=cilium", face: search.FaceAPI,
			want: search.Query{Filters: map[string][]string{"components": {"cilium"}}, AllOf: map[string][]string{"components": {"coredns", "conntrack"}}}},
		{name: "the pages' singular names are aliases", query: "component=coredns&components=cilium&symptom=oom-kills", face: search.FacePages,
			want: search.Query{Filters: map[string][]string{"components": {"coredns", "cilium"}, "symptoms": {"oom-kills"}}, Limit: 20}},
		{name: "the API does not take the pages' aliases", query: "component=coredns", face: search.FaceAPI,
			want: search.Query{}, probs: []search.ProblemKind{search.ProblemUnknown}, params: []string{"component"}},
		{name: "limit and offset beyond their bounds are refused, never clamped", query: "limit=500&offset=-3", face: search.FaceAPI,
			want: search.Query{}, probs: []search.ProblemKind{search.ProblemRange, search.ProblemRange}, params: []string{"offset", "limit"}},
		{name: "lang in any case, a region ignored", query: "lang=EN-us", face: search.FaceCLI,
			want: search.Query{Lang: "en"}},
		{name: "page turns into an offset", query: "page=3", face: search.FacePages, page: 3,
			want: search.Query{Offset: 40, Limit: 20}},
		{name: "a page past the last offset is refused", query: "page=99999999999999999", face: search.FacePages,
			want: search.Query{Limit: 20}, probs: []search.ProblemKind{search.ProblemRange}, params: []string{"page"}},
		{name: "a page that is no number", query: "page=2x", face: search.FacePages,
			want: search.Query{Limit: 20}, probs: []search.ProblemKind{search.ProblemNotInt}, params: []string{"page"}},
		{name: "a page beyond MaxOffset is refused", query: "page=502", face: search.FacePages,
			want: search.Query{Limit: 20}, probs: []search.ProblemKind{search.ProblemRange}, params: []string{"page"}},
		{name: "bad values are named and left out", query: "sort=best&year_from=abc&year_to=1800&reviewed=maybe&lang=fr", face: search.FaceAPI,
			want:   search.Query{},
			probs:  []search.ProblemKind{search.ProblemEnum, search.ProblemNotInt, search.ProblemRange, search.ProblemNotBool, search.ProblemEnum},
			params: []string{"lang", "year_from", "year_to", "reviewed", "sort"}},
		{name: "years in the wrong order", query: "year_from=2024&year_to=2020&reviewed=1", face: search.FaceAPI,
			want: search.Query{Reviewed: &yes}, probs: []search.ProblemKind{search.ProblemYearOrder}, params: []string{"year_from"}},
		{name: "unknown parameters are problems", query: "utm_source=x&q=a", face: search.FacePages,
			want: search.Query{Text: "a", Limit: 20}, probs: []search.ProblemKind{search.ProblemUnknown}, params: []string{"utm_source"}},
		{name: "invalid UTF-8", query: "q=%ff", face: search.FaceAPI,
			want: search.Query{}, probs: []search.ProblemKind{search.ProblemUTF8}, params: []string{"q"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			got, probs := search.ParseParams(v, tc.face, 20)
			if tc.want.Filters == nil {
				tc.want.Filters = map[string][]string{}
			}
			if diff := cmp.Diff(tc.want, got.Query, cmpopts.IgnoreUnexported(search.Query{})); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
			if want := max(tc.page, 1); got.Page != want {
				t.Errorf("page %d, want %d", got.Page, want)
			}
			var kinds []search.ProblemKind
			var params []string
			for _, p := range probs {
				kinds = append(kinds, p.Kind)
				params = append(params, p.Param)
				if p.Error() == "" {
					t.Errorf("problem %+v has no message", p)
				}
			}
			if diff := cmp.Diff(tc.probs, kinds); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.params, params); diff != "" {
				t.Errorf("problem parameters (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParamsTable: every filter field of the index has its parameter, and
// names are unique across names and aliases.
func TestParamsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range search.Params {
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			if seen[n] {
				t.Errorf("name %q is used twice", n)
			}
			seen[n] = true
		}
		if p.Doc == "" || p.Faces == 0 {
			t.Errorf("%s has no doc or no face", p.Name)
		}
	}
	for _, f := range append(append([]string{}, search.FilterFields...), search.OrgFilter) {
		if p := search.ParamNamed(f); p == nil || p.Field != f {
			t.Errorf("filter field %s has no parameter of its own", f)
		}
	}
}

// TestOneRuleForEveryRoute: every read takes lang by the same rule, limit
// and offset with the same bounds, on every face, and a parameter a route
// does not take is refused with the ones it does.
func TestOneRuleForEveryRoute(t *testing.T) {
	for _, face := range []search.Face{search.FaceAPI, search.FaceCLI, search.FaceMCP} {
		for _, route := range []search.Route{search.RouteSearch, search.RouteCase, search.RouteSimilar, search.RouteTopic, search.RouteLists} {
			for _, tc := range []struct{ in, want string }{{"EN", "en"}, {"ko", "ko"}, {"Ko_KR.UTF-8", "ko"}, {"en-GB", "en"}} {
				p, probs := search.Parse(url.Values{"lang": {tc.in}}, face, route, 0)
				if len(probs) > 0 || p.Lang() != tc.want {
					t.Errorf("face %d route %d: lang=%s gives %q %v, want %q", face, route, tc.in, p.Lang(), probs, tc.want)
				}
			}
			if _, probs := search.Parse(url.Values{"lang": {"fr"}}, face, route, 0); len(probs) != 1 || probs[0].Error() != `lang "fr" is not supported; use ko or en` {
				t.Errorf("face %d route %d: lang=fr gives %v", face, route, probs)
			}
			if p, _ := search.Parse(url.Values{}, face, route, 0); p.Lang() != search.DefaultLang {
				t.Errorf("face %d route %d: the default language is %q, want %q", face, route, p.Lang(), search.DefaultLang)
			}
			takesLimit := route == search.RouteSearch || route == search.RouteSimilar || route == search.RouteTopic
			_, probs := search.Parse(url.Values{"limit": {"101"}}, face, route, 0)
			switch {
			case takesLimit && (len(probs) != 1 || probs[0].Error() != "limit 101 is outside 1 to 100"):
				t.Errorf("face %d route %d: limit=101 gives %v, want the range refused", face, route, probs)
			case !takesLimit && (len(probs) != 1 || probs[0].Kind != search.ProblemUnknown || !strings.Contains(probs[0].Error(), "this route takes lang")):
				t.Errorf("face %d route %d: limit, which the route does not take, gives %v", face, route, probs)
			}
			if takesLimit {
				if p, probs := search.Parse(url.Values{"limit": {"100"}, "offset": {"10000"}}, face, route, 0); len(probs) > 0 || p.Limit() != 100 || p.Query.Offset != 10000 {
					t.Errorf("face %d route %d: limit=100 offset=10000 gives %d %d %v", face, route, p.Limit(), p.Query.Offset, probs)
				}
			}
		}
	}
	if _, probs := search.Parse(url.Values{"lang": {"en"}}, search.FaceAPI, search.RouteNone, 0); len(probs) != 1 || !strings.Contains(probs[0].Error(), "this route takes no parameters") {
		t.Errorf("a route that takes nothing: %v", probs)
	}
}
