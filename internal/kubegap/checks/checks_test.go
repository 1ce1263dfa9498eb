package checks_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// TestFixtures runs every check over its fixtures, the txtar archive
// testdata/<check>.txtar: at least two fail*.yaml and two pass*.yaml files
// each, written out and read through the real manifest reader (fail.yaml
// and pass.yaml are the first of each, and other packages' tests read them
// too). A failing fixture states what must be found in
// header comments, one line per finding:
//
//	# expect: SEVERITY KIND NAMESPACE/NAME line LINE cases ID,ID
//	# message: the finding's message, in English, exactly
//
// (NAMESPACE is "-" for cluster-scoped objects; LINE is the line of the
// object in the fixture, or "-" for a finding on an object the input does
// not hold). The findings must match the list exactly: nothing missing,
// nothing extra, same severity, same cases, same file and line, same
// message (so that a message naming the wrong container fails). A passing
// fixture holds no expect line and must produce no finding. Both kinds must
// be evaluated: a check skipped for missing kinds or objects fails the test.
// KUBEGAP_FIXTURES_PRINT=1 prints what each fixture produced, in the
// fixture's form, for writing new fixtures (read them before pasting: they
// are what the code does, not necessarily what it should do).
func TestFixtures(t *testing.T) {
	all := checks.All()
	known := map[string]bool{}
	for _, c := range all {
		known[c.ID] = true
	}
	ids, err := fixture.IDs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if !known[id] {
			t.Errorf("testdata/%s.txtar has no check of that id", id)
		}
	}
	for _, c := range all {
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			dir := fixture.Dir(t, "testdata", c.ID)
			fails, _ := filepath.Glob(filepath.Join(dir, "fail*.yaml"))
			passes, _ := filepath.Glob(filepath.Join(dir, "pass*.yaml"))
			if len(fails) < 2 || len(passes) < 2 {
				t.Errorf("check %s has %d failing and %d passing fixtures; want at least 2 of each", c.ID, len(fails), len(passes))
			}
			for _, path := range append(fails, passes...) {
				want, err := readExpect(path)
				if err != nil {
					t.Errorf("%v", err)
					continue
				}
				failing := strings.HasPrefix(filepath.Base(path), "fail")
				if failing && len(want) == 0 {
					t.Errorf("%s: a failing fixture must state what it finds (# expect: ...)", path)
				}
				if !failing && len(want) > 0 {
					t.Errorf("%s: a passing fixture must not expect findings", path)
				}
				got := runFixture(t, c, path)
				if os.Getenv("KUBEGAP_FIXTURES_PRINT") == "1" {
					var b strings.Builder
					for _, g := range got {
						e, m, _ := strings.Cut(g, messageSep)
						fmt.Fprintf(&b, "\n# expect: %s\n# message: %s", e, m)
					}
					t.Logf("%s:%s", path, b.String())
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: findings differ\n got: %s\nwant: %s", path, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
				}
			}
		})
	}
}

var (
	expectRE  = regexp.MustCompile(`^#\s*expect:\s*(.*?)\s*$`)
	messageRE = regexp.MustCompile(`^#\s*message:\s*(.*?)\s*$`)
)

// messageSep joins a finding's expect fields and its message in the form
// readExpect and runFixture compare.
const messageSep = " message: "

// readExpect returns the expect lines of a fixture, each with the message
// line that follows it, normalised and sorted.
func readExpect(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	open := false // the last expect line still wants its message
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if m := messageRE.FindStringSubmatch(l); m != nil {
			if !open {
				return nil, fmt.Errorf("%s:%d: a message line must follow an expect line, once", path, i+1)
			}
			out[len(out)-1] += messageSep + m[1]
			open = false
			continue
		}
		if open {
			return nil, fmt.Errorf("%s:%d: want \"# message: TEXT\" after the expect line", path, i+1)
		}
		m := expectRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		f := strings.Fields(m[1])
		if len(f) != 7 || f[3] != "line" || f[5] != "cases" {
			return nil, fmt.Errorf("%s:%d: want \"# expect: SEVERITY KIND NAMESPACE/NAME line LINE cases ID,ID\", got %q", path, i+1, l)
		}
		if _, err := checks.ParseSeverity(f[0]); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, strings.Join(f, " "))
		open = true
	}
	if open {
		return nil, fmt.Errorf("%s: the last expect line has no \"# message: TEXT\" line after it", path)
	}
	sort.Strings(out)
	return out, nil
}

// runFixture reads path through the manifest reader, evaluates c alone and
// returns its findings in the expect form, sorted.
func runFixture(t *testing.T, c *checks.Check, path string) []string {
	t.Helper()
	got := runFixtureReading(t, c, path, []*checks.Check{c})
	// A full scan reads the kinds of every check, so the check sees objects
	// of kinds it does not read itself (a DaemonSet among the workloads):
	// it must find the same either way.
	if all := runFixtureReading(t, c, path, checks.All()); !slices.Equal(all, got) {
		t.Errorf("%s: findings differ when the input is read for every check\n alone: %s\n   all: %s", path, strings.Join(got, "\n        "), strings.Join(all, "\n        "))
	}
	return got
}

// runFixtureReading reads path for the checks read and evaluates c alone.
func runFixtureReading(t *testing.T, c *checks.Check, path string, read []*checks.Check) []string {
	t.Helper()
	inv, _, err := kubegap.ReadFiles([]string{path}, nil, read)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	res := kubegap.Evaluate(inv, []*checks.Check{c}, nil, true)
	if len(res.NotEvaluated) > 0 {
		t.Errorf("%s: not evaluated: %+v", path, res.NotEvaluated)
	}
	var out []string
	for _, f := range res.Findings {
		if f.Check != c.ID {
			t.Errorf("%s: finding of another check: %+v", path, f)
		}
		if f.Message.EN == "" || f.Message.KO == "" || !hangul.MatchString(f.Message.KO) {
			t.Errorf("%s: finding without a message in both languages: %+v", path, f)
		}
		ns := f.Object.Namespace
		if ns == "" {
			ns = "-"
		}
		line := "-"
		if src, ok := res.Sources[f.Object]; ok {
			if src.File != path {
				t.Errorf("%s: finding on %s located in another file, %s", path, f.Object, src.File)
			}
			line = fmt.Sprint(src.Line)
		}
		cases := strings.Join(f.Cases, ",")
		if cases == "" {
			cases = "-" // a check no case grounds (see uncited)
		}
		if strings.ContainsAny(f.Message.EN, "\r\n") {
			t.Errorf("%s: a message on more than one line: %q", path, f.Message.EN)
		}
		out = append(out, fmt.Sprintf("%s %s %s/%s line %s cases %s", f.Severity, f.Object.Kind, ns, f.Object.Name, line, cases)+messageSep+f.Message.EN)
	}
	sort.Strings(out)
	return out
}

var hangul = regexp.MustCompile(`\p{Hangul}`)

// TestCasesExist fails when a check cites a case the corpus does not hold.
func TestCasesExist(t *testing.T) {
	c, err := embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range checks.All() {
		if len(k.Cases) == 0 && !uncited[k.ID] {
			t.Errorf("%s cites no case", k.ID)
		}
		for _, id := range k.Cases {
			if c.Case(id) == nil {
				t.Errorf("%s cites %s, which is not in the corpus", k.ID, id)
			}
		}
	}
}

var idRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func TestRegistry(t *testing.T) {
	all := checks.All()
	if len(all) < 30 {
		t.Errorf("want at least 30 checks, have %d", len(all))
	}
	seen := map[string]bool{}
	for _, c := range all {
		if !idRE.MatchString(c.ID) {
			t.Errorf("bad id %q", c.ID)
		}
		if seen[c.ID] {
			t.Errorf("duplicate id %q", c.ID)
		}
		seen[c.ID] = true
		for name, txt := range map[string][2]string{
			"title": {c.Title.EN, c.Title.KO}, "remediation": {c.Remediation.EN, c.Remediation.KO},
			"looks at": {c.LooksAt.EN, c.LooksAt.KO}, "cannot see": {c.CannotSee.EN, c.CannotSee.KO},
		} {
			if txt[0] == "" || txt[1] == "" {
				t.Errorf("%s: %s missing in English or Korean", c.ID, name)
			}
		}
		if c.Severity < checks.Low || c.Severity > checks.High {
			t.Errorf("%s: bad severity", c.ID)
		}
		if len(c.Reads()) == 0 || c.Run == nil {
			t.Errorf("%s: no kinds or no rule", c.ID)
		}
		once := map[inventory.Kind]bool{}
		for _, k := range c.Reads() {
			if inventory.Info(k).Resource == "" {
				t.Errorf("%s reads unknown kind %s", c.ID, k)
			}
			if once[k] {
				t.Errorf("%s names kind %s twice (Kinds, AnyOf and Optional do not overlap)", c.ID, k)
			}
			once[k] = true
		}
		for _, g := range c.AnyOf {
			if len(g) < 2 {
				t.Errorf("%s: AnyOf group %v has fewer than two kinds (one kind is either needed or Optional)", c.ID, g)
			}
		}
	}
}

// TestNoSecrets guards the promise that kubegap never reads Secrets.
func TestNoSecrets(t *testing.T) {
	for _, k := range inventory.All() {
		if r := inventory.Info(k).Resource; r == "secrets" {
			t.Fatalf("kind %s reads secrets", k)
		}
	}
}

// TestNotEvaluated: a check whose kinds were not read is reported as not
// evaluated, never as passing.
func TestNotEvaluated(t *testing.T) {
	inv := inventory.New()
	inv.MarkRead(inventory.Deployment)
	c := checks.Get("service-selector-extra-label")
	res := kubegap.Evaluate(inv, []*checks.Check{c}, nil, false)
	if len(res.NotEvaluated) != 1 || res.NotEvaluated[0].Check != c.ID {
		t.Fatalf("want %s not evaluated, got %+v", c.ID, res.NotEvaluated)
	}
	// An offline input with no Node says nothing about nodes.
	d := checks.Get("node-disk-full-of-images")
	inv2, _, err := kubegap.ReadFiles([]string{fixture.Path(t, "testdata", "no-memory-limit", "fail.yaml")}, nil, []*checks.Check{d})
	if err != nil {
		t.Fatal(err)
	}
	res = kubegap.Evaluate(inv2, []*checks.Check{d}, nil, false)
	if len(res.NotEvaluated) != 1 {
		t.Fatalf("want node check not evaluated without nodes, got %+v", res)
	}
}

// packageFiles parses the package's non-test files, by name.
func packageFiles(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, f := range names {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[f] = file
	}
	return fset, files
}

// TestNoInit keeps the registry explicit: no file of the package may
// register checks (or do anything else) from an init function.
func TestNoInit(t *testing.T) {
	fset, files := packageFiles(t)
	for f, file := range files {
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s: func init at line %d; list checks in their file's list function instead", f, fset.Position(fn.Pos()).Line)
			}
		}
	}
}

// TestEveryCheckListed: each constructor of a check (a func with no
// parameters returning *Check) is called in its own file's list (a func
// returning []*Check, unexported, with no parameters), and checkList calls every file's list, so a check
// written but not listed fails here rather than never running.
func TestEveryCheckListed(t *testing.T) {
	_, files := packageFiles(t)
	isType := func(e ast.Expr, slice bool) bool {
		if a, ok := e.(*ast.ArrayType); ok {
			if !slice || a.Len != nil {
				return false
			}
			e = a.Elt
		} else if slice {
			return false
		}
		st, ok := e.(*ast.StarExpr)
		if !ok {
			return false
		}
		id, ok := st.X.(*ast.Ident)
		return ok && id.Name == "Check"
	}
	calls := func(fn *ast.FuncDecl) map[string]bool {
		out := map[string]bool{}
		ast.Inspect(fn, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok {
					out[id.Name] = true
				}
			}
			return true
		})
		return out
	}
	var lists []string
	var inCheckList map[string]bool
	constructors := 0
	for f, file := range files {
		var cons []*ast.FuncDecl
		listed := map[string]bool{}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
				continue
			}
			res := fn.Type.Results.List[0].Type
			switch {
			case fn.Name.Name == "checkList":
				inCheckList = calls(fn)
			case isType(res, false) && fn.Type.Params.NumFields() == 0:
				cons = append(cons, fn)
			case isType(res, true) && fn.Type.Params.NumFields() == 0 && !fn.Name.IsExported():
				lists = append(lists, fn.Name.Name)
				for k := range calls(fn) {
					listed[k] = true
				}
			}
		}
		for _, fn := range cons {
			constructors++
			if !listed[fn.Name.Name] {
				t.Errorf("%s: check %s() is in no list of its file; add it to the file's func returning []*Check", f, fn.Name.Name)
			}
		}
	}
	for _, l := range lists {
		if !inCheckList[l] {
			t.Errorf("checkList (registry.go) does not call %s()", l)
		}
	}
	if constructors != len(checks.All()) {
		t.Errorf("%d check constructors, %d checks in the registry", constructors, len(checks.All()))
	}
}
