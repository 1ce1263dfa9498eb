package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/mcpschema"
	"github.com/incidentlib/incidentlib/internal/search"
)

// tools is the one list of the server's tools. Each is a constructor in its
// own file returning the tool's definition and handler; the server, the
// API page, the README and the CI Inspector check all follow this list
// (tests hold the documents to it).
func (s *Server) tools() []tool {
	return []tool{
		searchIncidentsTool(s),
		getIncidentTool(s),
		listIncidentsTool(s),
		getTopicTool(s),
		vocabTool(s),
		similarIncidentsTool(s),
	}
}

// Tools returns the definitions of every tool, in the list's order, for
// the documents that name them.
func Tools() []*mcp.Tool {
	var out []*mcp.Tool
	for _, t := range (&Server{}).tools() {
		out = append(out, t.def)
	}
	return out
}

// tool is a definition with the handler that serves it, its types erased
// so that tools with different inputs sit in one list.
type tool struct {
	def *mcp.Tool
	add func(*mcp.Server)
}

// newTool completes def (its input schema comes from In, with the bounds
// of the search parameter table; its output schema from Out) and wraps h
// so that its errors keep their kinds.
//
// The handler is registered raw, and does what the SDK's typed handler
// does (validate the arguments against the input schema, decode them,
// answer the output as structured content and as its JSON text) save one
// thing: it does not validate each answer against the output schema,
// which cost more than the search itself. TestOutputsMatchSchemas holds
// every tool's answers to their schema instead.
func newTool[In, Out any](def *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) tool {
	in := inputSchema[In]()
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
	return tool{def: def, add: func(srv *mcp.Server) {
		srv.AddTool(def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, err := validArguments(req.Params.Arguments, resolved)
			if err != nil {
				return errorResult(fmt.Errorf("validating \"arguments\": %v", err)), nil
			}
			var v In
			if err := json.Unmarshal(args, &v); err != nil {
				return errorResult(err), nil
			}
			res, o, err := h(ctx, req, v)
			if err = toolError(err); err != nil {
				if wire, ok := err.(*jsonrpc.Error); ok {
					return nil, wire
				}
				return errorResult(err), nil
			}
			if res == nil {
				res = &mcp.CallToolResult{}
			}
			b, err := json.Marshal(o)
			if err != nil {
				return nil, toolError(fmt.Errorf("marshaling output: %w", err))
			}
			res.StructuredContent = json.RawMessage(b)
			if res.Content == nil {
				text := string(b)
				if s, ok := any(o).(summarizer); ok {
					text = s.summary()
				}
				res.Content = []mcp.Content{&mcp.TextContent{Text: text}}
			}
			return res, nil
		})
	}}
}

// outputSchema is the schema of Out's answers: the one Out gives itself
// (mcpcase.Incident adds the sections the table gives it), or the one
// inferred from its fields.
// Neither has a type union with null: hosts that refuse them in inputs
// refuse them in outputs too.
func outputSchema[Out any]() (*jsonschema.Schema, error) {
	var zero Out
	var s *jsonschema.Schema
	var err error
	if o, ok := any(zero).(interface {
		OutputSchema() (*jsonschema.Schema, error)
	}); ok {
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

func errorResult(err error) *mcp.CallToolResult {
	var r mcp.CallToolResult
	r.SetError(err)
	return &r
}

func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
}

// inputSchema is the input schema of a tool taking T. The closed sets and
// bounds of the parameter table (lang, limit, offset, sort, the years of
// the filters) come from the table, so the API and MCP say the same and
// refuse the same values. (The descriptions stay MCP's own: they carry
// examples an agent needs.)
func inputSchema[T any]() *jsonschema.Schema {
	s := mcpschema.Input[T]()
	bound := func(props map[string]*jsonschema.Schema) {
		for name, p := range props {
			sp := search.ParamNamed(name)
			if sp == nil || sp.Faces&search.FaceMCP == 0 {
				continue
			}
			switch sp.Kind {
			case search.KindLang:
				// The one language rule: ko or en in any case, a region
				// or encoding after it ignored.
				p.Pattern = search.LangPattern
			case search.KindEnum:
				p.Enum = toAny(sp.Enum)
			case search.KindInt:
				lo := float64(sp.Min)
				p.Minimum = &lo
				if sp.Max > 0 {
					hi := float64(sp.Max)
					p.Maximum = &hi
				}
			}
		}
	}
	bound(s.Properties)
	if f, ok := s.Properties["filters"]; ok {
		bound(f.Properties)
	}
	return s
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// The shared error kinds, as MCP gives them. Bad input and a missing case
// are the caller's to fix: they are tool results with isError, whose text
// an agent reads and acts on. Anything else is the server's failure: a
// JSON-RPC internal error without its detail.
var errorKinds = []error{incidentlib.ErrInvalid, incidentlib.ErrNotFound}

func toolError(err error) error {
	if err == nil {
		return nil
	}
	for _, k := range errorKinds {
		if errors.Is(err, k) {
			return err
		}
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return err
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the tool failed on the server; try again, or report it if it persists"}
}

// resourceError maps an error of reading uri: a missing case or topic is
// the protocol's resource-not-found, bad input invalid params.
func resourceError(uri string, err error) error {
	switch {
	case errors.Is(err, incidentlib.ErrNotFound):
		return mcp.ResourceNotFoundError(uri)
	case errors.Is(err, incidentlib.ErrInvalid):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	return toolError(err)
}
