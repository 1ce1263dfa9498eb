package mcpserver

import (
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

// toolNames is the list's tools, sorted.
func toolNames() []string {
	var out []string
	for _, t := range Tools() {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	s = append([]string{}, s...)
	sort.Strings(s)
	return s
}

// TestDocumentsNameTheTools: the README, the CI Inspector check and the
// API page name exactly the tools of the list.
func TestDocumentsNameTheTools(t *testing.T) {
	want := toolNames()
	code := regexp.MustCompile("`([a-z_]+)`")

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| `/mcp` |") {
			row = l
		}
	}
	before, _, _ := strings.Cut(row, "; resources")
	var inReadme []string
	for _, m := range code.FindAllStringSubmatch(before, -1) {
		inReadme = append(inReadme, m[1])
	}
	if diff := cmp.Diff(want, sorted(inReadme)); diff != "" {
		t.Errorf("README's /mcp row names other tools (-list +README):\n%s", diff)
	}

	ci, err := os.ReadFile("../../.ci/mcp-inspector.sh")
	if err != nil {
		t.Fatal(err)
	}
	loop := regexp.MustCompile(`(?m)^for tool in ([a-z_ ]+); do`).FindSubmatch(ci)
	if loop == nil {
		t.Fatal(".ci/mcp-inspector.sh has no `for tool in …; do` loop over the listed tools")
	}
	if diff := cmp.Diff(want, sorted(strings.Fields(string(loop[1])))); diff != "" {
		t.Errorf(".ci/mcp-inspector.sh expects other tools (-list +script):\n%s", diff)
	}
	called := map[string]bool{}
	for _, m := range regexp.MustCompile(`--tool-name ([a-z_]+)`).FindAllSubmatch(ci, -1) {
		called[string(m[1])] = true
	}
	for _, name := range want {
		if !called[name] {
			t.Errorf(".ci/mcp-inspector.sh never calls %s", name)
		}
	}

	site, err := web.New(realIndex(t).Public(), web.Options{BaseURL: "https://incidents.example"})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	site.Install(mux)
	for _, page := range []string{"/docs/api", "/en/docs/api"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, page, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", page, rec.Code)
		}
		var onPage []string
		for _, m := range regexp.MustCompile(`<dt><code>([a-z_]+)</code></dt>`).FindAllStringSubmatch(rec.Body.String(), -1) {
			onPage = append(onPage, m[1])
		}
		if diff := cmp.Diff(want, sorted(onPage)); diff != "" {
			t.Errorf("%s lists other tools (-list +page):\n%s", page, diff)
		}
	}
}
