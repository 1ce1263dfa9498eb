package cli_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/cli"
)

// exitConstants reads the Exit* constants of this package's source, so that
// a new exit code cannot be left out of the help unnoticed.
func exitConstants(t *testing.T) map[string]int {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	consts := map[string]int{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Exit") {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.INT {
						t.Fatalf("%s is not an integer literal", id.Name)
					}
					consts[id.Name], _ = strconv.Atoi(lit.Value)
				}
			}
		}
	}
	if len(consts) < 4 {
		t.Fatalf("found only %v", consts)
	}
	return consts
}

// TestHelpListsExitCodes: incidentlib --help lists every exit code the
// package declares, each once, and no other.
func TestHelpListsExitCodes(t *testing.T) {
	consts := exitConstants(t)
	code, out, errs := run(t, "", "--help")
	if code != cli.ExitOK {
		t.Fatalf("--help: exit %d %s", code, errs)
	}
	_, after, ok := strings.Cut(out, "Exit codes:\n")
	if !ok {
		t.Fatalf("the help has no exit codes:\n%s", out)
	}
	section, _, _ := strings.Cut(after, "\n\n")
	listed := map[int]int{}
	for _, m := range regexp.MustCompile(`(?m)^  (\d+)  \S`).FindAllStringSubmatch(section, -1) {
		n, _ := strconv.Atoi(m[1])
		listed[n]++
	}
	for name, v := range consts {
		if listed[v] != 1 {
			t.Errorf("%s (%d) is listed %d times in\n%s", name, v, listed[v], section)
		}
		delete(listed, v)
	}
	if len(listed) > 0 {
		t.Errorf("the help lists codes no constant declares: %v", listed)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestUserErrorsAndFailuresApart: what the user can fix (flags, arguments,
// unknown ids and terms, invalid input) exits ExitUsage; what incidentlib
// could not do (a corpus that does not load, a file it cannot write) exits
// ExitFailure.
func TestUserErrorsAndFailuresApart(t *testing.T) {
	if cli.ExitUsage == cli.ExitFailure {
		t.Fatalf("a user error and a failure both exit %d", cli.ExitUsage)
	}
	valid := filepath.Join(fixtures, "valid")
	user := [][]string{
		{"no-such-command"},
		{"search", "--no-such-flag", "dns"},
		{"show"},
		{"show", "IL-0000", "--dir", valid},
		{"topic", "no-such-term", "--dir", valid},
		{"similar", "IL-9001", "--limit", "0", "--dir", valid},
		{"search", "dns", "--sort", "sideways", "--dir", valid},
		{"export", "--format", "xml", "--dir", valid},
		{"import", filepath.Join(t.TempDir(), "missing.json"), "--dir", t.TempDir()},
		{"validate", "/nonexistent"},
	}
	for _, args := range user {
		if code, _, errs := run(t, "", args...); code != cli.ExitUsage || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want %d (user error) and a message", args, code, errs, cli.ExitUsage)
		}
	}

	// A corpus folder whose vocab.yaml cannot be read does not load.
	broken := t.TempDir()
	for _, d := range []string{"cases", "vocab.yaml"} {
		if err := os.Mkdir(filepath.Join(broken, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errs := run(t, "", "search", "dns", "--dir", broken); code != cli.ExitFailure || !strings.Contains(errs, "vocab.yaml") {
		t.Errorf("a corpus that does not load: exit %d, stderr %q; want %d (failure)", code, errs, cli.ExitFailure)
	}
	// Standard output that cannot be written.
	var errb strings.Builder
	if code := cli.Main([]string{"export", "--dir", valid}, strings.NewReader(""), failingWriter{}, &errb); code != cli.ExitFailure || !strings.Contains(errb.String(), "disk full") {
		t.Errorf("export to a full disk: exit %d, stderr %q; want %d (failure)", code, errb.String(), cli.ExitFailure)
	}
	// An output file that is a folder.
	if code, _, errs := run(t, "", "export", "--dir", valid, "-o", t.TempDir()); code != cli.ExitFailure {
		t.Errorf("export -o a folder: exit %d, stderr %q; want %d (failure)", code, errs, cli.ExitFailure)
	}
}
