// Command gen writes the kubegap check index that incidentlib serve embeds
// (internal/checkindex/checks.json) from kubegap's registry:
//
//	go generate ./internal/checkindex
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/incidentlib/incidentlib/internal/checkindex"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
)

func main() {
	out := flag.String("o", "", "file to write (default: standard output)")
	flag.Parse()
	b, err := render(checks.All())
	if err == nil {
		if *out == "" {
			_, err = os.Stdout.Write(b)
		} else {
			err = os.WriteFile(*out, b, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// render writes the index of the checks of cs that cite a case, one check
// a line, in the order given (checks.All sorts by id). A check no case
// grounds has no place on a case page.
func render(all []*checks.Check) ([]byte, error) {
	var cs []*checks.Check
	for _, c := range all {
		if len(c.Cases) > 0 {
			cs = append(cs, c)
		}
	}
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i, c := range cs {
		b, err := json.Marshal(checkindex.Check{ID: c.ID, Severity: c.Severity.String(), Title: c.Title, Cases: c.Cases})
		if err != nil {
			return nil, err
		}
		buf.Write(b)
		if i < len(cs)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("]\n")
	if _, err := checkindex.Parse(buf.Bytes()); err != nil {
		return nil, fmt.Errorf("the registry makes an index that does not read back: %w", err)
	}
	return buf.Bytes(), nil
}
