package corpus

import (
	"testing"

	"github.com/incidentlib/incidentlib"
)

// BenchmarkLoadCorpus reads, checks and decodes the corpus built into the
// binary, as every start of serve does.
func BenchmarkLoadCorpus(b *testing.B) {
	for b.Loop() {
		res, err := Load(incidentlib.CorpusFS(), nil)
		if err != nil || len(res.Problems) > 0 {
			b.Fatal(err, res.Problems)
		}
	}
}
