package mcpserver

import (
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/mcptool"
	"github.com/incidentlib/incidentlib/internal/search"
)

// tools is the one list of the server's tools. Each is a constructor in its
// own file returning the tool (definition, About, examples, handler); the
// server, the API page, the tests and the CI Inspector check all read this
// list.
func (s *Server) tools() mcptool.List {
	return mcptool.List{
		searchIncidentsTool(s),
		getIncidentTool(s),
		listIncidentsTool(s),
		getTopicTool(s),
		vocabTool(s),
		similarIncidentsTool(s),
	}
}

// Tools is every tool, in the list's order, for the documents and checks
// that read them (their handlers are not to be called: they have no index).
func Tools() mcptool.List { return (&Server{}).tools() }

// newTool makes a tool of this server: its input schema takes the bounds,
// closed sets and language pattern of the parameter table, and its errors
// keep their kinds (toolError).
func newTool[In, Out any](def *mcp.Tool, about incidentlib.Text, examples []mcptool.Example, h mcp.ToolHandlerFor[In, Out]) mcptool.Tool {
	return mcptool.New(def, about, examples, h, mcptool.Options{Input: bound, Errors: toolError})
}

// bound completes a tool's input schema. The closed sets and
// bounds of the parameter table (lang, limit, offset, sort, the years of
// the filters) come from the table, so the API and MCP say the same and
// refuse the same values. (The descriptions stay MCP's own: they carry
// examples an agent needs.)
func bound(s *jsonschema.Schema) {
	boundProps := func(props map[string]*jsonschema.Schema) {
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
	boundProps(s.Properties)
	if f, ok := s.Properties["filters"]; ok {
		boundProps(f.Properties)
	}
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
