package mcptools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/mcpcase"
	"github.com/incidentlib/incidentlib/internal/mcptool"
)

// getIncidentTool is the get_incident tool: a case, and the checks that
// cite it.
func getIncidentTool(o Options) mcptool.Tool {
	return newTool(&mcp.Tool{
		Name:        "get_incident",
		Title:       "Get an incident case",
		Description: "One case of the incident library by id (IL-NNNN): summary, trigger, lessons, remediation, sources, and the kubegap checks that cite it.",
		Annotations: readOnly("Get an incident"),
	}, incidentlib.Text{
		EN: "Return one incident case by id, with the kubegap checks that cite it.",
		KO: "장애 사례 하나를 ID로 찾아, 그 사례를 근거로 삼는 kubegap 점검과 함께 돌려줍니다.",
	}, []mcptool.Example{
		{Args: map[string]any{"id": "IL-0049"}, Want: "IL-0049"},
		{Args: map[string]any{"id": "IL-0049", "view": "summary", "lang": "ko"}, Want: "dns-autoscaler-conntrack"},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in IncidentInput) (*mcp.CallToolResult, Incident, error) {
		return getIncident(o, in)
	}, nil)
}

// IncidentInput is get_incident's input.
type IncidentInput struct {
	ID   string `json:"id" jsonschema:"case id such as IL-0049"`
	Lang string `json:"lang,omitempty" jsonschema:"en (default) or ko"`
	View string `json:"view,omitempty" jsonschema:"full (default): every section; summary: title, summary, trigger, terms and sources only"`
}

// Incident is get_incident's answer: the case in one language, as
// incidentlib's MCP gives it, and the kubegap checks that cite it.
type Incident struct {
	mcpcase.Incident
	CitedBy []string `json:"cited_by" jsonschema:"the kubegap checks that cite the case"`
}

// MarshalJSON writes the case as mcpcase.Incident does, then cited_by.
func (inc Incident) MarshalJSON() ([]byte, error) {
	b, err := inc.Incident.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return mcpcase.AppendField(b, "cited_by", inc.CitedBy)
}

// OutputSchema is the schema of Incident, with the sections the table
// gives mcpcase.Incident.
func (Incident) OutputSchema() (*jsonschema.Schema, error) { return mcpcase.Schema[Incident]() }

func getIncident(o Options, in IncidentInput) (*mcp.CallToolResult, Incident, error) {
	l, err := lang(in.Lang)
	if err != nil {
		return nil, Incident{}, err
	}
	if !mcpcase.ValidView(in.View) {
		return nil, Incident{}, fmt.Errorf("view %q is not known; use full or summary", in.View)
	}
	k := o.Corpus.Case(strings.ToUpper(strings.TrimSpace(in.ID)))
	if k == nil {
		return nil, Incident{}, fmt.Errorf("no case %q in the corpus", in.ID)
	}
	inc := Incident{Incident: mcpcase.Project(k, l, in.View, ""), CitedBy: []string{}}
	for _, c := range checks.All() {
		for _, id := range c.Cases {
			if id == k.ID {
				inc.CitedBy = append(inc.CitedBy, c.ID)
			}
		}
	}
	return nil, inc, nil
}
