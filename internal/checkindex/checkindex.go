// Package checkindex says which kubegap checks cite which cases, for the
// case and topic pages of incidentlib serve. It holds the index as data
// (checks.json), generated from kubegap's registry, so that the server
// links no Kubernetes module; a test in ./gen fails when the data and the
// registry disagree. Regenerate with:
//
//	go generate ./internal/checkindex
package checkindex

//go:generate go run ./gen -o checks.json

import (
	_ "embed"
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

//go:embed checks.json
var data []byte

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
		return nil, fmt.Errorf("read the kubegap check index: %w; regenerate it with go generate ./internal/checkindex", err)
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

// BuiltIn returns the index built into the binary. It is read once, on
// first use, so that the generator, which imports this package, still runs
// when the file is broken.
var BuiltIn = sync.OnceValues(func() (*Index, error) { return Parse(data) })

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
