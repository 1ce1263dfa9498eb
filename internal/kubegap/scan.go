// Package kubegap ties kubegap together: it reads an inventory (from files
// or a live cluster), runs the enabled checks, applies suppressions and
// builds the report every output format renders.
package kubegap

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
	"github.com/incidentlib/incidentlib/internal/kubegap/manifest"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// Result is what one scan found, before rendering.
type Result struct {
	Findings     []checks.Finding
	NotEvaluated []NotEvaluated
	// Partial are the checks evaluated without some of the kinds they
	// can do without (checks.Check AnyOf and Optional); they count as
	// evaluated.
	Partial     []Partial
	APIRequests int
	Suppressed  int
	// Sources maps objects to files and lines (offline scans).
	Sources map[inventory.Ref]inventory.Source
	// Checks is the number of checks asked for; Checks less
	// len(NotEvaluated) were evaluated, len(Partial) of them partially.
	Checks int
	// Input says what an offline scan read (nil for live scans).
	Input *Input
	// Problems are the parts of the input that could not be read, or that
	// the user should fix; the scan went on without them.
	Problems []manifest.Problem
	// Objects is the number of objects the checks could read.
	Objects int
}

// Evaluated is the number of checks that were evaluated.
func (r *Result) Evaluated() int { return r.Checks - len(r.NotEvaluated) }

// NotEvaluated is a check that could not run, and why.
type NotEvaluated struct {
	Check   string   `json:"check"`
	Missing []string `json:"missing"`
	Reason  string   `json:"reason"`
}

// Partial is a check evaluated on the kinds it could read, without
// Missing: its findings are those the kinds read show, and findings that
// need the missing kinds may be absent.
type Partial struct {
	Check   string   `json:"check"`
	Missing []string `json:"missing"`
	// Cause is why the kinds were not read, when known (a live scan's
	// access review answer); English, as the API server gives it.
	Cause string `json:"-"`
}

// Reason says in lang what the check could not see and what that means.
func (p Partial) Reason(lang string) string {
	s := locale.Tf(lang, "report.partial_reason", strings.Join(p.Missing, ", "))
	if p.Cause != "" {
		s += " (" + p.Cause + ")"
	}
	return s
}

// Config is the suppression file (.kubegap.yaml).
type Config struct {
	// Disable turns whole checks off.
	Disable []string `yaml:"disable"`
	// Ignore suppresses findings on matching objects.
	Ignore []IgnoreRule `yaml:"ignore"`
}

// IgnoreRule matches findings; empty fields match anything, and namespace
// and name may be glob patterns.
type IgnoreRule struct {
	Check     string `yaml:"check"`
	Kind      string `yaml:"kind"`
	Namespace string `yaml:"namespace"`
	Name      string `yaml:"name"`
	Reason    string `yaml:"reason"`
}

// LoadConfig reads a suppression file.
func LoadConfig(file string) (*Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(file, data)
}

// ParseConfig parses a suppression file's contents.
func ParseConfig(file string, data []byte) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	for i, r := range c.Ignore {
		if r.Check != "" && r.Check != "*" && checks.Get(r.Check) == nil {
			return nil, fmt.Errorf("%s: ignore[%d]: unknown check %q (kubegap checks lists them)", file, i, r.Check)
		}
		for _, p := range []string{r.Namespace, r.Name} {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("%s: ignore[%d]: bad pattern %q", file, i, p)
			}
		}
	}
	for _, id := range c.Disable {
		if checks.Get(id) == nil {
			return nil, fmt.Errorf("%s: disable: unknown check %q (kubegap checks lists them)", file, id)
		}
	}
	return &c, nil
}

func (r IgnoreRule) matches(f checks.Finding) bool {
	glob := func(p, s string) bool {
		if p == "" {
			return true
		}
		ok, _ := path.Match(p, s)
		return ok
	}
	return (r.Check == "" || r.Check == "*" || r.Check == f.Check) &&
		(r.Kind == "" || strings.EqualFold(r.Kind, f.Object.Kind)) &&
		glob(r.Namespace, f.Object.Namespace) && glob(r.Name, f.Object.Name)
}

// Select returns the checks to run: only (if not empty), less those the
// config disables.
func Select(only []string, cfg *Config) ([]*checks.Check, error) {
	var out []*checks.Check
	if len(only) == 0 {
		out = checks.All()
	} else {
		for _, id := range only {
			c := checks.Get(id)
			if c == nil {
				return nil, fmt.Errorf("unknown check %q (kubegap checks lists them)", id)
			}
			out = append(out, c)
		}
	}
	if cfg == nil || len(cfg.Disable) == 0 {
		return out, nil
	}
	var kept []*checks.Check
	for _, c := range out {
		disabled := false
		for _, d := range cfg.Disable {
			disabled = disabled || d == c.ID
		}
		if !disabled {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// Evaluate runs cs over inv. Annotations (kubegap.io/ignore) are honoured
// only when annotations is set.
func Evaluate(inv *inventory.Inventory, cs []*checks.Check, cfg *Config, annotations bool) *Result {
	inv.Sort()
	res := &Result{Sources: inv.Sources, Checks: len(cs), Objects: inv.Objects(), Problems: []manifest.Problem{}}
	for _, c := range cs {
		if miss := c.Missing(inv); len(miss) > 0 {
			res.NotEvaluated = append(res.NotEvaluated, NotEvaluated{Check: c.ID, Missing: kindNames(miss),
				Reason: "cannot list " + strings.Join(kindNames(miss), ", ")})
			continue
		}
		if miss := c.MissingObjects(inv); len(miss) > 0 {
			res.NotEvaluated = append(res.NotEvaluated, NotEvaluated{Check: c.ID, Missing: kindNames(miss),
				Reason: "no " + strings.Join(kindNames(miss), ", ") + " objects in the input"})
			continue
		}
		if miss := c.Unseen(inv); len(miss) > 0 {
			res.Partial = append(res.Partial, Partial{Check: c.ID, Missing: kindNames(miss)})
		}
		for _, f := range c.Run(inv) {
			if suppressed(f, inv, cfg, annotations) {
				res.Suppressed++
				continue
			}
			res.Findings = append(res.Findings, f)
		}
	}
	fieldLines(res.Findings, res.Sources)
	sort.SliceStable(res.Findings, func(i, j int) bool {
		a, b := res.Findings[i], res.Findings[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Check != b.Check {
			return a.Check < b.Check
		}
		if a.Object.Kind != b.Object.Kind {
			return a.Object.Kind < b.Object.Kind
		}
		if a.Object.Namespace != b.Object.Namespace {
			return a.Object.Namespace < b.Object.Namespace
		}
		return a.Object.Name < b.Object.Name
	})
	if res.NotEvaluated == nil {
		res.NotEvaluated = []NotEvaluated{}
	}
	if res.Partial == nil {
		res.Partial = []Partial{}
	}
	return res
}

func suppressed(f checks.Finding, inv *inventory.Inventory, cfg *Config, annotations bool) bool {
	if annotations {
		for _, id := range inv.Ignored[f.Object] {
			if id == f.Check || id == "all" || id == "*" {
				return true
			}
		}
	}
	if cfg != nil {
		for _, r := range cfg.Ignore {
			if r.matches(f) {
				return true
			}
		}
	}
	return false
}

func kindNames(ks []inventory.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}
