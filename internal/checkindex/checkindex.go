// Package checkindex says which kubegap checks cite which cases, for the
// case and topic pages of incidentlib serve. The index is data that
// kubegap writes from its registry into the closing comment of its check
// catalogue, docs/checks.md (embedded by the root package), so that the
// server links no Kubernetes module. kubegap's TestDocsUpToDate fails when
// the catalogue is not what the registry makes. Regenerate with:
//
//	go generate ./internal/kubegap/checks
package checkindex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/incidentlib/incidentlib"
)

// Check is one kubegap check as the site shows it.
type Check struct {
	ID string `json:"id"`
	// Severity is kubegap's name for it: low, medium or high.
	Severity string           `json:"severity"`
	Title    incidentlib.Text `json:"title"`
	// Cases are the ids of the cases that ground the check.
	Cases []string `json:"cases"`
}

// Index maps case ids to the checks that cite them.
type Index struct {
	all    []Check
	byCase map[string][]Check
}

// Parse reads an index written by the generator, refusing one that is not
// sorted by id, repeats an id, or lacks an id, title or case.
func Parse(b []byte) (*Index, error) {
	var all []Check
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, fmt.Errorf("read the kubegap check index: %w; regenerate it with go generate ./internal/kubegap/checks", err)
	}
	ix := &Index{all: all, byCase: map[string][]Check{}}
	for i, c := range all {
		switch {
		case c.ID == "":
			return nil, fmt.Errorf("kubegap check index: entry %d has no id", i)
		case c.Title.EN == "" || c.Title.KO == "":
			return nil, fmt.Errorf("kubegap check index: %s lacks its English or Korean title", c.ID)
		case len(c.Cases) == 0:
			return nil, fmt.Errorf("kubegap check index: %s cites no case", c.ID)
		case i > 0 && all[i-1].ID >= c.ID:
			return nil, fmt.Errorf("kubegap check index: %s follows %s; the entries must be sorted by id, each once", c.ID, all[i-1].ID)
		}
		for _, id := range c.Cases {
			ix.byCase[id] = append(ix.byCase[id], c)
		}
	}
	return ix, nil
}

// BuiltIn returns the index of the catalogue built into the binary. It is
// read once, on first use, so that kubegap, which writes the catalogue
// with this package, still runs when the file is broken.
var BuiltIn = sync.OnceValues(func() (*Index, error) { return FromCatalogue(incidentlib.CheckCatalogue()) })

// The comment that holds the index at the end of the catalogue: Open, a
// newline, the index as Format writes it, then Close on a line of its own.
const (
	Open  = "<!-- kubegap check index (read by incidentlib serve; generated with the rest):"
	Close = "-->"
)

// FromCatalogue reads the index from the closing comment of a catalogue.
func FromCatalogue(md []byte) (*Index, error) {
	_, rest, ok := bytes.Cut(md, []byte(Open+"\n"))
	if !ok {
		return nil, fmt.Errorf("the kubegap check catalogue holds no index comment; regenerate it with go generate ./internal/kubegap/checks")
	}
	body, _, ok := bytes.Cut(rest, []byte("\n"+Close))
	if !ok {
		return nil, fmt.Errorf("the index comment of the kubegap check catalogue is not closed; regenerate it with go generate ./internal/kubegap/checks")
	}
	return Parse(body)
}

// Format writes cs as the index, one check a line, in the order given (by
// id), leaving out checks that cite no case: they have no place on a case
// page. It refuses an index that would not read back.
func Format(cs []Check) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("[")
	n := 0
	for _, c := range cs {
		if len(c.Cases) == 0 {
			continue
		}
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n")
		buf.Write(b)
		n++
	}
	// json.Marshal writes > as \u003e, so no title can close the comment.
	buf.WriteString("\n]")
	if _, err := Parse(buf.Bytes()); err != nil {
		return nil, fmt.Errorf("the registry makes an index that does not read back: %w", err)
	}
	return buf.Bytes(), nil
}

// All returns every check, sorted by id.
func (ix *Index) All() []Check { return append([]Check(nil), ix.all...) }

// ForCase returns the checks that cite the case id, sorted by id (Parse
// holds the entries to that order); nil if none does.
func (ix *Index) ForCase(id string) []Check {
	if cs := ix.byCase[id]; len(cs) > 0 {
		return append([]Check(nil), cs...)
	}
	return nil
}
