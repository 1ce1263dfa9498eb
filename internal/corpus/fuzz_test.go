package corpus_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/incidentlib/incidentlib/internal/corpus"
)

// FuzzParseCase feeds arbitrary bytes to the case loader. It must never
// panic, and every problem it reports must name a line inside the input.
func FuzzParseCase(f *testing.F) {
	v := embeddedVocab(f)
	files, _ := filepath.Glob("testdata/*/*/cases/*.yaml")
	more, _ := filepath.Glob("testdata/valid/cases/*.yaml")
	for _, name := range append(files, more...) {
		data, err := os.ReadFile(name)
		if err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("id: [\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, probs := corpus.ParseCase("cases/IL-0001.yaml", data, v)
		lines := 1
		for _, b := range data {
			if b == '\n' {
				lines++
			}
		}
		for _, p := range probs {
			if p.Line < 1 || p.Line > lines+1 {
				t.Fatalf("problem at line %d of a %d-line input: %s", p.Line, lines, p)
			}
			if p.Msg == "" {
				t.Fatalf("problem without a message at line %d", p.Line)
			}
		}
	})
}
