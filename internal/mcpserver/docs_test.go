package mcpserver

import (
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/incidentlib/internal/web"
)

func sorted(s []string) []string {
	s = append([]string{}, s...)
	sort.Strings(s)
	return s
}

// TestRegistry: every tool of the list has what the documents and checks
// read (title, description, About in both languages, examples whose
// arguments its schema takes).
func TestRegistry(t *testing.T) {
	for _, p := range Tools().Check() {
		t.Error(p)
	}
}

// TestDocumentsFollowTheRegistry: nothing names the tools by hand. The CI
// Inspector check reads the tools and their examples from the registry
// (tools/mcpexamples) and names none itself; the README names none; the API
// page lists exactly the registry's tools, each with its About in the
// page's language.
func TestDocumentsFollowTheRegistry(t *testing.T) {
	names := Tools().Names()
	ci, err := os.ReadFile("../../.ci/mcp-inspector.sh")
	if err != nil {
		t.Fatal(err)
	}
	// The lister is the binary CI built from tools/mcpexamples, or go run.
	for _, want := range []string{`"$MCPEXAMPLES_BIN" "$@"; else go run ./tools/mcpexamples "$@"`, "< <(list_examples -names)", "< <(list_examples)"} {
		if !strings.Contains(string(ci), want) {
			t.Errorf(".ci/mcp-inspector.sh does not read the registry (%s)", want)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		// get_incident is also kubegap's tool, which its section names.
		if name == "get_incident" {
			continue
		}
		if strings.Contains(string(ci), "tool-name "+name) {
			t.Errorf(".ci/mcp-inspector.sh calls %s by hand; its calls come from the registry", name)
		}
		if strings.Contains(string(readme), "`"+name+"`") {
			t.Errorf("README names the tool %s by hand; the API page lists the tools from the registry", name)
		}
	}

	var tools []web.Tool
	for _, tl := range Tools() {
		tools = append(tools, web.Tool{Name: tl.Def.Name, About: tl.About})
	}
	site, err := web.New(realIndex(t).Public(), web.Options{BaseURL: "https://incidents.example", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	site.Install(mux)
	for page, lang := range map[string]string{"/docs/api": "ko", "/en/docs/api": "en"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, page, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", page, rec.Code)
		}
		var onPage []string
		for _, m := range regexp.MustCompile(`<dt><code>([a-z_]+)</code></dt><dd>([^<]*)</dd>`).FindAllStringSubmatch(rec.Body.String(), -1) {
			onPage = append(onPage, m[1])
			for _, tl := range Tools() {
				if tl.Def.Name == m[1] && html.UnescapeString(m[2]) != tl.About.In(lang) {
					t.Errorf("%s says of %s %q, want its About %q", page, m[1], m[2], tl.About.In(lang))
				}
			}
		}
		if diff := cmp.Diff(names, sorted(onPage)); diff != "" {
			t.Errorf("%s lists other tools (-registry +page):\n%s", page, diff)
		}
	}
}
