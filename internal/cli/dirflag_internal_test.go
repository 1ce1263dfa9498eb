package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestDirRefusedWhereUnused: a command that does not declare readsDir
// refuses --dir with a message instead of ignoring it; every command the
// root has today declares it.
func TestDirRefusedWhereUnused(t *testing.T) {
	var out, errb bytes.Buffer
	root := newRoot(strings.NewReader(""), &out, &errb)
	for _, c := range root.Commands() {
		if c.Annotations[dirAnnotation] == "" && c.Name() != "help" && c.Name() != "completion" {
			t.Errorf("%s does not say whether it reads --dir", c.Name())
		}
	}
	ran := false
	root.AddCommand(&cobra.Command{Use: "noop", RunE: func(*cobra.Command, []string) error { ran = true; return nil }})
	root.SetArgs([]string{"noop", "--dir", "/tmp"})
	err := root.Execute()
	if err == nil || ran || !strings.Contains(err.Error(), "--dir would have no effect") {
		t.Fatalf("noop --dir: ran=%v err=%v; want a refusal before it runs", ran, err)
	}
}
