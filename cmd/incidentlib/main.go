// Command incidentlib loads, checks, searches and serves the incident library.
package main

import (
	"os"

	"github.com/incidentlib/incidentlib/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
