package mcptools

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/mcptool"
)

// tools is the one list of kubegap's MCP tools. Each is a constructor in
// its own file returning the tool (definition, About in both languages,
// example calls, handler); the server, the tests and tools/mcpexamples all
// read this list, so adding a tool is its file and one line here.
func tools(o Options) mcptool.List {
	return mcptool.List{
		scanTool(o),
		listChecksTool(o),
		explainCheckTool(o),
		getIncidentTool(o),
	}
}

// Names are the tools' names, sorted, as Tools().Names() gives them, for
// the help text: building the tools infers their JSON schemas, which every
// kubegap command would otherwise pay for at start (TestNamesAreTheTools
// holds the two equal).
var Names = []string{"explain_check", "get_incident", "list_checks", "scan"}

// Tools is every tool, in the list's order, for the documents and checks
// that read them (their handlers are not to be called: they have no
// corpus).
func Tools() mcptool.List { return tools(Options{}) }

// newTool makes a kubegap tool. input completes its inferred input schema
// (nil leaves it as inferred). Every error a handler returns is an error
// result (isError) whose text the agent reads and acts on: kubegap's
// errors are about the call (an unknown check, input that cannot be read,
// a cluster that cannot be reached), never a secret of the server.
func newTool[In, Out any](def *mcp.Tool, about incidentlib.Text, examples []mcptool.Example, h mcp.ToolHandlerFor[In, Out], input func(*jsonschema.Schema)) mcptool.Tool {
	return mcptool.New(def, about, examples, h, mcptool.Options{Input: input})
}

// readOnly is the annotation of a tool that changes nothing. Unlike
// mcptool.ReadOnly it leaves the world open: a live scan reads a cluster.
func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &f, IdempotentHint: true, Title: title}
}
