// Command kubegap reads a Kubernetes cluster (or manifests) read-only and
// reports the gaps that past incidents exposed, each finding citing its
// cases. Installed as kubectl-gap it runs as `kubectl gap`.
package main

import (
	"os"

	// First, so that the libraries' initialisation runs under its setting.
	_ "github.com/incidentlib/incidentlib/internal/gctune"
	"github.com/incidentlib/incidentlib/internal/kubegap/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
