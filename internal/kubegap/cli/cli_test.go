package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
	"github.com/incidentlib/incidentlib/internal/kubegap/report/sariftest"
)

// checkdata holds the checks' fixture archives (internal/kubegap/fixture).
const checkdata = "../checks/testdata"

func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(stdin), &out, &errb)
	if len(args) > 0 && args[0] == "scan" && code != 2 && (slices.Contains(args, "-f") || slices.Contains(args, "--filename")) && !slices.Contains(args, "--help") {
		validateSARIF(t, stdin, args)
	}
	return code, out.String(), errb.String()
}

// validateSARIF runs the same scan again as SARIF and checks the log
// against the SARIF 2.1.0 schema: every test scan's SARIF must pass it.
func validateSARIF(t *testing.T, stdin string, args []string) {
	t.Helper()
	var a []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-o" || args[i] == "--output" {
			i++
			continue
		}
		a = append(a, args[i])
	}
	a = append(a, "-o", "sarif")
	var out, errb bytes.Buffer
	Main(a, strings.NewReader(stdin), &out, &errb)
	if out.Len() == 0 {
		t.Errorf("scan %v wrote no SARIF: %s", a, errb.String())
		return
	}
	sariftest.Validate(t, out.Bytes())
}

func TestExitCodes(t *testing.T) {
	// A scan that read nothing exits 2, never 0.
	emptyDir := t.TempDir()
	os.WriteFile(emptyDir+"/empty.yaml", nil, 0o644)
	os.WriteFile(emptyDir+"/comments.yaml", []byte("# nothing here\n---\n---\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"clean", []string{"scan", "-f", fixture.Path(t, checkdata, "dns-few-replicas", "pass.yaml"), "--checks", "dns-few-replicas"}, 0, ""},
		{"findings", []string{"scan", "-f", fixture.Path(t, checkdata, "dns-few-replicas", "fail.yaml"), "--checks", "dns-few-replicas"}, 1, ""},
		{"below threshold", []string{"scan", "-f", fixture.Path(t, checkdata, "no-memory-limit", "fail.yaml"), "--checks", "no-memory-limit", "--fail-on", "high"}, 0, ""},
		{"fail-on none", []string{"scan", "-f", fixture.Path(t, checkdata, "dns-few-replicas", "fail.yaml"), "--fail-on", "none"}, 0, ""},
		{"unknown check", []string{"scan", "-f", fixture.All(t, checkdata), "--checks", "nope"}, 2, `unknown check "nope"`},
		{"bad format", []string{"scan", "-f", fixture.All(t, checkdata), "-o", "xml"}, 2, "unknown output format"},
		{"bad lang", []string{"checks", "--lang", "fr"}, 2, "unknown language"},
		{"bad severity", []string{"scan", "-f", fixture.All(t, checkdata), "--fail-on", "urgent"}, 2, "--fail-on"},
		{"missing file", []string{"scan", "-f", "no/such/file.yaml"}, 2, "no/such/file.yaml"},
		{"explain unknown", []string{"explain", "nope"}, 2, "unknown check"},
		{"empty folder", []string{"scan", "-f", emptyDir}, 2, "holds no Kubernetes object"},
		{"empty file", []string{"scan", "-f", emptyDir + "/empty.yaml"}, 2, "holds no Kubernetes object"},
		{"empty stdin", []string{"scan", "-f", "-"}, 2, "standard input) holds no Kubernetes object"},
		{"only comments", []string{"scan", "-f", emptyDir + "/comments.yaml"}, 2, "holds no Kubernetes object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, "", tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if tc.err != "" && !strings.Contains(stderr, tc.err) {
				t.Errorf("stderr %q lacks %q", stderr, tc.err)
			}
		})
	}
}

func TestMalformedYAML(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "broken.yaml")
	os.WriteFile(p, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replicas: [1\n"), 0o644)
	code, stdout, stderr := run(t, "", "scan", "-f", p)
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(stderr, p+":") || stdout != "" {
		t.Errorf("want FILE:LINE on stderr and nothing on stdout, got %q / %q", stderr, stdout)
	}
	// A field of the wrong type names file and line too.
	os.WriteFile(p, []byte("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replicas: many\n"), 0o644)
	code, _, stderr = run(t, "", "scan", "-f", p)
	if code != 2 || !strings.Contains(stderr, p+":2:") || !strings.Contains(stderr, "replicas") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestStdinAndUnknownKinds(t *testing.T) {
	in := "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\n" +
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: coredns, namespace: kube-system}\nspec:\n  replicas: 1\n  selector: {matchLabels: {k8s-app: kube-dns}}\n  template:\n    metadata: {labels: {k8s-app: kube-dns}}\n    spec:\n      containers: [{name: coredns, image: coredns/coredns:1.11.1}]\n"
	code, stdout, stderr := run(t, in, "scan", "-f", "-", "-o", "json", "--checks", "dns-few-replicas")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Findings []struct {
			Check string
			File  string
			Line  int
		}
		Input struct {
			Files          int
			Objects        int
			Checked        int `json:"objects_checked"`
			SkippedObjects []struct {
				Reason string
				Count  int
				Kinds  []string
			} `json:"skipped_objects"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || len(r.Findings) != 1 {
		t.Fatalf("report %q (%v)", stdout, err)
	}
	// The finding carries the place of its object; the report says what
	// was read and what was skipped.
	if f := r.Findings[0]; f.File != "<stdin>" || f.Line != 5 {
		t.Errorf("finding at %s:%d, want <stdin>:5", f.File, f.Line)
	}
	if in := r.Input; in.Files != 1 || in.Objects != 2 || in.Checked != 1 || len(in.SkippedObjects) != 1 ||
		in.SkippedObjects[0].Count != 1 || strings.Join(in.SkippedObjects[0].Kinds, ",") != "example.com/v1 Widget" || in.SkippedObjects[0].Reason != "kind no check reads" {
		t.Errorf("input %+v", in)
	}
}

func TestSuppressions(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "kubegap.yaml")
	fail := fixture.Path(t, checkdata, "dns-few-replicas", "fail.yaml")

	os.WriteFile(cfg, []byte("ignore:\n- check: dns-few-replicas\n  namespace: kube-*\n  name: core*\n  reason: test cluster\n"), 0o644)
	if code, out, errs := run(t, "", "scan", "-f", fail, "--checks", "dns-few-replicas", "--config", cfg, "--lang", "en"); code != 0 || !strings.Contains(out, "1 suppressed") {
		t.Errorf("config ignore: exit %d, %q %q", code, out, errs)
	}
	os.WriteFile(cfg, []byte("disable: [dns-few-replicas]\n"), 0o644)
	if code, _, _ := run(t, "", "scan", "-f", fail, "--checks", "dns-few-replicas", "--config", cfg); code != 0 {
		t.Errorf("disable: exit %d", code)
	}
	os.WriteFile(cfg, []byte("ignore:\n- check: no-such-check\n"), 0o644)
	if code, _, errs := run(t, "", "scan", "-f", fail, "--config", cfg); code != 2 || !strings.Contains(errs, "no-such-check") {
		t.Errorf("bad config: exit %d %q", code, errs)
	}
	os.WriteFile(cfg, []byte("ignroe: []\n"), 0o644)
	if code, _, errs := run(t, "", "scan", "-f", fail, "--config", cfg); code != 2 || !strings.Contains(errs, "ignroe") {
		t.Errorf("unknown key: exit %d %q", code, errs)
	}

	annotated := strings.Replace(mustRead(t, fail), "metadata: {name: coredns, namespace: kube-system}",
		"metadata: {name: coredns, namespace: kube-system, annotations: {kubegap.io/ignore: \"dns-few-replicas,no-memory-limit\"}}", 1)
	if annotated == mustRead(t, fail) {
		t.Fatal("fixture changed; update the test")
	}
	if code, _, _ := run(t, annotated, "scan", "-f", "-", "--checks", "dns-few-replicas"); code != 0 {
		t.Errorf("annotation ignored offline: exit %d", code)
	}
	if code, _, _ := run(t, annotated, "scan", "-f", "-", "--checks", "dns-few-replicas", "--annotations=false"); code != 1 {
		t.Errorf("--annotations=false should report: exit %d", code)
	}
}

func mustRead(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMissingKubeconfig: a live scan with no kubeconfig anywhere fails
// clearly with exit 2.
func TestMissingKubeconfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	code, _, stderr := run(t, "", "scan")
	if code != 2 || !strings.Contains(stderr, "no kubeconfig found") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = run(t, "", "scan", "--kubeconfig", filepath.Join(home, "nope"))
	if code != 2 || !strings.Contains(stderr, "nope") {
		t.Errorf("explicit missing: exit %d, stderr %q", code, stderr)
	}
}

func kubeconfig(t *testing.T, server string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: abc}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`, server)
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUnreachable: a closed port and a server that never answers both end
// in exit 2 with a clear message, within the timeout.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	start := time.Now()
	code, _, stderr := run(t, "", "scan", "--kubeconfig", kubeconfig(t, "https://"+closed), "--request-timeout", "2s")
	if code != 2 || !strings.Contains(stderr, "cannot reach the API server") || !strings.Contains(stderr, "refused") {
		t.Errorf("closed port: exit %d, stderr %q", code, stderr)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("closed port took %s", d)
	}

	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hang.Close()
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accept and say nothing
		}
	}()
	start = time.Now()
	code, _, stderr = run(t, "", "scan", "--kubeconfig", kubeconfig(t, "https://"+hang.Addr().String()), "--request-timeout", "1s", "--timeout", "20s")
	if code != 2 || !strings.Contains(stderr, "cannot reach the API server") {
		t.Errorf("silent server: exit %d, stderr %q", code, stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("silent server took %s", d)
	}
}

// TestDocsUpToDate keeps docs/checks.md generated from the registry. Run
// with UPDATE_DOCS=1 to rewrite it.
func TestDocsUpToDate(t *testing.T) {
	code, out, stderr := run(t, "", "checks", "-o", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	path := "../../../docs/checks.md"
	if os.Getenv("UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (generate it: UPDATE_DOCS=1 go test ./internal/kubegap/cli -run TestDocsUpToDate)", err)
	}
	if string(have) != out {
		t.Errorf("docs/checks.md is stale: UPDATE_DOCS=1 go test ./internal/kubegap/cli -run TestDocsUpToDate")
	}
}

// str returns m[key] if it is a string holding more than white space; a
// missing key, null or another type gives "".
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return strings.TrimSpace(s)
}

func TestChecksJSON(t *testing.T) {
	code, out, _ := run(t, "", "checks", "-o", "json")
	if code != 0 {
		t.Fatal(code)
	}
	var cat []map[string]any
	if err := json.Unmarshal([]byte(out), &cat); err != nil {
		t.Fatal(err)
	}
	if len(cat) < 15 {
		t.Fatalf("%d checks", len(cat))
	}
	for _, c := range cat {
		title, _ := c["title"].(map[string]any)
		kinds, _ := c["kinds"].([]any)
		cases, _ := c["cases"].([]any)
		evidence, _ := c["evidence"].([]any)
		if str(c, "id") == "" || str(c, "severity") == "" || str(title, "en") == "" || str(title, "ko") == "" || len(kinds) == 0 || len(evidence) != len(cases) {
			t.Errorf("incomplete entry %v", c)
		}
		// A check cites no case only when no case states its mechanism.
		if ck := checks.Get(str(c, "id")); ck == nil || len(cases) != len(ck.Citations) {
			t.Errorf("%v: %d cases in the catalogue", c["id"], len(cases))
		}
	}
}

func TestExplainAndRBAC(t *testing.T) {
	code, out, _ := run(t, "", "explain", "dns-memory-limit", "--lang", "ko")
	if code != 0 || !strings.Contains(out, "IL-0313") || !strings.Contains(out, "보지 못하는 것") || !strings.Contains(out, "잘란도") && !strings.Contains(out, "Zalando") {
		t.Errorf("explain: %d\n%s", code, out)
	}
	// The case's own sentence is shown, in the language asked for.
	if !strings.Contains(out, "> \u201c모든 CoreDNS 파드가 동시에 OOM Killed") {
		t.Errorf("explain --lang ko lacks the Korean quote of IL-0313:\n%s", out)
	}
	code, out, _ = run(t, "", "explain", "dns-memory-limit", "--lang", "en", "-o", "json")
	var e struct {
		Why []struct{ ID, Quote string }
	}
	if err := json.Unmarshal([]byte(out), &e); code != 0 || err != nil || len(e.Why) == 0 || e.Why[0].ID != "IL-0313" || !strings.HasPrefix(e.Why[0].Quote, "all CoreDNS pods were OOM Killed") {
		t.Errorf("explain -o json: %d %v\n%s", code, err, out)
	}
	code, out, _ = run(t, "", "rbac")
	if code != 0 || !strings.Contains(out, "kind: ClusterRole") || strings.Contains(out, "secrets") {
		t.Errorf("rbac: %d\n%s", code, out)
	}
}

// TestKubectlPlugin: run as kubectl-gap, help and usage say kubectl gap.
func TestKubectlPlugin(t *testing.T) {
	defer func(p string) { programName = p }(programName)
	programName = "kubectl-gap"
	for _, args := range [][]string{{"--help"}, {"scan", "--help"}} {
		code, out, _ := run(t, "", args...)
		if code != 0 || !strings.Contains(out, "kubectl gap") || strings.Contains(out, "\n  kubegap ") || strings.Contains(out, "| kubegap ") {
			t.Errorf("%v as kubectl-gap: exit %d\n%s", args, code, out)
		}
	}
	programName = "kubegap"
	if _, out, _ := run(t, "", "--help"); strings.Contains(out, "kubectl gap [command]") {
		t.Errorf("run as kubegap, help names kubectl gap:\n%s", out)
	}
}

// exitConstants reads the Exit* constants of this package's source, so
// that a new exit code cannot be left out of the help unnoticed, and checks
// that exitCode returns only them.
func exitConstants(t *testing.T) map[string]int {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]int{}
	var returned []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				if n.Tok != token.CONST {
					return true
				}
				for _, sp := range n.Specs {
					vs := sp.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !strings.HasPrefix(name.Name, "Exit") {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.INT {
							t.Fatalf("%s is not an integer literal", name.Name)
						}
						v, _ := strconv.Atoi(lit.Value)
						consts[name.Name] = v
					}
				}
			case *ast.FuncDecl:
				if n.Name.Name != "exitCode" {
					return false
				}
				ast.Inspect(n.Body, func(m ast.Node) bool {
					if r, ok := m.(*ast.ReturnStmt); ok {
						for _, e := range r.Results {
							id, ok := e.(*ast.Ident)
							if !ok {
								t.Errorf("exitCode returns %T, not an Exit constant", e)
								continue
							}
							returned = append(returned, id.Name)
						}
					}
					return true
				})
				return false
			}
			return true
		})
	}
	if len(consts) < 5 {
		t.Fatalf("found only %v", consts)
	}
	for _, r := range returned {
		if _, ok := consts[r]; !ok {
			t.Errorf("exitCode returns %s, which is not an Exit constant", r)
		}
	}
	for name := range consts {
		if !slices.Contains(returned, name) {
			t.Errorf("exitCode never returns %s", name)
		}
	}
	return consts
}

// TestHelpListsExitCodes: the help of kubegap and of kubegap scan lists
// every exit code the code declares (and exitCode returns), each once,
// and no other.
func TestHelpListsExitCodes(t *testing.T) {
	consts := exitConstants(t)
	line := regexp.MustCompile(`(?m)^  (\d+)  \S`)
	for _, args := range [][]string{{"--help"}, {"scan", "--help"}} {
		code, out, _ := run(t, "", args...)
		if code != ExitClean {
			t.Fatalf("%v: exit %d", args, code)
		}
		_, after, ok := strings.Cut(out, "Exit codes:\n")
		if !ok {
			t.Fatalf("%v: no exit codes:\n%s", args, out)
		}
		section, _, _ := strings.Cut(after, "\n\n")
		listed := map[int]int{}
		for _, m := range line.FindAllStringSubmatch(section, -1) {
			n, _ := strconv.Atoi(m[1])
			listed[n]++
		}
		for name, v := range consts {
			if listed[v] != 1 {
				t.Errorf("%v: %s (%d) is listed %d times in\n%s", args, name, v, listed[v], section)
			}
			delete(listed, v)
		}
		if len(listed) > 0 {
			t.Errorf("%v: the help lists codes no constant declares: %v", args, listed)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestExitInternal: kubegap's own failures exit 4, apart from user errors
// (2): a report that cannot be written, and a panic, which is caught and
// named.
func TestExitInternal(t *testing.T) {
	var errb bytes.Buffer
	code := Main([]string{"scan", "-f", fixture.Path(t, checkdata, "dns-few-replicas", "pass.yaml"), "--checks", "dns-few-replicas"}, strings.NewReader(""), failingWriter{}, &errb)
	if code != ExitInternal || !strings.Contains(errb.String(), "internal error: write the report: disk full") {
		t.Errorf("unwritable report: exit %d, stderr %q", code, errb.String())
	}
	cmd := &cobra.Command{Use: "boom", RunE: func(*cobra.Command, []string) error { panic("a bug") }}
	cmd.SetArgs(nil)
	err := execute(t.Context(), cmd)
	if exitCode(err) != ExitInternal || err == nil || !strings.Contains(err.Error(), "internal error: panic: a bug") {
		t.Errorf("panic: exit %d, error %v", exitCode(err), err)
	}
	if code, _, stderr := run(t, "", "scan", "--no-such-flag"); code != ExitFailed || strings.Contains(stderr, "internal error") {
		t.Errorf("bad flag: exit %d, stderr %q", code, stderr)
	}
}
