// Package mcpserver exposes the library to AI agents as MCP tools, served
// over Streamable HTTP without sessions so that any replica can answer any
// call. Every tool is read-only and sized for an agent's context.
package mcpserver

import (
	"context"
	"fmt"
	"github.com/incidentlib/incidentlib/internal/mcpschema"
	"html"
	"net/http"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
)

// Caps keep answers small enough for an agent's context window.
const (
	DefaultLimit = 10
	MaxLimit     = 25
)

// Server holds the MCP server over an index.
type Server struct {
	ix      *search.Index
	baseURL string
	srv     *mcp.Server
}

// New builds the MCP server and registers its tools.
func New(ix *search.Index, baseURL, version string) *Server {
	s := &Server{ix: ix, baseURL: strings.TrimRight(baseURL, "/")}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "incidentlib", Title: "incidentlib: infrastructure incident library", Version: version}, &mcp.ServerOptions{
		Instructions: "A library of public infrastructure incident write-ups (Kubernetes, cloud networking, DNS, control planes, deploys), each a structured case IL-NNNN in Korean and English. " +
			"Use search_incidents with symptoms, error messages or log lines to find past incidents like the one at hand; get_incident for a whole case; similar_incidents to widen from one case; get_topic and vocab to browse by component, root cause or symptom. All tools are read-only. " +
			"Cases are also resources (incident://IL-0049, topic://coredns), and the prompt investigate_error walks the tools for a pasted error.",
		// Stateless: no session lives long enough to hear of a list change,
		// so none is promised.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
		},
	})
	ro := func(title string) *mcp.ToolAnnotations {
		f := false
		return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
	}
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "search_incidents",
		Title: "Search incidents",
		Description: "Search the incident library in Korean or English. Use it first when debugging or designing: paste a symptom, an error message, a log line, a metric name or a component (e.g. \"CoreDNS timeouts after scale-down\", \"conntrack_allowance_exceeded\", \"kube-apiserver OOM\"). " +
			"Optional filters narrow by vocabulary terms (see the vocab tool). Returns short items with a snippet; call get_incident for a whole case. Results are paged: pass next_offset back as offset for more.",
		Annotations: ro("Search incidents"),
		InputSchema: mcpschema.Input[SearchInput](),
	}, s.searchIncidents)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "get_incident",
		Title:       "Get an incident",
		Description: "Return one case in full (summary, trigger, symptoms, detection, remediation, action items, lessons, impact, sources) in one language. Use it after search_incidents or similar_incidents returned an id such as IL-0049.",
		Annotations: ro("Get an incident"),
		InputSchema: mcpschema.Input[GetInput](),
	}, s.getIncident)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "list_incidents",
		Title:       "List incidents",
		Description: "List cases without a query, newest first, optionally filtered by vocabulary terms, organisation or years. Use it to browse (e.g. every case with component cilium since 2022).",
		Annotations: ro("List incidents"),
		InputSchema: mcpschema.Input[ListInput](),
	}, s.listIncidents)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "get_topic",
		Title:       "Get a topic",
		Description: "Everything about one vocabulary term (a component such as coredns, a root cause such as config-change, a symptom, a contributing factor): its cases, the terms that co-occur with it and counts by year.",
		Annotations: ro("Get a topic"),
		InputSchema: mcpschema.Input[TopicInput](),
	}, s.getTopic)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "vocab",
		Title:       "Controlled vocabulary",
		Description: "List the controlled terms (ids, labels and descriptions) of one vocabulary or of all: domain, symptoms, root_cause, components, contributing, severity. Use the ids as filters in search_incidents and list_incidents.",
		Annotations: ro("Controlled vocabulary"),
		InputSchema: mcpschema.Input[VocabInput](),
	}, s.vocab)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "similar_incidents",
		Title:       "Similar incidents",
		Description: "Find the cases most similar to a case id, or to free text (a description of your incident, an error message), each with the reason it is similar (same root cause, shared components or symptoms).",
		Annotations: ro("Similar incidents"),
		InputSchema: mcpschema.Input[SimilarInput](),
	}, s.similarIncidents)
	s.addResources()
	return s
}

// MCP returns the underlying server, for in-process tests and stdio use.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Handler serves the tools over Streamable HTTP, stateless.
func (s *Server) Handler(jsonResponse bool) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        jsonResponse,
		MaxRequestBodyBytes: 1 << 20,
	})
}

// Filters narrow searches and lists. Values of one filter are ORed (a case
// matches with any of them); different filters are ANDed.
type Filters struct {
	Domain        []string `json:"domain,omitempty" jsonschema:"domain term ids, any of them, e.g. kubernetes, aws, dns"`
	Symptoms      []string `json:"symptoms,omitempty" jsonschema:"symptom term ids, any of them, e.g. dns-resolution-failures"`
	RootCause     []string `json:"root_cause,omitempty" jsonschema:"root cause term ids, any of them (a case has one), e.g. config-change, capacity-limit"`
	Components    []string `json:"components,omitempty" jsonschema:"component term ids, any of them, e.g. coredns, kube-apiserver, cilium"`
	ComponentsAll []string `json:"components_all,omitempty" jsonschema:"component term ids a case must all carry"`
	Contributing  []string `json:"contributing,omitempty" jsonschema:"contributing factor term ids, any of them, e.g. retry-storm"`
	Severity      []string `json:"severity,omitempty" jsonschema:"severity term ids, any of them: critical, major, minor, unknown"`
	Org           []string `json:"org,omitempty" jsonschema:"organisations by slug or name, case-insensitive, any of them, e.g. datadog or Datadog"`
	YearFrom      int      `json:"year_from,omitempty" jsonschema:"first year to include"`
	YearTo        int      `json:"year_to,omitempty" jsonschema:"last year to include"`
}

func (f *Filters) apply(q *search.Query) {
	if f == nil {
		return
	}
	q.Filters = map[string][]string{}
	for name, v := range map[string][]string{
		incidentlib.VocabDomain: f.Domain, incidentlib.VocabSymptoms: f.Symptoms, incidentlib.VocabRootCause: f.RootCause,
		incidentlib.VocabComponents: f.Components, incidentlib.VocabContributing: f.Contributing, incidentlib.VocabSeverity: f.Severity, "org": f.Org,
	} {
		if len(v) > 0 {
			q.Filters[name] = v
		}
	}
	if len(f.ComponentsAll) > 0 {
		q.AllOf = map[string][]string{incidentlib.VocabComponents: f.ComponentsAll}
	}
	q.YearFrom, q.YearTo = f.YearFrom, f.YearTo
}

// SearchInput is the input of search_incidents.
type SearchInput struct {
	Query   string   `json:"query" jsonschema:"what to look for, in Korean or English: symptoms, error messages, log lines, components"`
	Lang    string   `json:"lang,omitempty" jsonschema:"language of the answer: en (default) or ko"`
	Filters *Filters `json:"filters,omitempty" jsonschema:"optional filters on vocabulary terms, organisation and years"`
	Limit   int      `json:"limit,omitempty" jsonschema:"results to return, 1 to 25 (default 10)"`
	Offset  int      `json:"offset,omitempty" jsonschema:"results to skip, for paging"`
}

// Item is one case in a list.
type Item struct {
	ID        string `json:"id"`
	Org       string `json:"org"`
	Date      string `json:"date"`
	Title     string `json:"title"`
	RootCause string `json:"root_cause"`
	Snippet   string `json:"snippet,omitempty" jsonschema:"the matching passage; matched words between ** marks"`
	URL       string `json:"url"`
}

// ListOutput is a page of cases.
type ListOutput struct {
	Total      int      `json:"total"`
	Items      []Item   `json:"items"`
	NextOffset int      `json:"next_offset,omitempty" jsonschema:"pass as offset to get the next page; absent on the last page"`
	Notes      []string `json:"notes,omitempty"`
}

func lang(l string) (string, error) { return locale.ParseOr(l, "en") }

func clampLimit(n int) int {
	if n <= 0 {
		return DefaultLimit
	}
	if n > MaxLimit {
		return MaxLimit
	}
	return n
}

var markRE = regexp.MustCompile(`</?mark>`)

// plain turns an HTML snippet into text an agent reads, matches in **.
func plain(s string) string { return html.UnescapeString(markRE.ReplaceAllString(s, "**")) }

func (s *Server) page(q search.Query) (ListOutput, error) {
	res, err := s.ix.Search(q)
	if err != nil {
		return ListOutput{}, err
	}
	out := ListOutput{Total: res.Total, Items: []Item{}, Notes: res.Notes}
	for _, h := range res.Hits {
		out.Items = append(out.Items, Item{
			ID: h.Case.ID, Org: h.Case.Org, Date: h.Case.Date, Title: h.Case.Title.In(q.Lang),
			RootCause: h.Case.RootCause, Snippet: plain(h.Snippet), URL: s.baseURL + "/cases/" + h.Case.ID,
		})
	}
	if next := res.Offset + len(res.Hits); next < res.Total && len(res.Hits) > 0 {
		out.NextOffset = next
	}
	return out, nil
}

func (s *Server) searchIncidents(ctx context.Context, req *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, ListOutput, error) {
	l, err := lang(in.Lang)
	if err != nil {
		return nil, ListOutput{}, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, ListOutput{}, fmt.Errorf("query is empty; describe the symptom or paste the error, or use list_incidents to browse")
	}
	q := search.Query{Text: in.Query, Lang: l, Limit: clampLimit(in.Limit), Offset: in.Offset, NoFacets: true}
	in.Filters.apply(&q)
	out, err := s.page(q)
	return nil, out, err
}

// ListInput is the input of list_incidents.
type ListInput struct {
	Lang    string   `json:"lang,omitempty" jsonschema:"language of the answer: en (default) or ko"`
	Filters *Filters `json:"filters,omitempty" jsonschema:"optional filters"`
	Sort    string   `json:"sort,omitempty" jsonschema:"date (newest first, default) or -date (oldest first)"`
	Limit   int      `json:"limit,omitempty" jsonschema:"results to return, 1 to 25 (default 10)"`
	Offset  int      `json:"offset,omitempty" jsonschema:"results to skip, for paging"`
}

func (s *Server) listIncidents(ctx context.Context, req *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	l, err := lang(in.Lang)
	if err != nil {
		return nil, ListOutput{}, err
	}
	sort := in.Sort
	if sort == "" {
		sort = search.SortNewest
	}
	if sort != search.SortNewest && sort != search.SortOldest {
		return nil, ListOutput{}, fmt.Errorf("sort %q is not supported; use date or -date", in.Sort)
	}
	q := search.Query{Lang: l, Sort: sort, Limit: clampLimit(in.Limit), Offset: in.Offset, NoFacets: true}
	in.Filters.apply(&q)
	out, err := s.page(q)
	return nil, out, err
}

// GetInput is the input of get_incident.
type GetInput struct {
	ID   string `json:"id" jsonschema:"the case id, e.g. IL-0049"`
	Lang string `json:"lang,omitempty" jsonschema:"language of the answer: en (default) or ko"`
	View string `json:"view,omitempty" jsonschema:"full (default): every section; summary: title, summary, trigger, terms and sources only"`
}

// Incident is one case in one language.
type Incident struct {
	ID            string              `json:"id"`
	Org           string              `json:"org"`
	Date          string              `json:"date"`
	DateKind      string              `json:"date_kind"`
	Title         string              `json:"title"`
	Summary       string              `json:"summary"`
	Trigger       string              `json:"trigger"`
	Symptoms      string              `json:"symptoms,omitempty"`
	Detection     string              `json:"detection,omitempty"`
	Remediation   []string            `json:"remediation,omitempty"`
	ActionItems   []string            `json:"action_items,omitempty"`
	Lessons       string              `json:"lessons,omitempty"`
	Impact        incidentlib.Impact  `json:"impact"`
	Severity      string              `json:"severity"`
	RootCause     string              `json:"root_cause"`
	Terms         map[string][]string `json:"terms" jsonschema:"vocabulary terms by vocabulary: domain, symptoms, components, contributing"`
	DetectedAfter string              `json:"detected_after,omitempty"`
	ResolvedAfter string              `json:"resolved_after,omitempty"`
	Timeline      []TimelineEvent     `json:"timeline,omitempty" jsonschema:"the times the write-up gives, in order, as it gives them"`
	Sources       []string            `json:"sources"`
	Related       []string            `json:"related"`
	Reviewed      bool                `json:"reviewed" jsonschema:"whether a person has checked the case against its sources"`
	URL           string              `json:"url"`
}

// TimelineEvent is one moment of an incident's timeline.
type TimelineEvent struct {
	At   string `json:"at"`
	Text string `json:"text"`
}

func events(evs []incidentlib.Event, l string) []TimelineEvent {
	var out []TimelineEvent
	for _, e := range evs {
		out = append(out, TimelineEvent{At: e.At, Text: e.Text.In(l)})
	}
	return out
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (s *Server) getIncident(ctx context.Context, req *mcp.CallToolRequest, in GetInput) (*mcp.CallToolResult, Incident, error) {
	l, err := lang(in.Lang)
	if err != nil {
		return nil, Incident{}, err
	}
	id := strings.ToUpper(strings.TrimSpace(in.ID))
	c := s.ix.Case(id)
	if c == nil || c.Private {
		return nil, Incident{}, fmt.Errorf("no case %q; ids look like IL-0049 (search_incidents finds them)", in.ID)
	}
	if in.View != "" && in.View != "full" && in.View != "summary" {
		return nil, Incident{}, fmt.Errorf("view %q is not known; use full or summary", in.View)
	}
	inc := Incident{
		ID: c.ID, Org: c.Org, Date: c.Date, DateKind: c.DateKind, Impact: c.Impact,
		DetectedAfter: deref(c.Timeline.DetectedAfter), ResolvedAfter: deref(c.Timeline.ResolvedAfter),
		Related: c.Related, Reviewed: c.Reviewed(), URL: s.baseURL + "/cases/" + c.ID,
	}
	// The sections of the table; view=summary keeps what an agent needs to
	// judge whether to read on.
	fillSections(&inc, c, s.ix.Vocab(), l, in.View == "summary")
	return nil, inc, nil
}

// TopicInput is the input of get_topic.
type TopicInput struct {
	Term   string `json:"term" jsonschema:"a term id such as coredns or config-change; vocab:term when an id exists in several vocabularies"`
	Lang   string `json:"lang,omitempty" jsonschema:"language of the answer: en (default) or ko"`
	Limit  int    `json:"limit,omitempty" jsonschema:"cases to list, 1 to 25 (default 10)"`
	Offset int    `json:"offset,omitempty" jsonschema:"cases to skip, for paging"`
}

// TermCount is a co-occurring term.
type TermCount struct {
	Term  string `json:"term"`
	Label string `json:"label"`
	Count int    `json:"count"`
}

// TopicOutput describes a topic.
type TopicOutput struct {
	Vocab       string                 `json:"vocab"`
	Term        string                 `json:"term"`
	Label       string                 `json:"label"`
	Description string                 `json:"description"`
	Total       int                    `json:"total"`
	Cases       []Item                 `json:"cases"`
	CoOccurring map[string][]TermCount `json:"co_occurring"`
	ByYear      map[string]int         `json:"by_year"`
	NextOffset  int                    `json:"next_offset,omitempty" jsonschema:"pass as offset for the next cases; absent on the last page"`
}

func (s *Server) getTopic(ctx context.Context, req *mcp.CallToolRequest, in TopicInput) (*mcp.CallToolResult, TopicOutput, error) {
	l, err := lang(in.Lang)
	if err != nil {
		return nil, TopicOutput{}, err
	}
	tp, err := s.ix.Topic(strings.TrimSpace(in.Term), l, false)
	if err != nil {
		return nil, TopicOutput{}, fmt.Errorf("%v; the vocab tool lists the terms", err)
	}
	out := TopicOutput{Vocab: tp.Vocab, Term: tp.Term.ID, Label: tp.Term.Label.In(l), Description: tp.Term.Description.In(l),
		Total: len(tp.Cases), Cases: []Item{}, CoOccurring: map[string][]TermCount{}, ByYear: map[string]int{}}
	from := min(max(in.Offset, 0), len(tp.Cases))
	to := min(from+clampLimit(in.Limit), len(tp.Cases))
	for _, c := range tp.Cases[from:to] {
		out.Cases = append(out.Cases, Item{ID: c.ID, Org: c.Org, Date: c.Date, Title: c.Title.In(l), RootCause: c.RootCause, URL: s.baseURL + "/cases/" + c.ID})
	}
	if to < len(tp.Cases) {
		out.NextOffset = to
	}
	for f, fcs := range tp.CoOccurring {
		for i, fc := range fcs {
			if i == 5 {
				break
			}
			out.CoOccurring[f] = append(out.CoOccurring[f], TermCount{fc.Term, fc.Label, fc.Count})
		}
	}
	for _, y := range tp.ByYear {
		out.ByYear[fmt.Sprint(y.Year)] = y.Count
	}
	return nil, out, nil
}

// VocabInput is the input of vocab.
type VocabInput struct {
	Vocab string `json:"vocab,omitempty" jsonschema:"one vocabulary: domain, symptoms, root_cause, components, contributing or severity; empty for all"`
	Lang  string `json:"lang,omitempty" jsonschema:"language of labels: en (default) or ko"`
	Brief bool   `json:"brief,omitempty" jsonschema:"ids and labels only, with the aliases people paste, without descriptions (about a fifth of the size)"`
}

// VocabTerm is one term.
type VocabTerm struct {
	ID          string   `json:"id"`
	Label       string   `json:"label"`
	Description string   `json:"description,omitempty"`
	Aliases     []string `json:"aliases,omitempty" jsonschema:"words people paste for the term (OOMKilled, CrashLoopBackOff, HPA); a search holding one finds the term's cases"`
}

// VocabOutput lists terms by vocabulary.
type VocabOutput struct {
	Vocabularies map[string][]VocabTerm `json:"vocabularies"`
}

func (s *Server) vocab(ctx context.Context, req *mcp.CallToolRequest, in VocabInput) (*mcp.CallToolResult, VocabOutput, error) {
	l, err := lang(in.Lang)
	if err != nil {
		return nil, VocabOutput{}, err
	}
	names := search.FilterFields
	if in.Vocab != "" {
		ok := false
		for _, n := range names {
			ok = ok || n == in.Vocab
		}
		if !ok {
			return nil, VocabOutput{}, fmt.Errorf("no vocabulary %q; use one of %s", in.Vocab, strings.Join(names, ", "))
		}
		names = []string{in.Vocab}
	}
	out := VocabOutput{Vocabularies: map[string][]VocabTerm{}}
	v := s.ix.Vocab()
	for _, n := range names {
		for _, t := range v.Lists[n] {
			vt := VocabTerm{ID: t.ID, Label: t.Label.In(l), Aliases: t.Aliases}
			if !in.Brief {
				vt.Description = t.Description.In(l)
			}
			out.Vocabularies[n] = append(out.Vocabularies[n], vt)
		}
	}
	return nil, out, nil
}

// SimilarInput is the input of similar_incidents.
type SimilarInput struct {
	ID     string `json:"id,omitempty" jsonschema:"a case id such as IL-0049; give this or text"`
	Text   string `json:"text,omitempty" jsonschema:"free text: a description of an incident, an error message or a log line; give this or id"`
	Lang   string `json:"lang,omitempty" jsonschema:"language of the answer: en (default) or ko"`
	Limit  int    `json:"limit,omitempty" jsonschema:"results to return, 1 to 25 (default 10)"`
	Offset int    `json:"offset,omitempty" jsonschema:"results to skip, for paging (up to 75 similar cases in all)"`
}

// SimilarItem is a similar case with its reason.
type SimilarItem struct {
	ID     string  `json:"id"`
	Org    string  `json:"org"`
	Date   string  `json:"date"`
	Title  string  `json:"title"`
	Score  float64 `json:"score"`
	Reason string  `json:"reason" jsonschema:"why it is similar, e.g. same root cause, shared components"`
	URL    string  `json:"url"`
}

// SimilarOutput lists similar cases.
type SimilarOutput struct {
	Items      []SimilarItem `json:"items"`
	NextOffset int           `json:"next_offset,omitempty" jsonschema:"pass as offset for more; absent on the last page"`
}

// maxSimilar is how far similar_incidents pages: past it the cases share
// too little to be worth reading.
const maxSimilar = 75

func (s *Server) similarIncidents(ctx context.Context, req *mcp.CallToolRequest, in SimilarInput) (*mcp.CallToolResult, SimilarOutput, error) {
	l, err := lang(in.Lang)
	if err != nil {
		return nil, SimilarOutput{}, err
	}
	var sims []search.Similar
	offset := min(max(in.Offset, 0), maxSimilar)
	want := min(offset+clampLimit(in.Limit)+1, maxSimilar+1) // one more, to know whether there is a next page
	switch {
	case in.ID != "" && in.Text != "":
		return nil, SimilarOutput{}, fmt.Errorf("give either id or text, not both")
	case in.ID != "":
		sims, err = s.ix.SimilarTo(strings.ToUpper(strings.TrimSpace(in.ID)), want, false)
		if err != nil {
			return nil, SimilarOutput{}, fmt.Errorf("%v; ids look like IL-0049", err)
		}
	case strings.TrimSpace(in.Text) != "":
		sims = s.ix.SimilarText(in.Text, want, false)
	default:
		return nil, SimilarOutput{}, fmt.Errorf("give id (a case id) or text (a description or error message)")
	}
	out := SimilarOutput{Items: []SimilarItem{}}
	more := len(sims) > offset+clampLimit(in.Limit) && offset+clampLimit(in.Limit) < maxSimilar
	sims = sims[min(offset, len(sims)):min(offset+clampLimit(in.Limit), len(sims))]
	if more {
		out.NextOffset = offset + clampLimit(in.Limit)
	}
	for _, x := range sims {
		out.Items = append(out.Items, SimilarItem{x.Case.ID, x.Case.Org, x.Case.Date, x.Case.Title.In(l), float64(int(x.Score*1000)) / 1000, x.Reason.Label.In(l), s.baseURL + "/cases/" + x.Case.ID})
	}
	return nil, out, nil
}
