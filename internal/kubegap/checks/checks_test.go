package checks_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// TestFixtures finds testdata/<check>/{pass,fail}.yaml for every check: the
// fail fixture must produce a finding of that check, the pass fixture none,
// and both must be evaluated. A check without fixtures, or a fixture folder
// without a check, fails the test.
func TestFixtures(t *testing.T) {
	all := checks.All()
	known := map[string]bool{}
	for _, c := range all {
		known[c.ID] = true
	}
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if d.IsDir() && !known[d.Name()] {
			t.Errorf("testdata/%s has no check of that id", d.Name())
		}
	}
	for _, c := range all {
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				file string
				want bool
			}{{"fail.yaml", true}, {"pass.yaml", false}} {
				path := filepath.Join("testdata", c.ID, tc.file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("check %s has no %s fixture: %v", c.ID, tc.file, err)
					continue
				}
				inv, _, err := kubegap.ReadFiles([]string{path}, nil, []*checks.Check{c})
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				res := kubegap.Evaluate(inv, []*checks.Check{c}, nil, true)
				if len(res.NotEvaluated) > 0 {
					t.Errorf("%s: not evaluated: %+v", path, res.NotEvaluated)
				}
				got := 0
				for _, f := range res.Findings {
					if f.Check == c.ID {
						got++
						if f.Message.EN == "" || f.Message.KO == "" {
							t.Errorf("%s: finding without a message in both languages: %+v", path, f)
						}
						if f.Severity < checks.Low || f.Severity > checks.High {
							t.Errorf("%s: bad severity %d", path, f.Severity)
						}
					}
				}
				if tc.want && got == 0 {
					t.Errorf("%s: want a %s finding, got none", path, c.ID)
				}
				if !tc.want && got > 0 {
					t.Errorf("%s: want no %s finding, got %d: %+v", path, c.ID, got, res.Findings)
				}
			}
		})
	}
}

// TestCasesExist fails when a check cites a case the corpus does not hold.
func TestCasesExist(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range checks.All() {
		if len(k.Cases) == 0 {
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
	if len(all) < 15 {
		t.Errorf("want at least 15 checks, have %d", len(all))
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
		if len(c.Kinds) == 0 || c.Run == nil {
			t.Errorf("%s: no kinds or no rule", c.ID)
		}
		for _, k := range c.Kinds {
			if inventory.Info(k).Resource == "" {
				t.Errorf("%s reads unknown kind %s", c.ID, k)
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
	inv2, _, err := kubegap.ReadFiles([]string{"testdata/no-memory-limit/fail.yaml"}, nil, []*checks.Check{d})
	if err != nil {
		t.Fatal(err)
	}
	res = kubegap.Evaluate(inv2, []*checks.Check{d}, nil, false)
	if len(res.NotEvaluated) != 1 {
		t.Fatalf("want node check not evaluated without nodes, got %+v", res)
	}
}
