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

// getTopicTool is the get_topic tool.
func getTopicTool(s *Server) mcptool.Tool {
	return newTool(&mcp.Tool{
		Name:        "get_topic",
		Title:       "Get a topic",
		Description: "Everything about one vocabulary term (a component such as coredns, a root cause such as config-change, a symptom, a contributing factor): its cases, the terms that co-occur with it and counts by year.",
		Annotations: mcptool.ReadOnly("Get a topic"),
	}, incidentlib.Text{EN: "Return a term's cases and the terms that co-occur.", KO: "용어 하나의 사례와 함께 나오는 용어를 돌려줍니다."},
		[]mcptool.Example{
			{Args: map[string]any{"term": "coredns"}, Want: "coredns"},
			{Args: map[string]any{"term": "config-change", "limit": 2, "offset": 2}, Want: "next_offset"},
			{Args: map[string]any{"term": "coredns", "limit": 2, "offset": 1, "lang": "ko"}, Want: "IL-"},
		},
		s.getTopic)
}

// TopicInput is the input of get_topic.
type TopicInput struct {
	Term   string `json:"term" jsonschema:"a term id such as coredns or config-change, or a label or alias that search reads (kube-dns, OOMKilled); vocab:term when an id exists in several vocabularies"`
	Lang   string `json:"lang,omitempty" jsonschema:"language of the answer: ko (default) or en"`
	Limit  int    `json:"limit,omitempty" jsonschema:"cases to list, 1 to 100 (default 10)"`
	Offset int    `json:"offset,omitempty" jsonschema:"cases to skip, for paging"`
}

// TermCount is a co-occurring term.
type TermCount struct {
	Term  string `json:"term"`
	Label string `json:"label"`
	Count int    `json:"count"`
}

// TopicOutput describes a topic.
type TopicOutput struct {
	Vocab       string                 `json:"vocab"`
	Term        string                 `json:"term"`
	Label       string                 `json:"label"`
	Description string                 `json:"description"`
	Total       int                    `json:"total"`
	Cases       []Item                 `json:"cases"`
	CoOccurring map[string][]TermCount `json:"co_occurring"`
	ByYear      map[string]int         `json:"by_year"`
	NextOffset  int                    `json:"next_offset,omitempty" jsonschema:"pass as offset for the next cases; absent on the last page"`
}

func (s *Server) getTopic(ctx context.Context, req *mcp.CallToolRequest, in TopicInput) (*mcp.CallToolResult, TopicOutput, error) {
	v := args{}
	v.str("lang", in.Lang)
	v.int("limit", in.Limit)
	v.int("offset", in.Offset)
	p, err := v.parse(search.RouteTopic)
	if err != nil {
		return nil, TopicOutput{}, err
	}
	l := p.Lang()
	tp, err := s.ix.Topic(strings.TrimSpace(in.Term), l)
	if err != nil {
		return nil, TopicOutput{}, fmt.Errorf("%w; the vocab tool lists the terms", err)
	}
	out := TopicOutput{Vocab: tp.Vocab, Term: tp.Term.ID, Label: tp.Term.Label.In(l), Description: tp.Term.Description.In(l),
		Total: len(tp.Cases), Cases: []Item{}, CoOccurring: map[string][]TermCount{}, ByYear: map[string]int{}}
	from := min(p.Query.Offset, len(tp.Cases))
	to := min(from+p.Limit(), len(tp.Cases))
	for _, c := range tp.Cases[from:to] {
		out.Cases = append(out.Cases, Item{ID: c.ID, Org: c.Org, Date: c.Date, Title: c.Title.In(l), RootCause: c.RootCause, URL: incidentlib.CaseURL(s.baseURL, c.ID)})
	}
	if to < len(tp.Cases) {
		out.NextOffset = to
	}
	for f, fcs := range tp.CoOccurring {
		for i, fc := range fcs {
			if i == 5 {
				break
			}
			out.CoOccurring[f] = append(out.CoOccurring[f], TermCount{fc.Term, fc.Label, fc.Count})
		}
	}
	for _, y := range tp.ByYear {
		out.ByYear[fmt.Sprint(y.Year)] = y.Count
	}
	return nil, out, nil
}
