// Package checks is kubegap's registry of checks. A check is a value: a
// stable id, a severity, its title, remediation and explanation in English
// and Korean, the kinds it reads, the corpus cases that ground it, and a
// pure function over the inventory.
package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"

	"github.com/incidentlib/incidentlib/internal/locale"
)

// Severity orders findings.
type Severity int

// Severities, lowest first.
const (
	Low Severity = iota + 1
	Medium
	High
)

func (s Severity) String() string {
	switch s {
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	}
	return "unknown"
}

// Label names the severity in lang, from the catalogue of words.
func (s Severity) Label(lang string) string { return locale.T(lang, "check.severity."+s.String()) }

// MarshalText writes the severity as its name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ParseSeverity reads "low", "medium" or "high".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "low":
		return Low, nil
	case "medium":
		return Medium, nil
	case "high":
		return High, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want low, medium or high)", s)
}

// Check is one entry of the registry.
type Check struct {
	ID       string
	Severity Severity
	Title    incidentlib.Text
	// Remediation says how to fix what the check finds.
	Remediation incidentlib.Text
	// LooksAt says what the check reads and what its rule is.
	LooksAt incidentlib.Text
	// CannotSee says what the rule misses.
	CannotSee incidentlib.Text
	// Kinds are the kinds the check needs: it is not evaluated unless all
	// of them were read. A kind belongs here when the rule is unsound
	// without it: a finding that rests on the absence of some object (no
	// FlowSchema, no PodDisruptionBudget, no LimitRange default) would be
	// a false positive when that kind could not be listed.
	Kinds []inventory.Kind
	// AnyOf are groups of kinds of which the check needs at least one each:
	// the kinds a rule applies to object by object, such as the workload
	// kinds, where a finding on a Deployment does not depend on the
	// StatefulSets. With one kind of each group read, the check is
	// evaluated on what was read and reported as partial for the others.
	AnyOf [][]inventory.Kind
	// Optional are kinds the check can do without: objects of them add
	// findings (or raise their severity), or rule out a finding that the
	// check would otherwise report (a workload no Service selects), so
	// that without them the check errs towards reporting, never towards a
	// silent pass. One not read makes the check partial, not unevaluated.
	Optional []inventory.Kind
	// NeedObjects are kinds of which at least one object must be present:
	// an offline input without any Node says nothing about nodes.
	NeedObjects []inventory.Kind
	// Citations are the corpus cases that ground the check, each with the
	// sentence of the case that states the mechanism the check looks for.
	Citations []Citation
	// Cases are the ids of Citations, in their order, filled in when the
	// registry is built; a check sets Citations, never Cases.
	Cases []string
	Run   func(inv *inventory.Inventory) []Finding
}

// Citation is one case that grounds a check, with its evidence: Quote is a
// sentence or clause taken verbatim from one of the case's English texts,
// and QuoteKO its counterpart taken verbatim from the same case's Korean
// text (empty when the Korean text has none). TestCitationsQuoteTheirCases
// holds both to the corpus, white space aside.
type Citation struct {
	Case    string `json:"case"`
	Quote   string `json:"quote"`
	QuoteKO string `json:"quote_ko,omitempty"`
}

// QuoteIn returns the quote in lang, falling back to the English one.
func (c Citation) QuoteIn(lang string) string {
	if lang == "ko" && c.QuoteKO != "" {
		return c.QuoteKO
	}
	return c.Quote
}

// Finding is one gap on one object. Severity may be below the check's own
// when the evidence is weaker.
type Finding struct {
	Check    string
	Severity Severity
	Object   inventory.Ref
	Message  incidentlib.Text
	Cases    []string
	// Citations are the check's citations, with the quotes behind Cases.
	Citations []Citation
	// Field is the path of the field at fault in the object, as the
	// manifest writes it ("spec.template.spec.containers[0].livenessProbe"),
	// when the check names one.
	Field string
	// FieldLine is the line of Field in the object's file, filled in by
	// the scan (0 when unknown: live objects, packaged charts, stdin).
	FieldLine int
	// FieldFile is the file of FieldLine when it is another than the
	// object's: the chart template whose define an include wrote it from.
	FieldFile string
}

// All returns the registry, sorted by id.
func All() []*Check {
	return append([]*Check(nil), registry...)
}

// Get returns the check id, or nil.
func Get(id string) *Check {
	for _, c := range registry {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// Reads returns every kind c reads: Kinds, then AnyOf's, then Optional.
func (c *Check) Reads() []inventory.Kind {
	out := append([]inventory.Kind(nil), c.Kinds...)
	for _, g := range c.AnyOf {
		out = append(out, g...)
	}
	return append(out, c.Optional...)
}

// Kinds returns the union of the kinds the given checks read.
func Kinds(cs []*Check) []inventory.Kind {
	seen := map[inventory.Kind]bool{}
	var out []inventory.Kind
	for _, c := range cs {
		for _, k := range c.Reads() {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// finding builds a Finding of c on ref with a message in both languages.
// findingAt is a finding that names the field at fault.
func (c *Check) findingAt(sev Severity, ref inventory.Ref, field, en, ko string) Finding {
	f := c.finding(sev, ref, en, ko)
	f.Field = field
	return f
}

func (c *Check) finding(sev Severity, ref inventory.Ref, en, ko string) Finding {
	if sev == 0 {
		sev = c.Severity
	}
	return Finding{Check: c.ID, Severity: sev, Object: ref, Message: incidentlib.Text{EN: en, KO: ko}, Cases: c.Cases, Citations: c.Citations}
}

// Missing returns what c needs and inv did not read: the Kinds not read,
// and every kind of an AnyOf group of which none was read. c can be
// evaluated on inv only when there are none.
func (c *Check) Missing(inv *inventory.Inventory) []inventory.Kind {
	var out []inventory.Kind
	for _, k := range c.Kinds {
		if !inv.Read[k] {
			out = append(out, k)
		}
	}
	for _, g := range c.AnyOf {
		if len(unread(inv, g)) == len(g) {
			out = append(out, g...)
		}
	}
	return out
}

// Unseen returns the kinds c can do without that inv did not read (those
// of AnyOf groups and Optional): c, when it can be evaluated at all, is
// evaluated without them.
func (c *Check) Unseen(inv *inventory.Inventory) []inventory.Kind {
	var out []inventory.Kind
	for _, g := range c.AnyOf {
		out = append(out, unread(inv, g)...)
	}
	return append(out, unread(inv, c.Optional)...)
}

func unread(inv *inventory.Inventory, ks []inventory.Kind) []inventory.Kind {
	var out []inventory.Kind
	for _, k := range ks {
		if !inv.Read[k] {
			out = append(out, k)
		}
	}
	return out
}

// MissingObjects returns the NeedObjects kinds of which inv holds none.
func (c *Check) MissingObjects(inv *inventory.Inventory) []inventory.Kind {
	var out []inventory.Kind
	for _, k := range c.NeedObjects {
		if count(inv, k) == 0 {
			out = append(out, k)
		}
	}
	return out
}

func count(inv *inventory.Inventory, k inventory.Kind) int {
	switch k {
	case inventory.Node:
		return len(inv.Nodes)
	case inventory.Namespace:
		return len(inv.Namespaces)
	}
	return inv.Counts[k].N
}
