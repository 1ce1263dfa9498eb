package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/server"
)

// caseJSON returns IL-0049's JSON with its id and title changed.
func caseJSON(t *testing.T, ts *testServer, id, marker string) string {
	t.Helper()
	var c incidentlib.Case
	if err := json.Unmarshal(ts.get(t, "/api/cases/IL-0049").body, &c); err != nil {
		t.Fatal(err)
	}
	c.ID = id
	c.Title.EN = marker + " " + c.Title.EN
	c.Summary.KO = marker + " " + c.Summary.KO
	c.Related = []string{"IL-0049"}
	b, _ := json.Marshal(&c)
	return string(b)
}

func TestWrites(t *testing.T) {
	ts := newServer(t, nil)
	body := caseJSON(t, ts, "IL-9001", "wombatquasar")
	if r := ts.do(t, "PUT", "/api/cases/IL-9001", body, auth()...); r.status != http.StatusCreated || r.header.Get("Location") != "/api/cases/IL-9001" {
		t.Fatalf("create: %d %.300s", r.status, r.body)
	}
	if r := ts.do(t, "PUT", "/api/cases/IL-9001", body, auth()...); r.status != http.StatusOK {
		t.Fatalf("replace: %d", r.status)
	}
	// The index sees the write at once, on every face.
	if m := ts.get(t, "/api/cases?q=wombatquasar").json(t); m["total"].(float64) != 1 {
		t.Fatalf("a new case is not found: %v", m["total"])
	}
	// An invalid case is refused with the validator's words.
	bad := strings.Replace(body, `"root_cause":"dns-network"`, `"root_cause":"gremlins"`, 1)
	r := ts.do(t, "PUT", "/api/cases/IL-9001", bad, auth()...)
	if r.status != 400 || !strings.Contains(string(r.body), `unknown term \"gremlins\"`) {
		t.Fatalf("invalid case: %d %s", r.status, r.body)
	}
	var k incidentlib.Case
	json.Unmarshal([]byte(body), &k)
	k.Trigger.KO = ""
	noKOb, _ := json.Marshal(&k)
	noKO := string(noKOb)
	if r := ts.do(t, "PUT", "/api/cases/IL-9001", noKO, auth()...); r.status != 400 || !strings.Contains(string(r.body), "no Korean text") {
		t.Fatalf("missing Korean: %d %s", r.status, r.body)
	}
	r = ts.do(t, "POST", "/api/cases/IL-9001/review", `{"reviewed_by":"A. Reviewer"}`, auth()...)
	if r.status != 200 {
		t.Fatalf("review: %d %s", r.status, r.body)
	}
	var c incidentlib.Case
	json.Unmarshal(r.body, &c)
	if !c.Reviewed() || *c.Review.ReviewedBy != "A. Reviewer" {
		t.Fatalf("review not recorded: %+v", c.Review)
	}
	if m := ts.get(t, "/api/cases?reviewed=true").json(t); m["total"] != float64(reviewedInCorpus(t)+1) {
		t.Errorf("reviewed filter finds %v, want the %d reviewed cases of the corpus and IL-9001", m["total"], reviewedInCorpus(t))
	}
	if r := ts.do(t, "DELETE", "/api/cases/IL-9001", "", auth()...); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d", r.status)
	}
	if r := ts.get(t, "/api/cases/IL-9001"); r.status != 404 {
		t.Fatalf("deleted case answers %d", r.status)
	}
	if m := ts.get(t, "/api/cases?q=wombatquasar").json(t); m["total"].(float64) != 0 {
		t.Fatal("a deleted case is still found")
	}
	// A public case cannot silently become private.
	ts.do(t, "PUT", "/api/cases/IL-9002", caseJSON(t, ts, "IL-9002", "x"), auth()...)
	if r := ts.do(t, "PUT", "/api/cases/IL-9002?private=true", caseJSON(t, ts, "IL-9002", "x"), auth()...); r.status != http.StatusConflict {
		t.Errorf("visibility change: %d", r.status)
	}
}

func TestWritesDisabledWithoutToken(t *testing.T) {
	ts := newServer(t, func(c *server.Config) { c.Token = "" })
	r := ts.do(t, "PUT", "/api/cases/IL-9001", "{}", auth()...)
	if r.status != 401 || !strings.Contains(string(r.body), "INCIDENTLIB_TOKEN") {
		t.Fatalf("writes without a configured token: %d %s", r.status, r.body)
	}
}

// TestPrivateCasesNeverLeak adds a private case and walks every public
// route, the MCP tools and (when present) the pages, asserting that neither
// its id nor its words appear anywhere without the token.
func TestPrivateCasesNeverLeak(t *testing.T) {
	ts := newServer(t, nil)
	const marker = "zebracornsecret"
	if r := ts.do(t, "PUT", "/api/cases/IL-9003?private=true", caseJSON(t, ts, "IL-9003", marker), auth()...); r.status != 201 {
		t.Fatalf("private create: %d %s", r.status, r.body)
	}
	paths := []string{
		"/api/cases", "/api/cases?q=" + marker, "/api/cases?q=IL-9003", "/api/cases?limit=100", "/api/cases?sort=date&limit=100",
		"/api/cases?components=conntrack&limit=100", "/api/cases/IL-9003", "/api/cases/IL-9003/similar", "/api/cases/IL-0049/similar?limit=50",
		"/api/topics", "/api/topics/conntrack", "/api/topics/dns-network", "/api/topics/preply", "/api/vocab", "/api/stats", "/api/openapi.json",
		"/", "/en/", "/cases", "/cases?q=" + marker, "/en/cases?q=" + marker, "/cases/IL-9003", "/en/cases/IL-9003", "/cases/IL-0049",
		"/topics/conntrack", "/en/topics/conntrack", "/stats", "/en/stats", "/feed.atom", "/en/feed.atom", "/sitemap.xml", "/topics",
	}
	for _, p := range paths {
		r := ts.get(t, p)
		if r.status >= 500 {
			t.Errorf("%s: %d", p, r.status)
		}
		s := string(r.body)
		if strings.Contains(p, "/IL-9003") {
			// Asked for by id: it must answer exactly as for a case that
			// does not exist (the message may repeat the id asked for).
			if r.status != 404 || strings.Contains(s, marker) {
				t.Errorf("private case answers %d through %s", r.status, p)
			}
			continue
		}
		// A page may echo the query back (the search box); the case's
		// id and its other words must not appear.
		leaked := strings.Contains(s, `"IL-9003"`) || strings.Contains(s, "/IL-9003") || strings.Contains(s, ">IL-9003<") || strings.Contains(s, "IL-9003")
		if !strings.Contains(p, marker) {
			leaked = leaked || strings.Contains(s, marker)
		}
		if leaked {
			t.Errorf("private case leaks through %s", p)
		}
	}
	// Stats count only public cases.
	if m := ts.get(t, "/api/stats").json(t); m["cases"].(float64) != float64(ts.srv.Library().All().Len()-1) {
		t.Errorf("stats count the private case: %v of %d", m["cases"], ts.srv.Library().All().Len())
	}
	// Every MCP tool, called the way an agent would.
	cs := mcpSession(t, ts)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"search_incidents", map[string]any{"query": marker}},
		{"search_incidents", map[string]any{"query": "IL-9003 conntrack kube-proxy", "limit": 25}},
		{"get_incident", map[string]any{"id": "IL-9003"}},
		{"list_incidents", map[string]any{"limit": 25}},
		{"list_incidents", map[string]any{"limit": 25, "filters": map[string]any{"components": []string{"conntrack"}}}},
		{"get_topic", map[string]any{"term": "conntrack", "limit": 25}},
		{"similar_incidents", map[string]any{"id": "IL-0049", "limit": 25}},
		{"similar_incidents", map[string]any{"text": marker + " kube-proxy conntrack", "limit": 25}},
		{"vocab", map[string]any{}},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		if err != nil {
			t.Fatalf("%s: %v", call.tool, err)
		}
		b, _ := json.Marshal(res)
		if strings.Contains(string(b), marker) {
			t.Errorf("private case leaks through MCP %s", call.tool)
		}
		if _, asked := call.args["id"]; asked && call.args["id"] == "IL-9003" {
			if !res.IsError {
				t.Errorf("MCP %s answers for a private case", call.tool)
			}
		} else if strings.Contains(string(b), "IL-9003") {
			t.Errorf("private case id leaks through MCP %s", call.tool)
		}
	}
	// The token holder sees it.
	if r := ts.get(t, "/api/cases/IL-9003", auth()...); r.status != 200 || r.header.Get("Cache-Control") != "private, no-store" {
		t.Errorf("token holder: %d %q", r.status, r.header.Get("Cache-Control"))
	}
	if m := ts.get(t, "/api/cases?q="+marker, auth()...).json(t); m["total"].(float64) != 1 {
		t.Errorf("token holder cannot search the private case")
	}
}

// TestPrivateWriteLeavesPublicAnswersUnchanged: adding a private case must
// leave every public answer byte for byte as it was, ETag included. Ranking
// statistics that counted the private case would shift scores and order, so
// a word in a private case could be probed from outside.
func TestPrivateWriteLeavesPublicAnswersUnchanged(t *testing.T) {
	ts := newServer(t, nil)
	paths := []string{
		"/api/cases?q=conntrack+kube-proxy+DNS", "/api/cases?q=CoreDNS+autoscaler&limit=50", "/api/cases?q=롤아웃+중+DNS+오류",
		"/api/cases?q=conntrack&components=kube-proxy", "/api/cases", "/api/cases?limit=100&sort=date",
		"/api/cases/IL-0049/similar?limit=50", "/api/cases/IL-0461/similar", "/api/topics/conntrack", "/api/topics/kube-proxy",
		"/api/topics", "/api/stats", "/api/vocab", "/readyz",
	}
	type answer struct{ body, etag string }
	read := func() map[string]answer {
		m := map[string]answer{}
		for _, p := range paths {
			r := ts.get(t, p)
			m[p] = answer{string(r.body), r.header.Get("ETag")}
		}
		cs := mcpSession(t, ts)
		for _, call := range []struct {
			tool string
			args map[string]any
		}{
			{"search_incidents", map[string]any{"query": "conntrack kube-proxy DNS", "limit": 25}},
			{"similar_incidents", map[string]any{"id": "IL-0049", "limit": 25}},
			{"similar_incidents", map[string]any{"text": "kube-proxy failed to delete conntrack entries", "limit": 25}},
			{"get_topic", map[string]any{"term": "conntrack", "limit": 25}},
		} {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
			if err != nil {
				t.Fatalf("%s: %v", call.tool, err)
			}
			b, _ := json.Marshal(res)
			m["mcp "+call.tool+fmt.Sprint(call.args)] = answer{string(b), ""}
		}
		return m
	}
	before := read()
	for i, id := range []string{"IL-9101", "IL-9102", "IL-9103"} {
		if r := ts.do(t, "PUT", "/api/cases/"+id+"?private=true", caseJSON(t, ts, id, fmt.Sprintf("conntrack kube-proxy DNS private%d", i)), auth()...); r.status != 201 {
			t.Fatalf("private create: %d %s", r.status, r.body)
		}
	}
	after := read()
	for k, b := range before {
		if a := after[k]; a != b {
			t.Errorf("%s changed after a private write (ETag %s -> %s)", k, b.etag, a.etag)
		}
	}
}

// TestCaseBodyFollowsWrites: the whole-case answer is kept encoded per
// case, so it must follow every write: after an update GET answers the new
// text with a new ETag (the old one no longer matches), after a delete 404.
func TestCaseBodyFollowsWrites(t *testing.T) {
	ts := newServer(t, nil)
	first := ts.get(t, "/api/cases/IL-0049")
	again := ts.get(t, "/api/cases/IL-0049")
	if first.status != 200 || string(first.body) != string(again.body) || first.header.Get("ETag") != again.header.Get("ETag") {
		t.Fatalf("two reads differ: %d %q %q", first.status, first.header.Get("ETag"), again.header.Get("ETag"))
	}
	var c incidentlib.Case
	if err := json.Unmarshal(first.body, &c); err != nil {
		t.Fatal(err)
	}
	c.Title.EN = "numbatzephyr " + c.Title.EN
	c.URL = ""
	b, _ := json.Marshal(&c)
	if r := ts.do(t, "PUT", "/api/cases/IL-0049", string(b), auth()...); r.status != http.StatusOK {
		t.Fatalf("update: %d %.300s", r.status, r.body)
	}
	after := ts.get(t, "/api/cases/IL-0049")
	if !strings.Contains(string(after.body), "numbatzephyr") || after.header.Get("ETag") == first.header.Get("ETag") {
		t.Fatalf("GET after an update answers the old case (ETag %s)", after.header.Get("ETag"))
	}
	if r := ts.get(t, "/api/cases/IL-0049", "If-None-Match", first.header.Get("ETag")); r.status != 200 {
		t.Fatalf("the old ETag still matches after an update: %d", r.status)
	}
	if r := ts.do(t, "DELETE", "/api/cases/IL-0049", "", auth()...); r.status != http.StatusNoContent && r.status != 200 {
		t.Fatalf("delete: %d %.300s", r.status, r.body)
	}
	if r := ts.get(t, "/api/cases/IL-0049"); r.status != 404 {
		t.Fatalf("GET after a delete: %d", r.status)
	}
}

// TestIDsPastNineThousand writes cases past IL-9999 and reads them back on
// every face that lists by id: the API, the sitemap, and the date order's
// tie-break (newest first, so the higher number first).
func TestIDsPastNineThousand(t *testing.T) {
	ts := newServer(t, nil)
	for _, id := range []string{"IL-10000", "IL-9999", "IL-12345"} {
		if r := ts.do(t, "PUT", "/api/cases/"+id, caseJSON(t, ts, id, "kiwiparsec"), auth()...); r.status != http.StatusCreated {
			t.Fatalf("PUT %s: %d %.300s", id, r.status, r.body)
		}
	}
	if r := ts.get(t, "/api/cases/IL-12345"); r.status != 200 {
		t.Fatalf("GET IL-12345: %d", r.status)
	}
	if r := ts.do(t, "PUT", "/api/cases/IL-00049", caseJSON(t, ts, "IL-00049", "kiwiparsec"), auth()...); r.status != 400 || !strings.Contains(string(r.body), "not a case id") {
		t.Errorf("PUT IL-00049 (a leading zero past four digits): %d %s", r.status, r.body)
	}
	// The three share IL-0049's date: newest first breaks the tie by id, by number.
	m := ts.get(t, "/api/cases?q=kiwiparsec&sort=date&fields=id").json(t)
	var ids []string
	for _, it := range m["items"].([]any) {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	if want := []string{"IL-12345", "IL-10000", "IL-9999"}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("newest first: %v, want %v", ids, want)
	}
	sm := string(ts.get(t, "/sitemap.xml").body)
	a, b, c := strings.Index(sm, "/cases/IL-9999<"), strings.Index(sm, "/cases/IL-10000<"), strings.Index(sm, "/cases/IL-12345<")
	if a < 0 || !(a < b && b < c) {
		t.Errorf("sitemap order of IL-9999, IL-10000, IL-12345: at %d, %d, %d", a, b, c)
	}
}
