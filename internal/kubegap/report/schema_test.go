package report_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
	"github.com/incidentlib/incidentlib/internal/kubegap/report/sariftest"
)

func sarifOf(t *testing.T, res *kubegap.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Write(&buf, res, "sarif", "en", "1.2.3"); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSARIFSchemaValidates: the validator itself rejects what the schema
// forbids, so that a pass below means something.
func TestSARIFSchemaValidates(t *testing.T) {
	good := sarifOf(t, fixtureResult(t))
	sariftest.Validate(t, good)
	for name, bad := range map[string]string{
		"no version":        strings.Replace(string(good), `"version": "2.1.0",`, ``, 1),
		"level not an enum": strings.Replace(string(good), `"level": "error"`, `"level": "fatal"`, 1),
		"start line zero":   strings.Replace(string(good), `"startLine": 2`, `"startLine": 0`, 1),
	} {
		if bad == string(good) {
			t.Fatalf("%s: the mutation changed nothing", name)
		}
		if err := sariftest.Check([]byte(bad)); err == nil {
			t.Errorf("%s: the schema accepted it", name)
		}
	}
}

// TestSARIFOfEveryFixture: the SARIF of a scan of every fixture file, of
// standard input, of a live-style result and of an input with problems
// passes the SARIF 2.1.0 schema.
func TestSARIFOfEveryFixture(t *testing.T) {
	cs := checks.All()
	var files []string
	filepath.WalkDir(fixture.All(t, "../checks/testdata"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".json")) {
			files = append(files, p)
		}
		return nil
	})
	files = append(files, "../testdata/upstream", "../testdata/upstream/dns/coredns.yaml.base")
	if len(files) < 20 {
		t.Fatalf("only %d fixture files", len(files))
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			inv, in, problems, err := kubegap.ReadInput([]string{f}, nil, cs, kubegap.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res := kubegap.Evaluate(inv, cs, nil, true)
			res.Input, res.Problems = in, problems
			sariftest.Validate(t, sarifOf(t, res))
		})
	}
	t.Run("stdin", func(t *testing.T) {
		y, _ := os.ReadFile(fixture.Path(t, "../checks/testdata", "dns-few-replicas", "fail.yaml"))
		inv, in, problems, err := kubegap.ReadInput([]string{"-"}, bytes.NewReader(y), cs, kubegap.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res := kubegap.Evaluate(inv, cs, nil, true)
		res.Input, res.Problems = in, problems
		out := sarifOf(t, res)
		sariftest.Validate(t, out)
		// No made-up artifact for standard input.
		if strings.Contains(string(out), "stdin") && strings.Contains(string(out), `"uri": "<stdin>"`) || strings.Contains(string(out), "kubernetes/Deployment") {
			t.Errorf("stdin given a URI:\n%s", out)
		}
		var log struct {
			Runs []struct {
				Results []struct {
					Locations []map[string]any
				}
			}
		}
		json.Unmarshal(out, &log)
		for _, r := range log.Runs[0].Results {
			if _, ok := r.Locations[0]["physicalLocation"]; ok {
				t.Errorf("a stdin finding has a physical location: %v", r.Locations[0])
			}
		}
	})
	t.Run("live", func(t *testing.T) {
		res := fixtureResult(t)
		res.Input, res.Sources = nil, nil
		sariftest.Validate(t, sarifOf(t, res))
	})
}

// TestSARIFPartial: checks evaluated without some kinds are configuration
// notifications of level note, named in the invocation's properties, and
// the log still passes the schema.
func TestSARIFPartial(t *testing.T) {
	cs := checks.All()
	inv, _, err := kubegap.ReadFiles([]string{fixture.Path(t, "../checks/testdata", "no-prestop-behind-lb", "fail.yaml"), fixture.Path(t, "../checks/testdata", "no-prestop-behind-lb", "fail-2.yaml")}, nil, cs)
	if err != nil {
		t.Fatal(err)
	}
	delete(inv.Read, inventory.StatefulSet)
	inv.StatefulSets = nil
	res := kubegap.Evaluate(inv, cs, nil, false)
	if len(res.Partial) == 0 || len(res.NotEvaluated) == 0 {
		t.Fatalf("want partial and unevaluated checks, got %+v and %+v", res.Partial, res.NotEvaluated)
	}
	out := sarifOf(t, res)
	sariftest.Validate(t, out)
	var log struct {
		Runs []struct {
			Invocations []struct {
				ToolConfigurationNotifications []struct {
					Level          string
					Message        struct{ Text string }
					AssociatedRule struct{ ID string }
					Properties     struct{ MissingKinds []string }
				}
				Properties struct {
					ChecksPartial   []string
					ChecksEvaluated int
				}
			}
		}
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	inv0 := log.Runs[0].Invocations[0]
	notes := map[string]string{}
	for _, n := range inv0.ToolConfigurationNotifications {
		if n.Level == "note" {
			notes[n.AssociatedRule.ID] = strings.Join(n.Properties.MissingKinds, ",") + " | " + n.Message.Text
		}
	}
	if len(notes) != len(res.Partial) || len(inv0.Properties.ChecksPartial) != len(res.Partial) {
		t.Errorf("%d partial checks, %d notes, properties %v", len(res.Partial), len(notes), inv0.Properties.ChecksPartial)
	}
	for _, p := range res.Partial {
		if n := notes[p.Check]; !strings.HasPrefix(n, "StatefulSet | "+p.Check+" was partially evaluated: evaluated without StatefulSet") {
			t.Errorf("%s: note %q", p.Check, n)
		}
	}
	if inv0.Properties.ChecksEvaluated != res.Evaluated() {
		t.Errorf("checksEvaluated %d, want %d", inv0.Properties.ChecksEvaluated, res.Evaluated())
	}
}

// TestSARIFURIBaseIDs: every relative artifact location (results and
// problem notifications) carries uriBaseId %SRCROOT%, which the run's
// originalUriBaseIds names as the working folder (an absolute file URI
// ending in a slash), so that base and path resolve to the file; absolute
// paths need no base, and a log with none has no originalUriBaseIds. All of
// it passes the SARIF 2.1.0 schema.
func TestSARIFURIBaseIDs(t *testing.T) {
	type artifact struct{ URI, URIBaseID string }
	type location struct {
		PhysicalLocation *struct{ ArtifactLocation artifact }
	}
	type sarif struct {
		Runs []struct {
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Results            []struct{ Locations []location }
			Invocations        []struct {
				ToolExecutionNotifications []struct{ Locations []location }
			}
		}
	}
	scan := func(paths ...string) sarif {
		cs := checks.All()
		inv, in, problems, err := kubegap.ReadInput(paths, nil, cs, kubegap.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res := kubegap.Evaluate(inv, cs, nil, true)
		res.Input, res.Problems = in, problems
		out := sarifOf(t, res)
		sariftest.Validate(t, out)
		var log sarif
		if err := json.Unmarshal(out, &log); err != nil {
			t.Fatal(err)
		}
		return log
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// Relative: a fixture with findings, and the upstream folder's problems.
	log := scan(relativeFixture(t, "dns-few-replicas", "fail.yaml"), "../testdata/upstream/broken")
	run := log.Runs[0]
	base, ok := run.OriginalURIBaseIDs["%SRCROOT%"]
	if !ok || base.URI != "file://"+filepath.ToSlash(wd)+"/" {
		t.Fatalf("originalUriBaseIds %+v, want %%SRCROOT%% = file://%s/", run.OriginalURIBaseIDs, filepath.ToSlash(wd))
	}
	baseURL, err := url.Parse(base.URI)
	if err != nil {
		t.Fatal(err)
	}
	var locs []location
	for _, r := range run.Results {
		locs = append(locs, r.Locations...)
	}
	for _, n := range run.Invocations[0].ToolExecutionNotifications {
		locs = append(locs, n.Locations...)
	}
	if len(run.Results) == 0 || len(locs) <= len(run.Results) {
		t.Fatalf("want findings and problems with places, got %d results, %d locations", len(run.Results), len(locs))
	}
	for _, l := range locs {
		a := l.PhysicalLocation.ArtifactLocation
		if a.URIBaseID != "%SRCROOT%" {
			t.Errorf("%s: uriBaseId %q", a.URI, a.URIBaseID)
		}
		rel, err := url.Parse(a.URI)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.FromSlash(baseURL.ResolveReference(rel).Path)); err != nil {
			t.Errorf("%s against %s: %v", a.URI, base.URI, err)
		}
	}
	// Absolute: no base.
	abs, _ := filepath.Abs(fixture.Path(t, "../checks/testdata", "dns-few-replicas", "fail.yaml"))
	log = scan(abs)
	if run := log.Runs[0]; run.OriginalURIBaseIDs != nil || len(run.Results) == 0 || run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URIBaseID != "" {
		t.Errorf("absolute path: %+v", run)
	}
}

// relativeFixture writes a check's fixture into a temporary folder inside
// the package's own folder (a dot folder, which Go's tools ignore) and
// returns its path relative to the working directory.
func relativeFixture(t *testing.T, id, name string) string {
	t.Helper()
	files, err := fixture.Read("../checks/testdata", id)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(".", ".fixture-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, f := range files {
		if f.Name == name {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	t.Fatalf("the fixtures of %s hold no %s", id, name)
	return ""
}

// TestSARIFNoInventedLines: a finding or a problem in a file with no line
// to point at (a packaged chart's template, a file that failed as a whole)
// is located in the file with no region, never at a line 1 it was not at;
// the log still validates.
func TestSARIFNoInventedLines(t *testing.T) {
	cs := checks.All()
	path := relativeFixture(t, "dns-few-replicas", "fail.yaml")
	inv, in, problems, err := kubegap.ReadInput([]string{path}, nil, cs, kubegap.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := kubegap.Evaluate(inv, cs, nil, true)
	res.Input = in
	res.Problems = append(problems, manifest.Problem{File: path, Message: "a problem of the whole file", Level: manifest.LevelError})
	if len(res.Findings) == 0 {
		t.Fatal("the fixture gives no finding")
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		f.FieldLine = 0
		src := res.Sources[f.Object]
		src.Line = 0
		res.Sources[f.Object] = src
	}
	out := sarifOf(t, res)
	sariftest.Validate(t, out)
	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct{ PhysicalLocation map[string]any }
			}
			Invocations []struct {
				ToolExecutionNotifications []struct {
					Locations []struct{ PhysicalLocation map[string]any }
				}
			}
		}
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	n := 0
	check := func(what string, pl map[string]any) {
		n++
		if _, has := pl["region"]; has {
			t.Errorf("%s with no line has a region: %v", what, pl["region"])
		}
	}
	for _, r := range log.Runs[0].Results {
		for _, l := range r.Locations {
			check("a result", l.PhysicalLocation)
		}
	}
	for _, nt := range log.Runs[0].Invocations[0].ToolExecutionNotifications {
		for _, l := range nt.Locations {
			check("a problem", l.PhysicalLocation)
		}
	}
	if n < 2 {
		t.Fatalf("%d locations checked, want a result's and a problem's", n)
	}
}
