// Package search is the in-memory index behind every face of the product:
// bilingual full-text search, filters and facet counts, snippets, similar
// and related cases, and topics. It is built from a list of cases and
// updated case by case as the store changes.
package search

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/incidentlib/incidentlib"
)

// Text fields and their weights: title, trigger and symptoms above summary
// above the rest.
var textFields = []struct {
	name  string
	boost float64
}{
	{"title", 4},
	{"trigger", 3},
	{"symptoms_text", 3},
	{"terms", 2.5},
	{"summary", 2},
	{"org", 2},
	{"rest", 1},
}

// vectorFields keep term vectors: phrases match there, and snippets are cut
// from them.
var vectorFields = map[string]bool{"title": true, "trigger": true, "symptoms_text": true, "summary": true, "rest": true}

// FilterFields are the vocabulary fields a search can be filtered and
// faceted on, in display order.
var FilterFields = []string{
	incidentlib.VocabDomain, incidentlib.VocabSymptoms, incidentlib.VocabRootCause,
	incidentlib.VocabComponents, incidentlib.VocabContributing, incidentlib.VocabSeverity,
}

// Index is the search index. It is safe for concurrent use.
type Index struct {
	mu    sync.RWMutex
	bi    bleve.Index
	vocab *incidentlib.Vocab
	cases map[string]*incidentlib.Case
}

func newMapping() (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	if err := addAnalyzer(m); err != nil {
		return nil, err
	}
	doc := bleve.NewDocumentMapping()
	text := func(vectors bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzerName
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = vectors
		f.DocValues = false
		return f
	}
	// Both languages share a field: one analyzer reads both, and half the
	// fields means half the term searchers per query. Term vectors (positions
	// and offsets, for quoted phrases and snippets) are kept only where
	// snippets come from: they cost time at every start.
	for _, tf := range textFields {
		doc.AddFieldMappingsAt(tf.name, text(vectorFields[tf.name]))
	}
	kw := func() *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		return f
	}
	for _, name := range append([]string{"id", "org_slug", "date", "visibility"}, FilterFields...) {
		doc.AddFieldMappingsAt(name, kw())
	}
	year := bleve.NewNumericFieldMapping()
	year.Store = false
	doc.AddFieldMappingsAt("year", year)
	rev := bleve.NewBooleanFieldMapping()
	rev.Store = false
	doc.AddFieldMappingsAt("reviewed", rev)
	m.DefaultMapping = doc
	m.DefaultAnalyzer = analyzerName
	return m, nil
}

// New builds an index over cases.
func New(v *incidentlib.Vocab, cases []*incidentlib.Case) (*Index, error) {
	m, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("search mapping: %w", err)
	}
	// Scorch with an empty path keeps every segment in memory.
	bi, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("create search index: %w", err)
	}
	ix := &Index{bi: bi, vocab: v, cases: map[string]*incidentlib.Case{}}
	batch := bi.NewBatch()
	for _, c := range cases {
		if err := batch.Index(c.ID, ix.document(c)); err != nil {
			return nil, fmt.Errorf("index %s: %w", c.ID, err)
		}
		ix.cases[c.ID] = c
		if batch.Size() >= 1000 {
			if err := bi.Batch(batch); err != nil {
				return nil, err
			}
			batch = bi.NewBatch()
		}
	}
	if err := bi.Batch(batch); err != nil {
		return nil, fmt.Errorf("index cases: %w", err)
	}
	return ix, nil
}

// Close releases the index.
func (ix *Index) Close() error { return ix.bi.Close() }

// Vocab returns the vocabulary the index labels terms with.
func (ix *Index) Vocab() *incidentlib.Vocab { return ix.vocab }

// Len returns the number of cases in the index, private ones included.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.cases)
}

// Case returns the case id, or nil.
func (ix *Index) Case(id string) *incidentlib.Case {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.cases[id]
}

// Cases returns every case, newest first; private ones only when asked.
func (ix *Index) Cases(includePrivate bool) []*incidentlib.Case {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]*incidentlib.Case, 0, len(ix.cases))
	for _, c := range ix.cases {
		if c.Private && !includePrivate {
			continue
		}
		out = append(out, c)
	}
	sortByDate(out)
	return out
}

func sortByDate(cs []*incidentlib.Case) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Date != cs[j].Date {
			return cs[i].Date > cs[j].Date
		}
		return cs[i].ID > cs[j].ID
	})
}

// Upsert adds or replaces one case.
func (ix *Index) Upsert(c *incidentlib.Case) error {
	if err := ix.bi.Index(c.ID, ix.document(c)); err != nil {
		return fmt.Errorf("index %s: %w", c.ID, err)
	}
	ix.mu.Lock()
	ix.cases[c.ID] = c
	ix.mu.Unlock()
	return nil
}

// Delete removes one case.
func (ix *Index) Delete(id string) error {
	if err := ix.bi.Delete(id); err != nil {
		return fmt.Errorf("unindex %s: %w", id, err)
	}
	ix.mu.Lock()
	delete(ix.cases, id)
	ix.mu.Unlock()
	return nil
}

func itemsText(items []incidentlib.Item, lang string) string {
	var b strings.Builder
	for _, it := range items {
		if lang == "en" {
			b.WriteString(it.Text.EN)
		} else {
			b.WriteString(it.Text.KO)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// document is what the index stores for a case.
func (ix *Index) document(c *incidentlib.Case) map[string]any {
	d := map[string]any{
		"id":         c.ID,
		"org_slug":   c.OrgSlug,
		"org":        c.Org,
		"date":       c.Date,
		"year":       float64(c.Year()),
		"reviewed":   c.Reviewed(),
		"visibility": visibility(c),
	}
	for _, f := range FilterFields {
		d[f] = incidentlib.CaseTerms(c, f)
	}
	both := func(t incidentlib.Text) string { return t.EN + "\n" + t.KO }
	d["title"] = both(c.Title)
	d["trigger"] = both(c.Trigger)
	d["symptoms_text"] = both(c.SymptomsText)
	d["summary"] = both(c.Summary)
	d["rest"] = strings.Join([]string{both(c.Detection), both(c.Lessons),
		itemsText(c.Remediation, "en"), itemsText(c.Remediation, "ko"),
		itemsText(c.ActionItems, "en"), itemsText(c.ActionItems, "ko")}, "\n")
	// Vocabulary labels in both languages let "conntrack 테이블" or "설정 변경"
	// find a case tagged with the term even where its prose words it otherwise.
	var terms []string
	for _, f := range FilterFields {
		if f == incidentlib.VocabSeverity {
			continue
		}
		for _, id := range incidentlib.CaseTerms(c, f) {
			terms = append(terms, id)
			if t := ix.vocab.Term(f, id); t != nil {
				terms = append(terms, t.Label.EN, t.Label.KO)
			}
		}
	}
	d["terms"] = strings.Join(terms, "\n")
	return d
}

func visibility(c *incidentlib.Case) string {
	if c.Private {
		return "private"
	}
	return "public"
}
