// Package exitcode writes what a command's help says of its exit codes,
// the same way for incidentlib and kubegap.
package exitcode

import (
	"fmt"
	"strings"
)

// Code is an exit code and what it means; a meaning may run over lines.
type Code struct {
	Code    int
	Meaning string
}

// Help lists codes in their order under "Exit codes:", each meaning's
// further lines indented under its first.
func Help(codes []Code) string {
	var b strings.Builder
	b.WriteString("Exit codes:")
	for _, e := range codes {
		fmt.Fprintf(&b, "\n  %d  %s", e.Code, strings.ReplaceAll(e.Meaning, "\n", "\n     "))
	}
	return b.String()
}
