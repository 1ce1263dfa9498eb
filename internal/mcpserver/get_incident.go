package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/mcptool"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/mcpcase"
	"github.com/incidentlib/incidentlib/internal/search"
)

// getIncidentTool is the get_incident tool.
func getIncidentTool(s *Server) mcptool.Tool {
	return newTool(&mcp.Tool{
		Name:        "get_incident",
		Title:       "Get an incident",
		Description: "Return one case in full (summary, trigger, symptoms, detection, remediation, action items, lessons, impact, sources) in one language. Use it after search_incidents or similar_incidents returned an id such as IL-0049.",
		Annotations: mcptool.ReadOnly("Get an incident"),
	}, incidentlib.Text{EN: "Fetch one case in full.", KO: "사례 하나를 전부 가져옵니다."},
		[]mcptool.Example{
			{Args: map[string]any{"id": "IL-0049"}, Want: "conntrack"},
			{Args: map[string]any{"id": "IL-0195", "lang": "ko"}, Want: "cilium"},
			{Args: map[string]any{"id": "IL-0461", "view": "summary", "lang": "en"}, Want: "IL-0461"},
		},
		s.getIncident)
}

// GetInput is the input of get_incident.
type GetInput struct {
	ID   string `json:"id" jsonschema:"the case id, e.g. IL-0049"`
	Lang string `json:"lang,omitempty" jsonschema:"language of the answer: ko (default) or en"`
	View string `json:"view,omitempty" jsonschema:"full (default): every section; summary: title, summary, trigger, terms and sources only"`
}

func (s *Server) getIncident(ctx context.Context, req *mcp.CallToolRequest, in GetInput) (*mcp.CallToolResult, mcpcase.Incident, error) {
	v := args{}
	v.str("lang", in.Lang)
	p, err := v.parse(search.RouteCase)
	if err != nil {
		return nil, mcpcase.Incident{}, err
	}
	l := p.Lang()
	if !mcpcase.ValidView(in.View) {
		return nil, mcpcase.Incident{}, incidentlib.Errorf(incidentlib.ErrInvalid, "view %q is not known; use full or summary", in.View)
	}
	id := strings.ToUpper(strings.TrimSpace(in.ID))
	c := s.ix.Case(id)
	if c == nil {
		return nil, mcpcase.Incident{}, incidentlib.Errorf(incidentlib.ErrNotFound, "no case %q; ids look like IL-0049 (search_incidents finds them)", in.ID)
	}
	return nil, mcpcase.Project(c, l, in.View, incidentlib.CaseURL(s.baseURL, c.ID)), nil
}
