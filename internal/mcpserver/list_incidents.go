package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/search"
)

// listIncidentsTool is the list_incidents tool.
func listIncidentsTool(s *Server) tool {
	return newTool(&mcp.Tool{
		Name:        "list_incidents",
		Title:       "List incidents",
		Description: "List cases without a query, newest first, optionally filtered by vocabulary terms, organisation or years. Use it to browse (e.g. every case with component cilium since 2022).",
		Annotations: readOnly("List incidents"),
	}, s.listIncidents)
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
