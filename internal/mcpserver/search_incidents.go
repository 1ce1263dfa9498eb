package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/mcptool"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/search"
)

// searchIncidentsTool is the search_incidents tool.
func searchIncidentsTool(s *Server) mcptool.Tool {
	return newTool(&mcp.Tool{
		Name:  "search_incidents",
		Title: "Search incidents",
		Description: "Search the incident library in Korean or English. Use it first when debugging or designing: paste a symptom, an error message, a log line, a metric name or a component (e.g. \"CoreDNS timeouts after scale-down\", \"conntrack_allowance_exceeded\", \"kube-apiserver OOM\"). " +
			"Optional filters narrow by vocabulary terms (see the vocab tool). Returns short items with a snippet; call get_incident for a whole case. Results are paged: pass next_offset back as offset for more.",
		Annotations: mcptool.ReadOnly("Search incidents"),
	}, incidentlib.Text{EN: "Find cases from a symptom, an error message or a log line.", KO: "증상, 오류 메시지, 로그 한 줄로 사례를 찾습니다."},
		[]mcptool.Example{
			{Args: map[string]any{"query": "kube-proxy conntrack DNS", "limit": 3}, Want: "IL-0049"},
			{Args: map[string]any{"query": "OOMKilled", "filters": map[string]any{"domain": []string{"kubernetes"}}, "limit": 3}, Want: "oom-kills"},
			{Args: map[string]any{"query": "롤아웃 중 DNS 오류", "lang": "ko"}, Want: "IL-"},
			{Args: map[string]any{"query": "printer toner office party"}, Want: "items"},
			{Args: map[string]any{"query": "etcd", "offset": 10000}, Want: "items"},
		},
		s.searchIncidents)
}

// SearchInput is the input of search_incidents.
type SearchInput struct {
	Query   string   `json:"query" jsonschema:"what to look for, in Korean or English: symptoms, error messages, log lines, components"`
	Lang    string   `json:"lang,omitempty" jsonschema:"language of the answer: ko (default) or en"`
	Filters *Filters `json:"filters,omitempty" jsonschema:"optional filters on vocabulary terms, organisation and years"`
	Limit   int      `json:"limit,omitempty" jsonschema:"results to return, 1 to 100 (default 10)"`
	Offset  int      `json:"offset,omitempty" jsonschema:"results to skip, for paging"`
}

func (s *Server) searchIncidents(ctx context.Context, req *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, ListOutput, error) {
	v := args{}
	v.str("lang", in.Lang)
	v.int("limit", in.Limit)
	v.int("offset", in.Offset)
	in.Filters.add(v)
	p, err := v.parse(search.RouteSearch)
	if err != nil {
		return nil, ListOutput{}, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, ListOutput{}, incidentlib.Errorf(incidentlib.ErrInvalid, "query is empty; describe the symptom or paste the error, or use list_incidents to browse")
	}
	q := p.Query
	q.Text, q.Lang, q.Limit, q.NoFacets = in.Query, p.Lang(), p.Limit(), true
	out, err := s.page(q)
	return nil, out, err
}
