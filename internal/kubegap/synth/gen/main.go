// Command gen writes the synthetic dumps that docs/PERFORMANCE.md (kubegap)
// measures: a 5,000-node, 150,000-pod cluster, or with -workloads an
// application repository's manifests (no Nodes, no Pods):
//
//	go run ./internal/kubegap/synth/gen -format json > /tmp/cluster.json
//	go run ./internal/kubegap/synth/gen -format yaml-docs -workloads 100x30 > /tmp/w.yaml
//	go run ./internal/kubegap/synth/gen -format yaml -workloads 100x30 -split /tmp/w/
//
// Formats: json and yaml (one kind: List, as kubectl get -o json|yaml
// prints), json-docs and yaml-docs (one object after another).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/incidentlib/incidentlib/internal/kubegap/synth"
)

func main() {
	format := flag.String("format", "json", "json, yaml (a kind: List), json-docs or yaml-docs (one object after another)")
	nodes := flag.Int("nodes", synth.Large.Nodes, "nodes")
	pods := flag.Int("pods", synth.Large.Pods, "pods")
	workloads := flag.String("workloads", "", "NAMESPACESxWORKLOADS (e.g. 100x30): workloads only, no nodes or pods")
	split := flag.String("split", "", "with -workloads: write one file per namespace into this folder")
	flag.Parse()
	var gen synth.Generator
	if *workloads != "" {
		var ns, per int
		if n, err := fmt.Sscanf(*workloads, "%dx%d", &ns, &per); n != 2 || err != nil || ns < 1 || per < 1 {
			fmt.Fprintf(os.Stderr, "gen: -workloads %q: want NAMESPACESxWORKLOADS, e.g. 100x30\n", *workloads)
			os.Exit(2)
		}
		gen = synth.Workloads(ns, per)
		if *split != "" {
			// One file per namespace, as in a repository (and under the
			// 10 MB a file that some linters skip).
			ext := map[string]string{"json": ".json", "json-docs": ".json"}[*format]
			if ext == "" {
				ext = ".yaml"
			}
			for n := 0; n < ns; n++ {
				f, err := os.Create(filepath.Join(*split, fmt.Sprintf("team-%03d%s", n, ext)))
				if err == nil {
					err = synth.Write(f, synth.Namespace(n, per), synth.Format(*format))
					if cerr := f.Close(); err == nil {
						err = cerr
					}
				}
				if err != nil {
					fmt.Fprintln(os.Stderr, "gen:", err)
					os.Exit(2)
				}
			}
			return
		}
	} else {
		s := synth.Large
		s.Nodes, s.Pods = *nodes, *pods
		gen = synth.Cluster(s)
	}
	if err := synth.Write(os.Stdout, gen, synth.Format(*format)); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
}
