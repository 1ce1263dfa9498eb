// Package mcptool is the one tool registry of both MCP servers,
// incidentlib's (over Streamable HTTP) and kubegap's (over stdio). A tool
// is one value: its definition, a line about it in both languages for the
// pages that list it, the example calls that the tests and the Inspector
// check make, and its typed handler. A server's tools are one List; the
// server, its documents and its checks all read that list, so adding a tool
// is its file and one line in the list.
package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/mcpschema"
)

// Tool is one MCP tool with its handler, its types erased so that tools
// with different inputs sit in one List.
type Tool struct {
	Def *mcp.Tool
	// About says in one line, in both languages, what the tool does: the
	// pages that list the tools show it.
	About incidentlib.Text
	// Examples are calls whose answers the tests and the Inspector check
	// hold the tool to; every tool has at least one.
	Examples []Example
	add      func(*mcp.Server)
}

// Example is one call of a tool and a word its answer must hold.
type Example struct {
	Args map[string]any
	Want string
}

// Options are what a server adds to every tool it builds.
type Options struct {
	// Input completes a tool's inferred input schema: the server's own
	// bounds and closed sets. Nil leaves it as inferred.
	Input func(*jsonschema.Schema)
	// Errors maps a handler's error: nil for none, a *jsonrpc.Error for a
	// failure of the server, anything else for an error result the caller
	// reads and acts on. Nil makes every error an error result.
	Errors func(error) error
}

// Summarizer is an answer that has a short text of its own for the
// content beside its structured form; other answers give their JSON.
type Summarizer interface{ Summary() string }

// OutputSchemer is an answer that gives its own schema (mcpcase.Incident
// adds the sections the table gives it); others' is inferred from Out.
type OutputSchemer interface {
	OutputSchema() (*jsonschema.Schema, error)
}

// New makes a tool: def completed with the input schema of In (through
// o.Input) and the output schema of Out, neither with a type union with
// null. The handler is registered raw, and does what the SDK's typed
// handler does (validate the arguments against the input schema with its
// defaults, decode them, answer the output as structured content and as
// text) save one thing: it does not validate each answer against the
// output schema, which can cost more than the answer; each server's tests
// hold every tool's answers to their schema instead. A definition whose
// schemas cannot be made is a panic at start.
func New[In, Out any](def *mcp.Tool, about incidentlib.Text, examples []Example, h mcp.ToolHandlerFor[In, Out], o Options) Tool {
	in := mcpschema.Input[In]()
	if o.Input != nil {
		o.Input(in)
	}
	def.InputSchema = in
	out, err := outputSchema[Out]()
	if err != nil {
		panic(fmt.Sprintf("tool %s: output schema: %v", def.Name, err))
	}
	def.OutputSchema = out
	resolved, err := in.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", def.Name, err))
	}
	mapErr := o.Errors
	if mapErr == nil {
		mapErr = func(err error) error { return err }
	}
	return Tool{Def: def, About: about, Examples: examples, add: func(srv *mcp.Server) {
		srv.AddTool(def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, err := validArguments(req.Params.Arguments, resolved)
			if err != nil {
				return ErrorResult(fmt.Errorf("validating \"arguments\": %v", err)), nil
			}
			var v In
			if err := json.Unmarshal(args, &v); err != nil {
				return ErrorResult(err), nil
			}
			res, answer, err := h(ctx, req, v)
			if err = mapErr(err); err != nil {
				if wire, ok := err.(*jsonrpc.Error); ok {
					return nil, wire
				}
				return ErrorResult(err), nil
			}
			if res == nil {
				res = &mcp.CallToolResult{}
			}
			b, err := json.Marshal(answer)
			if err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the tool's answer could not be encoded"}
			}
			res.StructuredContent = json.RawMessage(b)
			if res.Content == nil {
				text := string(b)
				if s, ok := any(answer).(Summarizer); ok {
					text = s.Summary()
				}
				res.Content = []mcp.Content{&mcp.TextContent{Text: text}}
			}
			return res, nil
		})
	}}
}

// List is a server's tools, in the order tools/list gives them.
type List []Tool

// Install registers every tool on srv.
func (l List) Install(srv *mcp.Server) {
	for _, t := range l {
		t.add(srv)
	}
}

// Defs are the definitions, in the list's order.
func (l List) Defs() []*mcp.Tool {
	out := make([]*mcp.Tool, len(l))
	for i, t := range l {
		out[i] = t.Def
	}
	return out
}

// Names are the tools' names, sorted.
func (l List) Names() []string {
	out := make([]string, len(l))
	for i, t := range l {
		out[i] = t.Def.Name
	}
	slices.Sort(out)
	return out
}

// Check reports what is wrong with the list: a tool without a name, a
// title, a description, an About in both languages or an example, an
// example that names an argument the input schema lacks, or two tools of
// one name. Each server's tests call it.
func (l List) Check() []string {
	var probs []string
	seen := map[string]bool{}
	for _, t := range l {
		d := t.Def
		switch {
		case d.Name == "" || d.Title == "" || d.Description == "":
			probs = append(probs, fmt.Sprintf("tool %q lacks a name, title or description", d.Name))
		case seen[d.Name]:
			probs = append(probs, fmt.Sprintf("two tools are named %s", d.Name))
		case t.About.EN == "" || t.About.KO == "":
			probs = append(probs, fmt.Sprintf("tool %s has no About in both languages", d.Name))
		case len(t.Examples) == 0:
			probs = append(probs, fmt.Sprintf("tool %s has no example call", d.Name))
		}
		seen[d.Name] = true
		in, _ := d.InputSchema.(*jsonschema.Schema)
		for _, ex := range t.Examples {
			for arg := range ex.Args {
				if in == nil || in.Properties[arg] == nil {
					probs = append(probs, fmt.Sprintf("an example of %s names %q, which its input schema lacks", d.Name, arg))
				}
			}
			if ex.Want == "" {
				probs = append(probs, fmt.Sprintf("an example of %s wants nothing of its answer", d.Name))
			}
		}
	}
	return probs
}

// ErrorResult is an error the caller reads: a tool result with isError.
func ErrorResult(err error) *mcp.CallToolResult {
	var r mcp.CallToolResult
	r.SetError(err)
	return &r
}

// ReadOnly is the annotation of a tool that changes nothing and reaches
// nothing beyond its own data.
func ReadOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: &f, IdempotentHint: true, OpenWorldHint: &f}
}

func outputSchema[Out any]() (*jsonschema.Schema, error) {
	var zero Out
	var s *jsonschema.Schema
	var err error
	if o, ok := any(zero).(OutputSchemer); ok {
		s, err = o.OutputSchema()
	} else {
		s, err = jsonschema.For[Out](&jsonschema.ForOptions{})
	}
	if err != nil {
		return nil, err
	}
	return mcpschema.Output(s), nil
}

// validArguments checks a call's arguments against the tool's input
// schema, with its defaults applied, as the SDK's typed handlers do.
func validArguments(raw json.RawMessage, resolved *jsonschema.Resolved) (json.RawMessage, error) {
	m := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("unmarshaling arguments: %w", err)
		}
	}
	if err := resolved.ApplyDefaults(&m); err != nil {
		return nil, err
	}
	if err := resolved.Validate(m); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}
