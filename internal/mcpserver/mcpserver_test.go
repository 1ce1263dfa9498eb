package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/library"
	"github.com/incidentlib/incidentlib/internal/mcptool"
	"github.com/incidentlib/incidentlib/internal/search"
)

var (
	ixOnce sync.Once
	ix     *search.Index
	ixErr  error
)

// realIndex is the embedded corpus, indexed once: the real Reader.
func realIndex(t *testing.T) *search.Index {
	t.Helper()
	ixOnce.Do(func() {
		c, err := corpus.LoadEmbedded()
		if err != nil {
			ixErr = err
			return
		}
		ix, ixErr = search.New(c.Vocab, c.Cases)
	})
	if ixErr != nil {
		t.Fatal(ixErr)
	}
	return ix
}

// connect serves r's tools to an SDK client over in-memory transports.
func connect(t *testing.T, r library.Reader) *mcp.ClientSession {
	t.Helper()
	s := New(r, "https://incidents.example", "test")
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any, error) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, nil, err
	}
	var out map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
	}
	return res, out, nil
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestToolsFromOneList: the server lists exactly the tools of the list, in
// its order, each with the metadata an agent needs.
func TestToolsFromOneList(t *testing.T) {
	cs := connect(t, realIndex(t).Public())
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed, want []string
	for _, tool := range res.Tools {
		listed = append(listed, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.Title == "" || tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("%s lacks metadata: %+v", tool.Name, tool)
		}
	}
	want = Tools().Names()
	slicesSort := func(s []string) []string { c := append([]string{}, s...); sortStrings(c); return c }
	if diff := cmp.Diff(want, slicesSort(listed)); diff != "" || len(want) == 0 {
		t.Errorf("tools (-list +served), %d in the list:\n%s", len(want), diff)
	}
}

// TestToolCalls calls every tool over the SDK client with the real index.
func TestToolCalls(t *testing.T) {
	cs := connect(t, realIndex(t).Public())
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		check func(out map[string]any) bool
	}{
		{"search_incidents", map[string]any{"query": "kube-proxy conntrack DNS", "limit": 3}, func(o map[string]any) bool {
			return strings.Contains(jsonOf(o["items"]), "IL-0049")
		}},
		{"search_incidents", map[string]any{"query": "OOMKilled", "filters": map[string]any{"severity": []string{"critical", "major"}}, "lang": "ko"}, func(o map[string]any) bool {
			return o["total"].(float64) > 0
		}},
		{"get_incident", map[string]any{"id": "il-0049", "view": "summary"}, func(o map[string]any) bool {
			_, hasLessons := o["lessons"]
			return o["id"] == "IL-0049" && o["url"] == "https://incidents.example/cases/IL-0049" && !hasLessons
		}},
		{"list_incidents", map[string]any{"filters": map[string]any{"components": []string{"coredns"}}, "limit": 2}, func(o map[string]any) bool {
			return len(o["items"].([]any)) == 2 && o["next_offset"].(float64) == 2
		}},
		{"get_topic", map[string]any{"term": "coredns", "limit": 2, "offset": 1}, func(o map[string]any) bool {
			return o["term"] == "coredns" && len(o["cases"].([]any)) == 2
		}},
		{"get_topic", map[string]any{"term": "kube-dns", "limit": 1}, func(o map[string]any) bool {
			return o["term"] == "coredns" && o["vocab"] == "components" && len(o["cases"].([]any)) == 1
		}},
		{"vocab", map[string]any{"vocab": "root_cause", "brief": true}, func(o map[string]any) bool {
			v := o["vocabularies"].(map[string]any)
			return len(v) == 1 && strings.Contains(jsonOf(v["root_cause"]), "config-change") && !strings.Contains(jsonOf(v), `"description"`) && !strings.Contains(jsonOf(v), `"aliases"`)
		}},
		{"similar_incidents", map[string]any{"id": "IL-0049", "limit": 3}, func(o map[string]any) bool {
			return len(o["items"].([]any)) == 3 && !strings.Contains(jsonOf(o["items"]), `"IL-0049"`)
		}},
	} {
		res, out, err := call(t, cs, tc.tool, tc.args)
		if err != nil || res.IsError {
			t.Errorf("%s %v: err %v, result %s", tc.tool, tc.args, err, text(res))
			continue
		}
		if !tc.check(out) {
			t.Errorf("%s %v: unexpected answer %.400s", tc.tool, tc.args, jsonOf(out))
		}
	}
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

// failing is a Reader beside the real one: every read works except Search,
// which fails as a broken store would.
type failing struct{ library.Reader }

func (failing) Search(search.Query) (*search.Result, error) { return nil, errors.New("disk on fire") }

// TestErrorKinds: bad input and missing cases are isError results an agent
// reads; a failure of the server is a JSON-RPC internal error that hides
// its detail; resources answer with the protocol's codes.
func TestErrorKinds(t *testing.T) {
	cs := connect(t, realIndex(t).Public())
	for _, tc := range []struct {
		tool, want string
		args       map[string]any
	}{
		{"get_incident", "no case", map[string]any{"id": "IL-9999"}},
		{"get_incident", "view", map[string]any{"id": "IL-0049", "view": "tiny"}},
		{"search_incidents", "query is empty", map[string]any{"query": "  "}},
		{"search_incidents", "unknown severity term", map[string]any{"query": "dns", "filters": map[string]any{"severity": []string{"huge"}}}},
		{"list_incidents", "no organisation", map[string]any{"filters": map[string]any{"org": []string{"nobody-at-all"}}}},
		{"get_topic", "the vocab tool lists the terms", map[string]any{"term": "no-such-term"}},
		{"get_topic", "did you mean components:coredns", map[string]any{"term": "corednss"}},
		{"similar_incidents", "either id or text", map[string]any{"id": "IL-0049", "text": "dns"}},
		{"vocab", "no vocabulary", map[string]any{"vocab": "colours"}},
		{"search_incidents", "lang", map[string]any{"query": "dns", "lang": "fr"}},
	} {
		res, _, err := call(t, cs, tc.tool, tc.args)
		if err != nil {
			t.Errorf("%s %v: a protocol error %v, want an isError result", tc.tool, tc.args, err)
			continue
		}
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v: isError %v, text %q; want an error saying %q", tc.tool, tc.args, res.IsError, text(res), tc.want)
		}
	}

	broken := connect(t, failing{realIndex(t).Public()})
	_, _, err := call(t, broken, "search_incidents", map[string]any{"query": "dns"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInternalError || strings.Contains(wire.Message, "disk on fire") {
		t.Errorf("a failing read: err %v, want a JSON-RPC internal error without its detail", err)
	}

	// (Resource-not-found has the code of invalid params (SEP-2164); the
	// message tells them apart.)
	for _, tc := range []struct {
		uri  string
		code int64
		msg  string
	}{
		{"incident://IL-9999", jsonrpc.CodeInvalidParams, "Resource not found"},
		{"topic://no-such-term", jsonrpc.CodeInvalidParams, "Resource not found"},
		{"incident://IL-0049?lang=fr", jsonrpc.CodeInvalidParams, "lang"},
	} {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: tc.uri})
		if !errors.As(err, &wire) || wire.Code != tc.code || !strings.Contains(wire.Message, tc.msg) {
			t.Errorf("read %s: err %v, want JSON-RPC code %d saying %q", tc.uri, err, tc.code, tc.msg)
		}
	}
	if r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "incident://IL-0049?lang=ko"}); err != nil || !strings.Contains(r.Contents[0].Text, "IL-0049") {
		t.Errorf("read incident://IL-0049?lang=ko: %v", err)
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestSchemaBoundsFromTable: the closed sets and bounds of the tools'
// inputs are the search parameter table's.
func TestSchemaBoundsFromTable(t *testing.T) {
	lang, offset, year := search.ParamNamed("lang"), search.ParamNamed("offset"), search.ParamNamed("year_from")
	for _, tool := range Tools().Defs() {
		s := tool.InputSchema.(*jsonschema.Schema)
		if p := s.Properties["lang"]; p != nil && (lang.Kind != search.KindLang || p.Pattern != search.LangPattern) {
			t.Errorf("%s: lang pattern %q, want the table's rule %q", tool.Name, p.Pattern, search.LangPattern)
		}
		if p := s.Properties["offset"]; p != nil && (p.Maximum == nil || *p.Maximum != float64(offset.Max)) {
			t.Errorf("%s: offset maximum %v, table %d", tool.Name, p.Maximum, offset.Max)
		}
		if f := s.Properties["filters"]; f != nil {
			p := f.Properties["year_from"]
			if p == nil || p.Minimum == nil || p.Maximum == nil || *p.Minimum != float64(year.Min) || *p.Maximum != float64(year.Max) {
				t.Errorf("%s: filters.year_from bounds %+v, table %d to %d", tool.Name, p, year.Min, year.Max)
			}
		}
	}
}

// TestFiltersMatchTable: the filters object of the tools has exactly the
// table's filter parameters (terms, all-of, organisations and years) of
// the MCP face, and each one reaches the query.
func TestFiltersMatchTable(t *testing.T) {
	var want, got []string
	for _, p := range search.Params {
		if p.Faces&search.FaceMCP != 0 && (p.Kind == search.KindTerms || p.Kind == search.KindAllOf || p.Kind == search.KindOrgs || strings.HasPrefix(p.Name, "year_")) {
			want = append(want, p.Name)
		}
	}
	ft := reflect.TypeFor[Filters]()
	f := Filters{}
	fv := reflect.ValueOf(&f).Elem()
	for i := range ft.NumField() {
		name, _, _ := strings.Cut(ft.Field(i).Tag.Get("json"), ",")
		got = append(got, name)
		switch fv.Field(i).Kind() {
		case reflect.Slice:
			fv.Field(i).Set(reflect.ValueOf([]string{"v-" + name}))
		case reflect.Int:
			fv.Field(i).SetInt(int64(2000 + i))
		}
	}
	sortStrings(want)
	sortStrings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MCP filters (-table +Filters):\n%s", diff)
	}
	v := args{}
	f.add(v)
	parsed, err := v.parse(search.RouteSearch)
	if err != nil {
		t.Fatal(err)
	}
	q := parsed.Query
	for _, name := range want {
		p := search.ParamNamed(name)
		var v []string
		switch p.Kind {
		case search.KindAllOf:
			v = q.AllOf[p.Field]
		case search.KindInt:
			continue
		default:
			v = q.Filters[p.Field]
		}
		if len(v) != 1 || v[0] != "v-"+name {
			t.Errorf("filter %s does not reach the query's %s: %v", name, p.Field, v)
		}
	}
	if q.YearFrom == 0 || q.YearTo == 0 {
		t.Errorf("years do not reach the query: %d %d", q.YearFrom, q.YearTo)
	}
}

// TestOutputsMatchSchemas: the server does not validate each answer
// against its tool's output schema (it costs more than the search), so
// this test does, over calls of every tool with their edge cases: each
// structured answer is valid against the schema tools/list gives, and the
// text content is the same JSON.
func TestOutputsMatchSchemas(t *testing.T) {
	cs := connect(t, realIndex(t).Public())
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	examples := map[string][]mcptool.Example{}
	for _, tl := range Tools() {
		examples[tl.Def.Name] = tl.Examples
	}
	checked := 0
	for _, tl := range listed.Tools {
		if tl.OutputSchema == nil {
			t.Errorf("%s declares no output schema", tl.Name)
			continue
		}
		var schema jsonschema.Schema
		if err := json.Unmarshal([]byte(jsonOf(tl.OutputSchema)), &schema); err != nil {
			t.Fatal(tl.Name, err)
		}
		resolved, err := schema.Resolve(nil)
		if err != nil {
			t.Fatal(tl.Name, err)
		}
		if len(examples[tl.Name]) == 0 {
			t.Errorf("%s: no example calls in the registry", tl.Name)
		}
		for _, ex := range examples[tl.Name] {
			args := ex.Args
			res, out, err := call(t, cs, tl.Name, args)
			if err != nil || res.IsError {
				t.Errorf("%s %v: err %v, result %s", tl.Name, args, err, text(res))
				continue
			}
			var v any = out
			if err := resolved.Validate(v); err != nil {
				t.Errorf("%s %v: answer does not match its output schema: %v", tl.Name, args, err)
			}
			if !strings.Contains(jsonOf(out), ex.Want) {
				t.Errorf("%s %v: the answer lacks %q, which the example wants", tl.Name, args, ex.Want)
			}
			checkText(t, tl.Name, args, text(res), out)
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("only %d answers checked", checked)
	}
}

// checkText: the text beside a structured answer is the answer's JSON, or
// a summary under half its size (for an answer of more than a few
// hundred bytes) that names every case and term it holds and how to page
// on.
func checkText(t *testing.T, tool string, args map[string]any, txt string, out map[string]any) {
	t.Helper()
	var fromText map[string]any
	if json.Unmarshal([]byte(txt), &fromText) == nil {
		if !reflect.DeepEqual(fromText, out) {
			t.Errorf("%s %v: the JSON text is not the structured answer", tool, args)
		}
		return
	}
	// Sizes in characters, not bytes: a Korean character is three bytes
	// in either form, and an agent's cost follows characters.
	full, short := utf8.RuneCountInString(jsonOf(out)), utf8.RuneCountInString(txt)
	if full > 400 && short*2 > full {
		t.Errorf("%s %v: the text summary (%d characters) is not under half the structured answer (%d characters)", tool, args, short, full)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "id" && !strings.Contains(txt, s) {
					t.Errorf("%s %v: the text summary lacks %s %q", tool, args, k, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(out)
	if n, ok := out["next_offset"].(float64); ok && !strings.Contains(txt, fmt.Sprintf("offset %d", int(n))) {
		t.Errorf("%s %v: the text summary does not say how to page on (offset %d)", tool, args, int(n))
	}
}

// TestBriefVocabIsBrief: the brief vocabulary is what its description
// says, about a third of the full one (at most 35 %).
func TestBriefVocabIsBrief(t *testing.T) {
	cs := connect(t, realIndex(t).Public())
	_, full, err := call(t, cs, "vocab", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	_, brief, err := call(t, cs, "vocab", map[string]any{"brief": true})
	if err != nil {
		t.Fatal(err)
	}
	f, b := len(jsonOf(full)), len(jsonOf(brief))
	if b*100 > f*35 {
		t.Errorf("the brief vocabulary is %d bytes, %d %% of the full %d", b, b*100/f, f)
	}
}

// TestPromptNamesRealFields: every field the investigate_error prompt names
// (in backquotes) is a property of some tool's output schema.
func TestPromptNamesRealFields(t *testing.T) {
	cs := connect(t, realIndex(t).Public())
	ctx := context.Background()
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "investigate_error", Arguments: map[string]string{"error": "dial tcp 10.96.0.10:53: i/o timeout"}})
	if err != nil {
		t.Fatal(err)
	}
	prompt := p.Messages[0].Content.(*mcp.TextContent).Text
	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	props := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ps, ok := v["properties"].(map[string]any); ok {
				for k := range ps {
					props[k] = true
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, tl := range listed.Tools {
		var schema any
		json.Unmarshal([]byte(jsonOf(tl.OutputSchema)), &schema)
		walk(schema)
	}
	named := regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(prompt, -1)
	if len(named) < 3 {
		t.Fatalf("the prompt names %d fields in backquotes:\n%s", len(named), prompt)
	}
	for _, m := range named {
		if !props[m[1]] {
			t.Errorf("the prompt names the field %q, which no tool's output has", m[1])
		}
	}
}

// TestNoNullUnions: no tool's input or output schema has a type union with
// null, which strict hosts refuse.
func TestNoNullUnions(t *testing.T) {
	cs := connect(t, realIndex(t).Public())
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range listed.Tools {
		for what, s := range map[string]any{"input": tl.InputSchema, "output": tl.OutputSchema} {
			if j := jsonOf(s); strings.Contains(j, `"null"`) {
				t.Errorf("%s's %s schema has a union with null: %.300s", tl.Name, what, j[strings.Index(j, `"null"`)-60:])
			}
		}
	}
}
