package main

import (
	"os/exec"
	"strings"
	"testing"
)

// deniedModules must never reach incidentlib: kubegap's Kubernetes, Helm and
// kustomize modules (the server reads which checks cite a case from
// internal/checkindex, data generated from kubegap's registry) and Bleve,
// whose analysis chain is only the tests' reference. Each of them made a
// cold `go run ./cmd/incidentlib serve` download hundreds of megabytes.
var deniedModules = []string{
	"k8s.io/", "sigs.k8s.io/", "helm.sh/", "github.com/blevesearch/",
}

// allowedDenied are modules under a denied prefix that incidentlib may
// use: the Porter stemmer is one small package with no dependencies.
var allowedDenied = map[string]bool{"github.com/blevesearch/go-porterstemmer": true}

// deniedPackages are this module's packages that are kubegap's own.
var deniedPackages = []string{"github.com/incidentlib/incidentlib/internal/kubegap"}

// allowedModules is everything incidentlib may pull in; a new module must be
// added here on purpose, with its download size in mind (docs/PERFORMANCE.md).
var allowedModules = map[string]bool{
	"github.com/incidentlib/incidentlib": true,
	"github.com/beorn7/perks":            true, "github.com/blevesearch/go-porterstemmer": true, "github.com/cespare/xxhash/v2": true,
	"github.com/dustin/go-humanize": true, "github.com/google/jsonschema-go": true, "github.com/google/uuid": true,
	"github.com/jackc/pgpassfile": true, "github.com/jackc/pgservicefile": true, "github.com/jackc/pgx/v5": true,
	"github.com/jackc/puddle/v2": true, "github.com/modelcontextprotocol/go-sdk": true, "github.com/munnerz/goautoneg": true,
	"github.com/prometheus/client_golang": true, "github.com/prometheus/client_model": true, "github.com/prometheus/common": true,
	"github.com/prometheus/procfs": true, "github.com/remyoudompheng/bigfft": true, "github.com/segmentio/asm": true,
	"github.com/segmentio/encoding": true, "github.com/spf13/cobra": true, "github.com/spf13/pflag": true,
	"github.com/yosida95/uritemplate/v3": true, "go.yaml.in/yaml/v3": true, "golang.org/x/oauth2": true,
	"golang.org/x/sync": true, "golang.org/x/sys": true, "golang.org/x/text": true, "golang.org/x/time": true,
	"google.golang.org/protobuf": true, "modernc.org/libc": true, "modernc.org/mathutil": true,
	"modernc.org/memory": true, "modernc.org/sqlite": true,
}

// TestDependencies lists what `go build ./cmd/incidentlib` links.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{if .Module}}{{.Module.Path}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	mods := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, mod, _ := strings.Cut(line, " ")
		for _, d := range deniedPackages {
			if pkg == d || strings.HasPrefix(pkg, d+"/") {
				t.Errorf("incidentlib imports %s", pkg)
			}
		}
		if mod != "" {
			mods[mod] = true
		}
	}
	if !mods["modernc.org/sqlite"] {
		t.Fatalf("go list found no modernc.org/sqlite among %d modules; the test is not looking at incidentlib", len(mods))
	}
	for m := range mods {
		denied := false
		for _, d := range deniedModules {
			if strings.HasPrefix(m, d) && !allowedDenied[m] {
				t.Errorf("incidentlib pulls in %s (denied)", m)
				denied = true
			}
		}
		if !denied && !allowedModules[m] {
			t.Errorf("incidentlib pulls in %s, which is not on the allowlist", m)
		}
	}
}
