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
)

// Result is what one scan found, before rendering.
type Result struct {
	Findings     []checks.Finding
	NotEvaluated []NotEvaluated
	APIRequests  int
	Suppressed   int
	// Sources maps objects to files and lines (offline scans).
	Sources map[inventory.Ref]inventory.Source
	// Notes are things the user should know that are not findings (skipped
	// kinds, for instance).
	Notes []string
}

// NotEvaluated is a check that could not run, and why.
type NotEvaluated struct {
	Check   string   `json:"check"`
	Missing []string `json:"missing"`
	Reason  string   `json:"reason"`
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
	res := &Result{Sources: inv.Sources}
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
		for _, f := range c.Run(inv) {
			if suppressed(f, inv, cfg, annotations) {
				res.Suppressed++
				continue
			}
			res.Findings = append(res.Findings, f)
		}
	}
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

// ReadFiles reads the objects of the kinds cs need from paths ("-" reads
// stdin). Objects of other kinds are skipped; kinds kubegap does not know
// at all are reported in the notes. Every kind cs need counts as read: an
// offline input is taken as the whole truth about the kinds it could hold.
func ReadFiles(paths []string, stdin io.Reader, cs []*checks.Check) (*inventory.Inventory, []string, error) {
	return ReadDocs(strings.Join(displayPaths(paths), ", "), func(want manifest.Want, fn func(manifest.Doc) error) error {
		return manifest.ReadPaths(paths, stdin, want, fn)
	}, cs)
}

// ReadDocs is ReadFiles for any source of manifest documents (a rendered
// chart or kustomization, for instance): read calls fn for each object,
// located where it came from. input names the input in messages.
func ReadDocs(input string, read func(manifest.Want, func(manifest.Doc) error) error, cs []*checks.Check) (*inventory.Inventory, []string, error) {
	need := map[inventory.Kind]bool{}
	for _, k := range checks.Kinds(cs) {
		need[k] = true
	}
	need[inventory.Pod] = true // counted, for pod estimates
	inv := inventory.New()
	for k := range need {
		inv.MarkRead(k)
	}
	type skip struct {
		n    int
		file string
		line int
	}
	unknown := map[string]*skip{}
	objects := 0
	want := func(apiVersion, kind string) bool {
		k, ok := inventory.Lookup(apiVersion, kind)
		return ok && need[k] && !inventory.Info(k).CountOnly
	}
	err := read(want, func(d manifest.Doc) error {
		objects++
		k, ok := inventory.Lookup(d.APIVersion, d.Kind)
		if !ok {
			key := d.APIVersion + " " + d.Kind
			if s := unknown[key]; s != nil {
				s.n++
			} else {
				unknown[key] = &skip{1, d.File, d.Line}
			}
			return nil
		}
		if !need[k] {
			return nil
		}
		if inventory.Info(k).CountOnly {
			inv.AddCount(k, 1, false)
			return nil
		}
		if err := inv.Add(k, d.JSON, inventory.Source{File: d.File, Line: d.Line}); err != nil {
			return &manifest.Error{File: d.File, Line: d.Line, Msg: err.Error()}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if objects == 0 {
		// A scan that read nothing must never look like a clean one: an
		// empty folder or a failed "helm template … | kubegap scan -f -".
		return nil, nil, fmt.Errorf("the input (%s) holds no Kubernetes object; check the paths, and render Helm charts or kustomize overlays first (helm template …, kubectl kustomize …)", input)
	}
	var notes []string
	for key, s := range unknown {
		notes = append(notes, fmt.Sprintf("%s:%d: skipped %d %s of kind %s: no check reads it", s.file, s.line, s.n, plural(s.n, "object", "objects"), key))
	}
	sort.Strings(notes)
	return inv, notes, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func displayPaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if p == "-" {
			p = "standard input"
		}
		out[i] = p
	}
	return out
}
