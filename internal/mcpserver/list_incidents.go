package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
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
		return nil, ListOutput{}, incidentlib.Errorf(incidentlib.ErrInvalid, "sort %q is not supported; use date or -date", in.Sort)
	}
	q := search.Query{Lang: l, Sort: sort, Limit: clampLimit(in.Limit), Offset: in.Offset, NoFacets: true}
	in.Filters.apply(&q)
	out, err := s.page(q)
	return nil, out, err
}
