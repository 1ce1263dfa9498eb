package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib/internal/mcptool"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/search"
)

// vocabTool is the vocab tool.
func vocabTool(s *Server) mcptool.Tool {
	return newTool(&mcp.Tool{
		Name:        "vocab",
		Title:       "Controlled vocabulary",
		Description: "List the controlled terms (ids, labels and descriptions) of one vocabulary or of all: domain, symptoms, root_cause, components, contributing, severity. Use the ids as filters in search_incidents and list_incidents.",
		Annotations: mcptool.ReadOnly("Controlled vocabulary"),
	}, incidentlib.Text{EN: "Return the controlled vocabulary.", KO: "쓸 수 있는 용어 목록을 돌려줍니다."},
		[]mcptool.Example{
			{Args: map[string]any{}, Want: "config-change"},
			{Args: map[string]any{"vocab": "root_cause", "brief": true}, Want: "config-change"},
		},
		s.vocab)
}

// VocabInput is the input of vocab.
type VocabInput struct {
	Vocab string `json:"vocab,omitempty" jsonschema:"one vocabulary: domain, symptoms, root_cause, components, contributing or severity; empty for all"`
	Lang  string `json:"lang,omitempty" jsonschema:"language of labels: ko (default) or en"`
	Brief bool   `json:"brief,omitempty" jsonschema:"ids and labels only, without descriptions or aliases (about a third of the full answer)"`
}

// VocabTerm is one term.
type VocabTerm struct {
	ID          string   `json:"id"`
	Label       string   `json:"label"`
	Description string   `json:"description,omitempty"`
	Aliases     []string `json:"aliases,omitempty" jsonschema:"words people paste for the term (OOMKilled, CrashLoopBackOff, HPA); a search holding one finds the term's cases"`
}

// VocabOutput lists terms by vocabulary.
type VocabOutput struct {
	Vocabularies map[string][]VocabTerm `json:"vocabularies"`
}

func (s *Server) vocab(ctx context.Context, req *mcp.CallToolRequest, in VocabInput) (*mcp.CallToolResult, VocabOutput, error) {
	a := args{}
	a.str("lang", in.Lang)
	p, err := a.parse(search.RouteLists)
	if err != nil {
		return nil, VocabOutput{}, err
	}
	l := p.Lang()
	names := search.FilterFields
	if in.Vocab != "" {
		ok := false
		for _, n := range names {
			ok = ok || n == in.Vocab
		}
		if !ok {
			return nil, VocabOutput{}, incidentlib.Errorf(incidentlib.ErrInvalid, "no vocabulary %q; use one of %s", in.Vocab, strings.Join(names, ", "))
		}
		names = []string{in.Vocab}
	}
	out := VocabOutput{Vocabularies: map[string][]VocabTerm{}}
	v := s.ix.Vocab()
	for _, n := range names {
		for _, t := range v.Lists[n] {
			vt := VocabTerm{ID: t.ID, Label: t.Label.In(l)}
			if !in.Brief {
				vt.Description, vt.Aliases = t.Description.In(l), t.Aliases
			}
			out.Vocabularies[n] = append(out.Vocabularies[n], vt)
		}
	}
	return nil, out, nil
}
