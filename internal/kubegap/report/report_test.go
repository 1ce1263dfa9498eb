package report_test

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/incidentlib/internal/checkindex"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/report"
)

func fixtureResult(t *testing.T) *kubegap.Result {
	t.Helper()
	cs := checks.All()
	inv, _, err := kubegap.ReadFiles([]string{fixture.Path(t, "../checks/testdata", "dns-few-replicas", "fail.yaml"), fixture.Path(t, "../checks/testdata", "no-prestop-behind-lb", "fail.yaml")}, nil, cs)
	if err != nil {
		t.Fatal(err)
	}
	res := kubegap.Evaluate(inv, cs, nil, true)
	if len(res.Findings) < 2 {
		t.Fatalf("fixtures gave %d findings", len(res.Findings))
	}
	return res
}

func keys(m map[string]any) string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return strings.Join(k, ",")
}

// TestJSONShape pins the report's shape: exactly these keys.
func TestJSONShape(t *testing.T) {
	var buf bytes.Buffer
	if err := report.Write(&buf, fixtureResult(t), "json", "en", "test"); err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(buf.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	if got := keys(top); got != "api_requests,checks,findings,input,not_evaluated,partial,problems" {
		t.Errorf("top-level keys %s", got)
	}
	f := top["findings"].([]any)[0].(map[string]any)
	if got := keys(f); got != "cases,check,evidence,field,field_line,file,line,message,object,severity" {
		t.Errorf("finding keys %s", got)
	}
	// Each case of a finding comes with its evidence, in the same order.
	for _, x := range top["findings"].([]any) {
		f := x.(map[string]any)
		cases, ok1 := f["cases"].([]any)
		evidence, ok2 := f["evidence"].([]any)
		ck := checks.Get(f["check"].(string))
		if !ok1 || !ok2 || len(evidence) != len(cases) || len(cases) != len(ck.Citations) {
			t.Fatalf("finding %v: cases %v, evidence %v, want %d of each", f["check"], f["cases"], f["evidence"], len(ck.Citations))
		}
		for i, e := range evidence {
			e := e.(map[string]any)
			if got := keys(e); got != "case,quote,quote_ko" {
				t.Errorf("evidence keys %s", got)
			}
			if e["case"] != cases[i] || e["quote"] == "" || e["quote_ko"] == "" {
				t.Errorf("evidence %d of %v: %v for case %v", i, f["check"], e, cases[i])
			}
		}
	}
	if got := keys(f["object"].(map[string]any)); got != "kind,name,namespace" {
		t.Errorf("object keys %s", got)
	}
	for _, k := range []string{"not_evaluated", "partial"} {
		if _, ok := top[k].([]any); !ok {
			t.Errorf("%s must be a list, got %v", k, top[k])
		}
	}
	if got := keys(top["checks"].(map[string]any)); got != "evaluated,not_evaluated,partial,selected" {
		t.Errorf("checks keys %s", got)
	}
}

func TestKorean(t *testing.T) {
	var buf bytes.Buffer
	if err := report.Write(&buf, fixtureResult(t), "table", "ko", "test"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "심각도") || !strings.Contains(buf.String(), "복제본이 1개입니다") {
		t.Errorf("Korean table lacks Korean text:\n%s", buf.String())
	}
}

// TestSARIF checks the structure GitHub code scanning requires.
func TestSARIF(t *testing.T) {
	var buf bytes.Buffer
	res := fixtureResult(t)
	if err := report.Write(&buf, res, "sarif", "en", "1.2.3"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID                   string `json:"id"`
						ShortDescription     struct{ Text string }
						DefaultConfiguration struct{ Level string }
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
				PartialFingerprints map[string]string
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 {
		t.Fatalf("not SARIF 2.1.0: %s %s", log.Version, log.Schema)
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "kubegap" || len(run.Tool.Driver.Rules) != len(checks.All()) {
		t.Errorf("driver %q with %d rules", run.Tool.Driver.Name, len(run.Tool.Driver.Rules))
	}
	if len(run.Results) != len(res.Findings) {
		t.Fatalf("%d results for %d findings", len(run.Results), len(res.Findings))
	}
	for _, r := range run.Results {
		if r.RuleIndex < 0 || r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %s has ruleIndex %d pointing elsewhere", r.RuleID, r.RuleIndex)
		}
		if r.Level != "error" && r.Level != "warning" && r.Level != "note" {
			t.Errorf("bad level %q", r.Level)
		}
		if len(r.Locations) != 1 || r.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" || r.Locations[0].PhysicalLocation.Region.StartLine < 1 {
			t.Errorf("result %s lacks a physical location: %+v", r.RuleID, r.Locations)
		}
		if strings.Contains(r.Locations[0].PhysicalLocation.ArtifactLocation.URI, `\`) {
			t.Errorf("uri with backslash")
		}
		if r.Message.Text == "" || len(r.PartialFingerprints) == 0 {
			t.Errorf("result %s lacks message or fingerprint", r.RuleID)
		}
	}
	// The file the finding came from, and the line of the field at fault
	// (spec.replicas: 1, line 6; the object starts on line 2).
	found := false
	for _, r := range run.Results {
		l := r.Locations[0].PhysicalLocation
		if r.RuleID == "dns-few-replicas" && strings.HasSuffix(l.ArtifactLocation.URI, "dns-few-replicas/fail.yaml") && l.Region.StartLine == 6 {
			found = true
		}
	}
	if !found {
		t.Errorf("no result pointing at dns-few-replicas/fail.yaml:6")
	}
}

func TestMarkdownCompact(t *testing.T) {
	var buf bytes.Buffer
	res := fixtureResult(t)
	if err := report.Write(&buf, res, "markdown", "en", "test"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "# kubegap\n") || !strings.Contains(out, "`dns-few-replicas`") || !strings.Contains(out, "## Fixes") {
		t.Errorf("markdown:\n%s", out)
	}
	// One line a finding, one a fix, one a check not evaluated, and a few
	// headings: compact.
	if lines := strings.Count(out, "\n"); lines > len(res.Findings)*2+len(res.NotEvaluated)+12 {
		t.Errorf("markdown has %d lines for %d findings", lines, len(res.Findings))
	}
}

func TestExplainCitesCorpus(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range checks.All() {
		e := report.Explain(k, c.Case, "en")
		if len(e.Why) != len(k.Cases) {
			t.Fatalf("%s: %d cases explained", k.ID, len(e.Why))
		}
		for i, w := range e.Why {
			want := strings.TrimSpace(c.Case(k.Cases[i]).Summary.EN)
			if w.Summary != want || w.Title == "" {
				t.Errorf("%s: case %s summary not taken from the corpus", k.ID, w.ID)
			}
			if w.Quote != k.Citations[i].Quote {
				t.Errorf("%s: case %s explained with the quote %q, want %q", k.ID, w.ID, w.Quote, k.Citations[i].Quote)
			}
		}
		var buf bytes.Buffer
		if err := report.WriteExplain(&buf, e, "text", "en"); err != nil {
			t.Fatal(err)
		}
		// The text shows each quote (re-flowed, each line after "> ").
		flat := strings.Join(strings.Fields(strings.ReplaceAll(buf.String(), "\n> ", " ")), " ")
		for _, ct := range k.Citations {
			if !strings.Contains(flat, strings.Join(strings.Fields(ct.Quote), " ")) {
				t.Errorf("%s: explain does not show the quote of %s:\n%s", k.ID, ct.Case, buf.String())
			}
		}
		if len(k.Citations) == 0 && !strings.Contains(buf.String(), "No case in the corpus states this mechanism") {
			t.Errorf("%s cites no case and explain does not say so:\n%s", k.ID, buf.String())
		}
		ko := report.Explain(k, c.Case, "ko")
		for i, w := range ko.Why {
			if w.Quote != k.Citations[i].QuoteKO {
				t.Errorf("%s: the Korean explanation of %s quotes %q, want %q", k.ID, w.ID, w.Quote, k.Citations[i].QuoteKO)
			}
		}
		for _, h := range []string{"WHAT IT LOOKS AT", "WHY", "HOW TO FIX", "WHAT IT CANNOT SEE"} {
			if !strings.Contains(buf.String(), h) {
				t.Errorf("%s: explain lacks %s", k.ID, h)
			}
		}
	}
}

func TestRBAC(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteRBAC(&buf, checks.All(), "kubegap-reader"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "secrets") || strings.Contains(out, "\"*\"") {
		t.Errorf("role grants secrets or wildcards:\n%s", out)
	}
	for _, v := range []string{"create", "update", "delete", "patch", "watch"} {
		if strings.Contains(out, `"`+v+`"`) {
			t.Errorf("role grants %s", v)
		}
	}
	for _, k := range checks.Kinds(checks.All()) {
		info := inventory.Info(k)
		if !strings.Contains(out, `"`+info.Resource+`"`) {
			t.Errorf("role lacks %s", info.Resource)
		}
	}
	if !strings.Contains(out, "kind: Role\n") || !strings.Contains(out, "namespace: kube-system") {
		t.Errorf("ConfigMaps should be granted in kube-system only:\n%s", out)
	}
}

// TestCatalogueIndexAnswersLikeRegistry asks the index in the catalogue's
// closing comment, as incidentlib serve reads it from docs/checks.md, case
// by case, what kubegap's registry says; TestDocsUpToDate (cli) holds the
// file to this output.
func TestCatalogueIndexAnswersLikeRegistry(t *testing.T) {
	var md bytes.Buffer
	if err := report.WriteCatalogue(&md, checks.All(), "markdown", "en", func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	ix, err := checkindex.FromCatalogue(md.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]checkindex.Check{}
	cited := 0
	for _, c := range checks.All() {
		if len(c.Cases) > 0 {
			cited++
		}
		for _, id := range c.Cases {
			want[id] = append(want[id], checkindex.Check{ID: c.ID, Severity: c.Severity.String(), Title: c.Title, Cases: c.Cases})
		}
	}
	if len(want) == 0 {
		t.Fatal("kubegap's registry cites no case")
	}
	for id, w := range want {
		if d := cmp.Diff(w, ix.ForCase(id)); d != "" {
			t.Errorf("ForCase(%s) (-registry +index):\n%s", id, d)
		}
	}
	if n := len(ix.All()); n != cited {
		t.Errorf("the index holds %d checks, the registry %d that cite a case", n, cited)
	}
}
