package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/mcptool"

	"github.com/incidentlib/incidentlib/internal/search"
)

// listIncidentsTool is the list_incidents tool.
func listIncidentsTool(s *Server) mcptool.Tool {
	return newTool(&mcp.Tool{
		Name:        "list_incidents",
		Title:       "List incidents",
		Description: "List cases without a query, newest first, optionally filtered by vocabulary terms, organisation or years. Use it to browse (e.g. every case with component cilium since 2022).",
		Annotations: mcptool.ReadOnly("List incidents"),
	}, incidentlib.Text{EN: "List cases matching filters, newest first.", KO: "조건에 맞는 사례를 최신순으로 나열합니다."},
		[]mcptool.Example{
			{Args: map[string]any{"limit": 2}, Want: "next_offset"},
			{Args: map[string]any{"filters": map[string]any{"severity": []string{"critical", "major"}}, "limit": 5}, Want: "IL-"},
			{Args: map[string]any{"filters": map[string]any{"components": []string{"coredns"}}, "sort": "date"}, Want: "IL-"},
			{Args: map[string]any{"offset": 10000}, Want: "items"},
		},
		s.listIncidents)
}

// ListInput is the input of list_incidents.
type ListInput struct {
	Lang    string   `json:"lang,omitempty" jsonschema:"language of the answer: ko (default) or en"`
	Filters *Filters `json:"filters,omitempty" jsonschema:"optional filters"`
	Sort    string   `json:"sort,omitempty" jsonschema:"date (newest first, default), -date (oldest first), or relevance (the same as date in a list without text)"`
	Limit   int      `json:"limit,omitempty" jsonschema:"results to return, 1 to 100 (default 10)"`
	Offset  int      `json:"offset,omitempty" jsonschema:"results to skip, for paging"`
}

func (s *Server) listIncidents(ctx context.Context, req *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	v := args{}
	v.str("lang", in.Lang)
	v.str("sort", in.Sort)
	v.int("limit", in.Limit)
	v.int("offset", in.Offset)
	in.Filters.add(v)
	p, err := v.parse(search.RouteSearch)
	if err != nil {
		return nil, ListOutput{}, err
	}
	q := p.Query
	q.Lang, q.Limit, q.NoFacets = p.Lang(), p.Limit(), true
	out, err := s.page(q)
	return nil, out, err
}
