package search_test

import (
	"os"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
)

type judged struct {
	Q    string   `yaml:"q"`
	Want []string `yaml:"want"`
}

func loadRelevance(t testing.TB) []judged {
	t.Helper()
	return readList[judged](t, "testdata/relevance.yaml")
}

// readList reads a YAML list of testdata; an empty one is an error.
func readList[T any](t testing.TB, path string) []T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list []T
	if err := yaml.Unmarshal(data, &list); err != nil || len(list) == 0 {
		t.Fatalf("%s: %v, %d entries", path, err, len(list))
	}
	return list
}

// recallAt5 is the share of wanted cases found in the top five of their
// query, over the whole set.
func recallAt5(t testing.TB, set []judged, top5 func(q string) []string) (float64, []string) {
	found, all := 0, 0
	var misses []string
	for _, j := range set {
		got := top5(j.Q)
		for _, w := range j.Want {
			all++
			hit := false
			for _, g := range got {
				hit = hit || g == w
			}
			if hit {
				found++
			} else {
				misses = append(misses, j.Q+" → "+w)
			}
		}
	}
	return float64(found) / float64(all), misses
}

// realIndex returns the index of the embedded corpus that the tests which
// only read share (built once for the package: a build under -race costs
// seconds). A test that writes to its index takes freshIndex instead.
func realIndex(t testing.TB) *search.Index {
	t.Helper()
	shared.once.Do(func() { shared.ix, shared.err = buildRealIndex() })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.ix
}

var shared struct {
	once sync.Once
	ix   *search.Index
	err  error
}

// freshIndex returns an index of the embedded corpus of the test's own.
func freshIndex(t testing.TB) *search.Index {
	t.Helper()
	ix, err := buildRealIndex()
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func buildRealIndex() (*search.Index, error) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		return nil, err
	}
	return search.New(c.Vocab, c.Cases)
}

func TestRelevance(t *testing.T) {
	set := loadRelevance(t)
	if len(set) < 40 {
		t.Fatalf("the relevance set has %d queries; keep at least 40", len(set))
	}
	ix := realIndex(t)
	recall, misses := recallAt5(t, set, func(q string) []string {
		res, err := ix.Public().Search(search.Query{Text: q, Limit: 5, NoFacets: true})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.Case.ID)
		}
		return ids
	})
	t.Logf("index recall@5 = %.3f over %d queries", recall, len(set))
	for _, m := range misses {
		t.Logf("miss: %s", m)
	}
	if recall < 0.9 {
		t.Errorf("recall@5 = %.3f, want ≥ 0.9", recall)
	}
	base := fts5Recall(t, set)
	t.Logf("FTS5 baseline recall@5 = %.3f", base)
	if recall <= base {
		t.Errorf("the index (%.3f) does not beat the FTS5 baseline (%.3f)", recall, base)
	}
}

// TestUnanswerable: for a question the corpus cannot answer, the answer says
// that no case matches closely instead of offering a confident list.
func TestUnanswerable(t *testing.T) {
	qs := loadUnanswerable(t)
	ix := realIndex(t)
	for _, q := range qs {
		res, err := ix.Public().Search(search.Query{Text: q, NoFacets: true})
		if err != nil {
			t.Fatal(err)
		}
		said := res.Total == 0
		for _, n := range res.Notes {
			said = said || strings.HasPrefix(n, "no case closely matches")
		}
		if !said || res.Close != 0 {
			t.Errorf("%q: %d results, %d close, notes %q: want the weak-match note", q, res.Total, res.Close, res.Notes)
		}
	}
}

// loadUnanswerable reads the questions the corpus cannot answer.
func loadUnanswerable(t testing.TB) []string {
	t.Helper()
	return readList[string](t, "testdata/unanswerable.yaml")
}
