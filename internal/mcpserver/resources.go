package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/search"
)

// Resources: a case as incident://IL-0049 (?lang=ko for Korean), a topic as
// topic://coredns. Both answer the JSON the matching tool gives.
func (s *Server) addResources() {
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "incident://{id}{?lang}",
		Name:        "incident",
		Title:       "One incident case",
		Description: "A case in one language, as get_incident returns it: incident://IL-0049 in English, incident://IL-0049?lang=ko in Korean.",
		MIMEType:    "application/json",
	}, s.readIncident)
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "topic://{term}{?lang}",
		Name:        "topic",
		Title:       "One vocabulary term as a topic",
		Description: "A term's cases, co-occurring terms and counts by year, as get_topic returns them: topic://coredns, topic://config-change?lang=ko.",
		MIMEType:    "application/json",
	}, s.readTopic)
	s.srv.AddPrompt(&mcp.Prompt{
		Name:        "investigate_error",
		Title:       "Investigate an error with past incidents",
		Description: "Paste an error message, a log line or a symptom; the prompt walks search_incidents, get_incident and similar_incidents to find past incidents with the same mechanism and what fixed them.",
		Arguments: []*mcp.PromptArgument{
			{Name: "error", Description: "the error message, log line or symptom, as seen", Required: true},
			{Name: "context", Description: "optional: where it happens (cluster, cloud, component, what changed)"},
		},
	}, s.investigatePrompt)
}

// resourceTarget splits incident://IL-0049?lang=ko into its host part and
// language.
func resourceTarget(raw, scheme string) (string, string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != scheme {
		return "", "", mcp.ResourceNotFoundError(raw)
	}
	name := u.Host
	if name == "" {
		name = strings.TrimPrefix(u.Opaque, "//")
	}
	p, err := args(u.Query()).parse(search.RouteCase)
	if err != nil {
		return "", "", resourceError(raw, err)
	}
	return name, p.Lang(), nil
}

func (s *Server) readIncident(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	id, l, err := resourceTarget(req.Params.URI, "incident")
	if err != nil {
		return nil, err
	}
	_, inc, err := s.getIncident(ctx, nil, GetInput{ID: id, Lang: l})
	if err != nil {
		return nil, resourceError(req.Params.URI, err)
	}
	return jsonResource(req.Params.URI, inc)
}

func (s *Server) readTopic(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	term, l, err := resourceTarget(req.Params.URI, "topic")
	if err != nil {
		return nil, err
	}
	_, tp, err := s.getTopic(ctx, nil, TopicInput{Term: term, Lang: l, Limit: 25})
	if err != nil {
		return nil, resourceError(req.Params.URI, err)
	}
	return jsonResource(req.Params.URI, tp)
}

func jsonResource(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

func (s *Server) investigatePrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	errText := strings.TrimSpace(req.Params.Arguments["error"])
	if errText == "" {
		return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "the error argument is empty; paste the error message, log line or symptom")
	}
	if len(errText) > 4000 {
		errText = errText[:4000]
	}
	where := strings.TrimSpace(req.Params.Arguments["context"])
	var b strings.Builder
	fmt.Fprintf(&b, "I am investigating this error:\n\n%s\n\n", errText)
	if where != "" {
		fmt.Fprintf(&b, "Where it happens: %s\n\n", where)
	}
	b.WriteString("Use the incidentlib tools to find past incidents with the same mechanism:\n" +
		"1. search_incidents with the error as the query (paste it whole; the answer's `notes` say how it was read and whether anything matches closely; each item's `snippet` shows the passage that matched).\n" +
		"2. For the two or three closest results, get_incident (view=summary first, then full for the ones that fit).\n" +
		"3. similar_incidents with the best case's `id`, to widen to cases that share its root cause or components (each item's `reason` says what is shared).\n" +
		"Then tell me: which past incidents match and why (quote the mechanism), what fixed them, which of their `action_items` apply here, and what to check first. Cite each case by its `id` and `url`. If nothing matches closely, say so instead of stretching a loose match.")
	return &mcp.GetPromptResult{
		Description: "Investigate an error with past incidents",
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: b.String()}}},
	}, nil
}
