package kubegap_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/synth"
)

// BenchmarkOfflineScan reads and checks a synthetic cluster dump in every
// layout (a kind: List and one object after another, JSON and YAML), so that
// the per-object cost of the layouts can be compared (ns/object). The size
// is a tenth of the 5,000-node, 150,000-pod target unless
// KUBEGAP_BENCH_SCALE says otherwise (1 = the full size, 650 MB of JSON).
// KUBEGAP_BENCH_FILES (paths separated by commas) scans those files instead,
// for profiling the dumps of internal/kubegap/synth/gen.
//
//	go test -run '^$' -bench OfflineScan -benchtime 3x ./internal/kubegap
func BenchmarkOfflineScan(b *testing.B) {
	if files := os.Getenv("KUBEGAP_BENCH_FILES"); files != "" {
		for _, path := range strings.Split(files, ",") {
			b.Run(filepath.Base(path), func(b *testing.B) { benchFile(b, path, 0, false) })
		}
		return
	}
	scale := 10
	if s, err := strconv.Atoi(os.Getenv("KUBEGAP_BENCH_SCALE")); err == nil && s > 0 {
		scale = s
	}
	size := synth.Large
	size.Nodes /= scale
	size.Pods /= scale
	size.Namespaces = max(1, size.Namespaces/scale)
	benchLayouts(b, synth.Cluster(size), true)
}

// BenchmarkWorkloadScan is the same on an application repository's
// manifests (100 namespaces of 30 workloads, no Nodes or Pods): every
// object is one a check reads.
//
//	go test -run '^$' -bench WorkloadScan -benchtime 5x ./internal/kubegap
func BenchmarkWorkloadScan(b *testing.B) {
	benchLayouts(b, synth.Workloads(100, 30), false)
}

func benchLayouts(b *testing.B, gen synth.Generator, wantFindings bool) {
	objects := 0
	if err := gen(func(map[string]any) error { objects++; return nil }); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for _, format := range synth.Formats {
		path := filepath.Join(dir, "dump-"+string(format))
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		err = synth.Write(f, gen, format)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(format), func(b *testing.B) { benchFile(b, path, objects, wantFindings) })
	}
}

func benchFile(b *testing.B, path string, objects int, wantFindings bool) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	cs := checks.All()
	b.SetBytes(st.Size())
	for i := 0; i < b.N; i++ {
		inv, _, err := kubegap.ReadFiles([]string{path}, nil, cs)
		if err != nil {
			b.Fatal(err)
		}
		res := kubegap.Evaluate(inv, cs, nil, false)
		if wantFindings && len(res.Findings) == 0 {
			b.Fatal("the synthetic cluster should have findings")
		}
	}
	if objects > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(objects), "ns/object")
	}
}
