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
	// Kinds are the kinds the check reads; it is not evaluated unless all
	// of them were read.
	Kinds []inventory.Kind
	// NeedObjects are kinds of which at least one object must be present:
	// an offline input without any Node says nothing about nodes.
	NeedObjects []inventory.Kind
	// Cases are the corpus ids that ground the check.
	Cases []string
	Run   func(inv *inventory.Inventory) []Finding
}

// Finding is one gap on one object. Severity may be below the check's own
// when the evidence is weaker.
type Finding struct {
	Check    string
	Severity Severity
	Object   inventory.Ref
	Message  incidentlib.Text
	Cases    []string
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

// Kinds returns the union of the kinds the given checks read.
func Kinds(cs []*Check) []inventory.Kind {
	seen := map[inventory.Kind]bool{}
	var out []inventory.Kind
	for _, c := range cs {
		for _, k := range c.Kinds {
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
func (c *Check) finding(sev Severity, ref inventory.Ref, en, ko string) Finding {
	if sev == 0 {
		sev = c.Severity
	}
	return Finding{Check: c.ID, Severity: sev, Object: ref, Message: incidentlib.Text{EN: en, KO: ko}, Cases: c.Cases}
}

// Missing returns the kinds c reads that inv did not read; c can be
// evaluated on inv only when there are none.
func (c *Check) Missing(inv *inventory.Inventory) []inventory.Kind {
	var out []inventory.Kind
	for _, k := range c.Kinds {
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
