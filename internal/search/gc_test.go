package search_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/incidentlib/incidentlib/internal/search"
)

// TestNewLeavesTheGCAlone: building an index, however large, does not
// change the process's GC setting, which belongs to the program (serve sets
// it, unless GOGC is set): two builds at once would each restore the other's.
func TestNewLeavesTheGCAlone(t *testing.T) {
	// The size that once turned GOGC up was 5,000 cases; a build that large
	// costs half a minute under -race, so the sample runs on a smaller one
	// and TestNoGCSettingInTheIndex rules out a setting at any size.
	v, cases := synthetic(t, 400)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	sample := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	gogc := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	if g := gogc(); g != 100 {
		t.Fatalf("GOGC reads %d after setting it to 100", g)
	}
	done := make(chan error, 1)
	go func() {
		ix, err := search.New(v, cases)
		if err == nil {
			ix.Close()
		}
		done <- err
	}()
	seen := map[uint64]bool{}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			seen[gogc()] = true
			delete(seen, 100)
			for g := range seen {
				t.Errorf("GOGC was %d while the index was built, want the program's 100", g)
			}
			return
		case <-tick.C: // sample the setting while the build runs
			seen[gogc()] = true
		}
	}
}

// TestNoGCSettingInTheIndex: no file of the package (tests aside) calls
// runtime/debug's SetGCPercent or SetMemoryLimit, whatever the size or the
// condition it would do so under.
func TestNoGCSettingInTheIndex(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files here (%v)", err)
	}
	fset := token.NewFileSet()
	read := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		read++
		debugName := ""
		for _, im := range file.Imports {
			if im.Path.Value == `"runtime/debug"` {
				debugName = "debug"
				if im.Name != nil {
					debugName = im.Name.Name
				}
			}
		}
		if debugName == "" {
			continue
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == debugName && (sel.Sel.Name == "SetGCPercent" || sel.Sel.Name == "SetMemoryLimit") {
				t.Errorf("%s: the index sets the program's GC (%s.%s); that belongs to the program", fset.Position(sel.Pos()), debugName, sel.Sel.Name)
			}
			return true
		})
	}
	if read == 0 {
		t.Fatal("read no file of the package")
	}
}
