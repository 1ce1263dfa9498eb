package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestPanicIsFailure: a panic in a command is caught, named and exits
// ExitFailure.
func TestPanicIsFailure(t *testing.T) {
	root := &cobra.Command{Use: "incidentlib", SilenceErrors: true, SilenceUsage: true}
	root.AddCommand(&cobra.Command{Use: "boom", RunE: func(*cobra.Command, []string) error { panic("a bug") }})
	root.SetArgs([]string{"boom"})
	err := execute(root)
	if exitCode(err) != ExitFailure || err == nil || !strings.Contains(err.Error(), "internal error: panic: a bug") {
		t.Errorf("panic: exit %d, error %v", exitCode(err), err)
	}
}
