// Command mcpexamples prints the example calls of incidentlib's MCP tools,
// from the tool registry, one JSON object a line: {"tool", "args",
// "want"}. With -names it prints the tools' names, one a line. The CI
// Inspector check (.ci/mcp-inspector.sh) calls each example with the MCP
// Inspector CLI, so that the tools it checks are the registry's, never a
// copy.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/incidentlib/incidentlib/internal/mcpserver"
)

func main() {
	names := flag.Bool("names", false, "print the tools' names only")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "mcpexamples takes no arguments; -names prints the tools' names")
		os.Exit(2)
	}
	tools := mcpserver.Tools()
	if probs := tools.Check(); len(probs) > 0 {
		for _, p := range probs {
			fmt.Fprintln(os.Stderr, "mcpexamples:", p)
		}
		os.Exit(1)
	}
	if *names {
		for _, n := range tools.Names() {
			fmt.Println(n)
		}
		return
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for _, t := range tools {
		for _, ex := range t.Examples {
			if err := enc.Encode(map[string]any{"tool": t.Def.Name, "args": ex.Args, "want": ex.Want}); err != nil {
				fmt.Fprintln(os.Stderr, "mcpexamples:", err)
				os.Exit(1)
			}
		}
	}
}
