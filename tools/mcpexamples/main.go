// Command mcpexamples prints the example calls of an MCP server's tools,
// from the tool registry, one JSON object a line: {"tool", "args",
// "want"}. With -names it prints the tools' names, one a line. -server
// picks the server: incidentlib (the default; internal/mcpserver) or
// kubegap (internal/kubegap/mcptools). The CI Inspector check
// (.ci/mcp-inspector.sh) calls each example with the MCP Inspector CLI, so
// that the tools it checks are the registry's, never a copy.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/incidentlib/incidentlib/internal/kubegap/mcptools"
	"github.com/incidentlib/incidentlib/internal/mcpserver"
	"github.com/incidentlib/incidentlib/internal/mcptool"
)

// servers are the MCP servers whose tools mcpexamples lists, by -server.
var servers = map[string]func() mcptool.List{
	"incidentlib": mcpserver.Tools,
	"kubegap":     mcptools.Tools,
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is mcpexamples with its arguments; it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpexamples", flag.ContinueOnError)
	fs.SetOutput(stderr)
	names := fs.Bool("names", false, "print the tools' names only")
	server := fs.String("server", "incidentlib", "the server whose tools to list: incidentlib or kubegap")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "mcpexamples takes no arguments; -names prints the tools' names, -server picks incidentlib or kubegap")
		return 2
	}
	list, ok := servers[*server]
	if !ok {
		fmt.Fprintf(stderr, "mcpexamples: no server %q; -server takes incidentlib or kubegap\n", *server)
		return 2
	}
	tools := list()
	if probs := tools.Check(); len(probs) > 0 {
		for _, p := range probs {
			fmt.Fprintln(stderr, "mcpexamples:", p)
		}
		return 1
	}
	if *names {
		for _, n := range tools.Names() {
			fmt.Fprintln(stdout, n)
		}
		return 0
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for _, t := range tools {
		for _, ex := range t.Examples {
			if err := enc.Encode(map[string]any{"tool": t.Def.Name, "args": ex.Args, "want": ex.Want}); err != nil {
				fmt.Fprintln(stderr, "mcpexamples:", err)
				return 1
			}
		}
	}
	return 0
}
