package mcptools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
	"github.com/incidentlib/incidentlib/internal/mcptool"
)

// listChecksTool is the list_checks tool: the catalogue.
func listChecksTool(Options) mcptool.Tool {
	return newTool(&mcp.Tool{
		Name:        "list_checks",
		Title:       "List kubegap's checks",
		Description: "The catalogue: id, severity, title, the kinds each check reads and the incident ids that ground it.",
		Annotations: readOnly("List checks"),
	}, incidentlib.Text{
		EN: "List kubegap's checks: each one's severity, the kinds it reads and the cases that ground it.",
		KO: "kubegap의 점검 항목을 심각도, 읽는 리소스 종류, 근거가 된 사례와 함께 나열합니다.",
	}, []mcptool.Example{
		{Args: map[string]any{}, Want: "no-memory-limit"},
	}, listChecks, nil)
}

// ListInput is list_checks' input.
type ListInput struct {
	Lang string `json:"lang,omitempty" jsonschema:"en (default) or ko"`
}

// ListOutput is list_checks' answer.
type ListOutput struct {
	Checks []report.CatalogueEntry `json:"checks"`
}

func listChecks(_ context.Context, _ *mcp.CallToolRequest, in ListInput) (*mcp.CallToolResult, ListOutput, error) {
	if _, err := lang(in.Lang); err != nil {
		return nil, ListOutput{}, err
	}
	return nil, ListOutput{Checks: report.Catalogue(checks.All())}, nil
}
