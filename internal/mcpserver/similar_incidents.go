package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/mcptool"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/search"
)

// similarIncidentsTool is the similar_incidents tool.
func similarIncidentsTool(s *Server) mcptool.Tool {
	return newTool(&mcp.Tool{
		Name:        "similar_incidents",
		Title:       "Similar incidents",
		Description: "Find the cases most similar to a case id, or to free text (a description of your incident, an error message), each with the reason it is similar (same root cause, shared components or symptoms).",
		Annotations: mcptool.ReadOnly("Similar incidents"),
	}, incidentlib.Text{EN: "Return the cases most like a given one, with reasons.", KO: "어떤 사례와 비슷한 사례를 이유와 함께 돌려줍니다."},
		[]mcptool.Example{
			{Args: map[string]any{"id": "IL-0049", "limit": 3}, Want: "reason"},
			{Args: map[string]any{"text": "CoreDNS timeouts after scale-down"}, Want: "IL-"},
		},
		s.similarIncidents)
}

// SimilarInput is the input of similar_incidents.
type SimilarInput struct {
	ID     string `json:"id,omitempty" jsonschema:"a case id such as IL-0049; give this or text"`
	Text   string `json:"text,omitempty" jsonschema:"free text: a description of an incident, an error message or a log line; give this or id"`
	Lang   string `json:"lang,omitempty" jsonschema:"language of the answer: ko (default) or en"`
	Limit  int    `json:"limit,omitempty" jsonschema:"results to return, 1 to 100 (default 10)"`
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
	v := args{}
	v.str("lang", in.Lang)
	v.int("limit", in.Limit)
	v.int("offset", in.Offset)
	p, err := v.parse(search.RouteSimilar)
	if err != nil {
		return nil, SimilarOutput{}, err
	}
	var sims []search.Similar
	l, limit := p.Lang(), p.Limit()
	offset := min(p.Query.Offset, maxSimilar)
	want := min(offset+limit+1, maxSimilar+1) // one more, to know whether there is a next page
	switch {
	case in.ID != "" && in.Text != "":
		return nil, SimilarOutput{}, incidentlib.Errorf(incidentlib.ErrInvalid, "give either id or text, not both")
	case in.ID != "":
		sims, err = s.ix.SimilarTo(strings.ToUpper(strings.TrimSpace(in.ID)), want)
		if err != nil {
			return nil, SimilarOutput{}, fmt.Errorf("%w; ids look like IL-0049", err)
		}
	case strings.TrimSpace(in.Text) != "":
		sims = s.ix.SimilarText(in.Text, want)
	default:
		return nil, SimilarOutput{}, incidentlib.Errorf(incidentlib.ErrInvalid, "give id (a case id) or text (a description or error message)")
	}
	out := SimilarOutput{Items: []SimilarItem{}}
	more := len(sims) > offset+limit && offset+limit < maxSimilar
	sims = sims[min(offset, len(sims)):min(offset+limit, len(sims))]
	if more {
		out.NextOffset = offset + limit
	}
	for _, x := range sims {
		out.Items = append(out.Items, SimilarItem{x.Case.ID, x.Case.Org, x.Case.Date, x.Case.Title.In(l), float64(int(x.Score*1000)) / 1000, x.Reason.Label.In(l), incidentlib.CaseURL(s.baseURL, x.Case.ID)})
	}
	return nil, out, nil
}
