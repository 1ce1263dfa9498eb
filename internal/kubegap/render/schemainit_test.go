package render_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/incidentlib/incidentlib/internal/kubegap/render"
)

// The JSON Schema library the Helm SDK validates values with compiles the
// metaschemas of five drafts. Upstream does it at package initialisation,
// in every run of kubegap, chart or not (about 13 ms and 21,000
// allocations); third_party/jsonschema does it when the first compiler is
// made. This test reads the package's initialisation from the Go runtime's
// own trace of this very test binary, which links the library as kubegap
// does.
func TestSchemaLibraryIdleAtStart(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^init `).Match(out) {
		t.Fatalf("no init trace in the output; GODEBUG=inittrace=1 not honoured?\n%.2000s", out)
	}
	m := regexp.MustCompile(`(?m)^init github\.com/santhosh-tekuri/jsonschema/v6 @.*, (\d+) allocs$`).FindSubmatch(out)
	if m == nil {
		return // nothing to initialise at all
	}
	if n, _ := strconv.Atoi(string(m[1])); n > 500 {
		t.Errorf("the JSON Schema library makes %d allocations while initialising: its metaschemas are compiled at start again (is go.mod's replace of github.com/santhosh-tekuri/jsonschema/v6 gone?)\n%s", n, m[0])
	}
	// And the schemas still work once a chart asks for them.
	if _, err := render.Chart(context.Background(), render.ChartOptions{Chart: filepath.Join(charts, "schema")}); err != nil {
		t.Errorf("a chart whose values meet its schema: %v", err)
	}
}
