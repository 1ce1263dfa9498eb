package kubegap_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/synth"
)

// BenchmarkOfflineScan reads and checks a synthetic cluster dump. The size
// is a tenth of the 5,000-node, 150,000-pod target unless
// KUBEGAP_BENCH_SCALE says otherwise (1 = the full size, 650 MB of JSON).
//
//	go test -run '^$' -bench OfflineScan -benchtime 3x ./internal/kubegap
func BenchmarkOfflineScan(b *testing.B) {
	scale := 10
	if s, err := strconv.Atoi(os.Getenv("KUBEGAP_BENCH_SCALE")); err == nil && s > 0 {
		scale = s
	}
	size := synth.Large
	size.Nodes /= scale
	size.Pods /= scale
	size.Namespaces = max(1, size.Namespaces/scale)
	dir := b.TempDir()
	for _, format := range []string{"json", "yaml"} {
		path := filepath.Join(dir, "cluster."+format)
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if format == "json" {
			err = synth.WriteJSON(f, size)
		} else {
			err = synth.WriteYAML(f, size)
		}
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		st, _ := os.Stat(path)
		b.Run(format, func(b *testing.B) {
			cs := checks.All()
			b.SetBytes(st.Size())
			for i := 0; i < b.N; i++ {
				inv, _, err := kubegap.ReadFiles([]string{path}, nil, cs)
				if err != nil {
					b.Fatal(err)
				}
				res := kubegap.Evaluate(inv, cs, nil, false)
				if len(res.Findings) == 0 {
					b.Fatal("the synthetic cluster should have findings")
				}
			}
		})
	}
}
