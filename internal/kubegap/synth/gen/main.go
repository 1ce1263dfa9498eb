// Command gen writes the synthetic dump of a 5,000-node, 150,000-pod
// cluster that docs/PERFORMANCE.md (kubegap) measures:
//
//	go run ./internal/kubegap/synth/gen -format json > /tmp/cluster.json
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/incidentlib/incidentlib/internal/kubegap/synth"
)

func main() {
	format := flag.String("format", "json", "json or yaml")
	nodes := flag.Int("nodes", synth.Large.Nodes, "nodes")
	pods := flag.Int("pods", synth.Large.Pods, "pods")
	flag.Parse()
	s := synth.Large
	s.Nodes, s.Pods = *nodes, *pods
	var err error
	switch *format {
	case "json":
		err = synth.WriteJSON(os.Stdout, s)
	case "yaml":
		err = synth.WriteYAML(os.Stdout, s)
	default:
		err = fmt.Errorf("unknown format %q", *format)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
}
