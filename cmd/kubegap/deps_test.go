package main

import (
	"os/exec"
	"strings"
	"testing"
)

// deniedModules must never reach kubegap: it needs no database, web server,
// search index or metrics server.
var deniedModules = []string{
	"github.com/blevesearch/",
	"modernc.org/sqlite", "modernc.org/libc", "github.com/mattn/go-sqlite3",
	"github.com/jackc/pgx", "github.com/lib/pq", "gorm.io/",
	"github.com/prometheus/",
	"github.com/gin-gonic/", "github.com/labstack/echo", "github.com/go-chi/chi", "github.com/gorilla/mux",
	"github.com/gofiber/", "github.com/valyala/fasthttp",
}

// deniedPackages are this module's packages that hold the web site, the
// stores and the search index.
var deniedPackages = []string{
	"github.com/incidentlib/incidentlib/internal/search",
	"github.com/incidentlib/incidentlib/internal/store",
	"github.com/incidentlib/incidentlib/internal/web",
	"github.com/incidentlib/incidentlib/internal/api",
	"database/sql", // exact: database/sql/driver's interfaces come with google/uuid
}

// allowedModules is everything kubegap may pull in; a new module must be
// added here on purpose. go-restful is a server framework, but client-go's
// discovery needs it (through kube-openapi); kubegap serves nothing with it.
// go-json-experiment/json is encoding/json v2, whose jsontext reads JSON
// manifests (docs/ARCHITECTURE.md).
var allowedModules = map[string]bool{
	"github.com/incidentlib/incidentlib": true,
	"github.com/davecgh/go-spew":         true, "github.com/emicklei/go-restful/v3": true, "github.com/fxamacker/cbor/v2": true, "github.com/go-json-experiment/json": true,
	"github.com/go-logr/logr": true, "github.com/go-openapi/jsonpointer": true, "github.com/go-openapi/jsonreference": true,
	"github.com/google/gnostic-models": true, "github.com/google/jsonschema-go": true, "github.com/google/uuid": true,
	"github.com/json-iterator/go": true, "github.com/modelcontextprotocol/go-sdk": true, "github.com/modern-go/concurrent": true,
	"github.com/modern-go/reflect2": true, "github.com/munnerz/goautoneg": true, "github.com/segmentio/asm": true,
	"github.com/segmentio/encoding": true, "github.com/spf13/cobra": true, "github.com/spf13/pflag": true,
	"github.com/x448/float16": true, "github.com/yosida95/uritemplate/v3": true, "go.yaml.in/yaml/v2": true, "go.yaml.in/yaml/v3": true,
	"golang.org/x/net": true, "golang.org/x/oauth2": true, "golang.org/x/sync": true, "golang.org/x/sys": true, "golang.org/x/term": true,
	"golang.org/x/text": true, "golang.org/x/time": true, "google.golang.org/protobuf": true, "gopkg.in/evanphx/json-patch.v4": true,
	"gopkg.in/inf.v0": true, "k8s.io/api": true, "k8s.io/apimachinery": true, "k8s.io/client-go": true, "k8s.io/klog/v2": true,
	"k8s.io/kube-openapi": true, "k8s.io/utils": true, "sigs.k8s.io/json": true, "sigs.k8s.io/randfill": true,
	"sigs.k8s.io/structured-merge-diff/v6": true, "sigs.k8s.io/yaml": true,
	// The Helm SDK (--chart) and the kustomize API (-k), with what they pull in.
	"dario.cat/mergo":                          true,
	"github.com/BurntSushi/toml":               true,
	"github.com/Masterminds/goutils":           true,
	"github.com/Masterminds/semver/v3":         true,
	"github.com/Masterminds/sprig/v3":          true,
	"github.com/blang/semver/v4":               true,
	"github.com/cyphar/filepath-securejoin":    true,
	"github.com/go-errors/errors":              true,
	"github.com/gobwas/glob":                   true,
	"github.com/huandu/xstrings":               true,
	"github.com/mitchellh/copystructure":       true,
	"github.com/mitchellh/reflectwalk":         true,
	"github.com/monochromegane/go-gitignore":   true,
	"github.com/santhosh-tekuri/jsonschema/v6": true,
	"github.com/shopspring/decimal":            true,
	"github.com/spf13/cast":                    true,
	"github.com/xlab/treeprint":                true,
	"golang.org/x/crypto":                      true,
	"helm.sh/helm/v4":                          true,
	"k8s.io/apiextensions-apiserver":           true,
	"sigs.k8s.io/kustomize/api":                true,
	"sigs.k8s.io/kustomize/kyaml":              true,
}

func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{if .Module}}{{.Module.Path}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	mods := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, mod, _ := strings.Cut(line, " ")
		for _, d := range deniedPackages {
			if pkg == d || (d != "database/sql" && strings.HasPrefix(pkg, d+"/")) {
				t.Errorf("kubegap imports %s", pkg)
			}
		}
		if mod != "" {
			mods[mod] = true
		}
	}
	if len(mods) < 5 {
		t.Fatalf("go list found only %d modules; the test is not looking at kubegap", len(mods))
	}
	for m := range mods {
		for _, d := range deniedModules {
			if strings.HasPrefix(m, d) {
				t.Errorf("kubegap pulls in %s (denied)", m)
			}
		}
		if !allowedModules[m] && !strings.HasPrefix(m, "github.com/go-openapi/swag") {
			t.Errorf("kubegap pulls in %s, which is not on the allowlist", m)
		}
	}
}
