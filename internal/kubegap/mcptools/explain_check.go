package mcptools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
	"github.com/incidentlib/incidentlib/internal/mcptool"
)

// explainCheckTool is the explain_check tool.
func explainCheckTool(o Options) mcptool.Tool {
	return newTool(&mcp.Tool{
		Name:        "explain_check",
		Title:       "Explain a check",
		Description: "What a check looks at, why (the summaries of the incidents it cites), how to fix what it finds, and what it cannot see.",
		Annotations: readOnly("Explain a check"),
	}, incidentlib.Text{
		EN: "Explain a check: what it looks at, the incidents behind it, how to fix what it finds and what it cannot see.",
		KO: "점검 하나가 무엇을 보는지, 어떤 장애 사례에서 나왔는지, 찾아낸 문제를 어떻게 고치는지, 무엇은 보지 못하는지 설명합니다.",
	}, []mcptool.Example{
		{Args: map[string]any{"id": "no-memory-limit"}, Want: "IL-0331"},
		{Args: map[string]any{"id": "dns-autoscaler-conntrack", "lang": "ko"}, Want: "IL-0049"},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, report.Explanation, error) {
		return explainCheck(o, in)
	}, nil)
}

// ExplainInput is explain_check's input.
type ExplainInput struct {
	ID   string `json:"id" jsonschema:"check id, as list_checks gives it"`
	Lang string `json:"lang,omitempty" jsonschema:"en (default) or ko"`
}

func explainCheck(o Options, in ExplainInput) (*mcp.CallToolResult, report.Explanation, error) {
	l, err := lang(in.Lang)
	if err != nil {
		return nil, report.Explanation{}, err
	}
	c := checks.Get(in.ID)
	if c == nil {
		return nil, report.Explanation{}, fmt.Errorf("unknown check %q; list_checks gives the ids", in.ID)
	}
	return nil, report.Explain(c, o.Corpus.Case, l), nil
}
