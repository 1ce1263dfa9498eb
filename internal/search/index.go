// Package search is the in-memory index behind every face of the product:
// bilingual full-text search, filters and facet counts, snippets, similar
// and related cases, and topics. It is built from a list of cases and
// updated case by case as the store changes.
//
// The index is a small purpose-built inverted index (see
// docs/ARCHITECTURE.md for why it replaced Bleve): postings per field and
// term with BM25 scoring, one bitset per vocabulary term for filters and
// facet counts, and a one-pass text analysis (fastanalysis.go) held by a
// test to the chain of Bleve analysis parts it replaced.
package search

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/incidentlib/incidentlib"
)

// The text fields of the index are incidentlib.SearchFields, in their
// order; each section of incidentlib.Sections names the field it goes
// into. maxFields bounds them: a hit marks the fields it matched in a uint8.
const maxFields = 8

var (
	nFields    = len(incidentlib.SearchFields)
	fieldBoost [maxFields]float32
	fieldNames [maxFields]string
	// sectionField is the field of each section of incidentlib.Sections,
	// or -1 when the section is not searched.
	sectionField []int
	// The fields the engine names: ids rank as if in the title, aliases as
	// if in the symptoms.
	fTitle    = fieldNo("title")
	fSymptoms = fieldNo("symptoms")
)

func init() {
	if nFields > maxFields {
		panic(fmt.Sprintf("search: %d search fields, at most %d", nFields, maxFields))
	}
	for i, f := range incidentlib.SearchFields {
		fieldBoost[i], fieldNames[i] = f.Weight, f.Name
	}
	for _, s := range incidentlib.Sections {
		f := -1
		if s.Search != "" {
			f = fieldNo(s.Search)
		}
		sectionField = append(sectionField, f)
	}
}

func fieldNo(name string) int {
	for i, f := range incidentlib.SearchFields {
		if f.Name == name {
			return i
		}
	}
	panic("search: no search field " + name)
}

// FilterFields are the vocabulary fields a search can be filtered and
// faceted on, in display order.
var FilterFields = []string{
	incidentlib.VocabDomain, incidentlib.VocabSymptoms, incidentlib.VocabRootCause,
	incidentlib.VocabComponents, incidentlib.VocabContributing, incidentlib.VocabSeverity,
}

// postings lists the documents holding a term in one field, with the term's
// frequency there. Two arrays keep it compact.
type postings struct {
	docs []uint32
	tfs  []uint16
}

// Index is the search index. It is safe for concurrent use.
type Index struct {
	fast  *fastAnalyzer // indexing, queries, phrases and snippets
	vocab *incidentlib.Vocab

	mu     sync.RWMutex
	docs   []*incidentlib.Case // by document number; nil once replaced or deleted
	byID   map[string]uint32
	live   bitset // documents that hold the current version of a case
	public bitset // live documents of public cases
	rev    bitset // reviewed
	year   []uint16
	flen   [maxFields][]uint16
	sumLen [maxFields]float64
	// sumLenPub and nPublic are the statistics of the public documents:
	// a public search ranks by them alone, so that nothing about a private
	// case (not even its words' frequencies) shows in a public answer.
	sumLenPub [maxFields]float64
	nPublic   int
	post      [maxFields]map[string]*postings
	// termSets maps "vocab/term" (and "org/slug") to its documents.
	termSets map[string]bitset
	// newest is every live document, newest first, and dateRank each live
	// document's place in it (0 is the newest): set after every change
	// (rankByDate), so that searches order by date by comparing numbers.
	newest   []uint32
	dateRank []uint32
	nLive    int
	// aliases are the vocabulary's aliases, longest first.
	aliases []alias
	// orgByName maps lower-cased organisation names to their slugs.
	orgByName map[string]string
	// snipCache holds documents' snippet fields, analysed.
	snipCache *snipCache
	// facetTab lists the keys of termSets with their labels, by field and
	// term; rebuilt after every change (buildFacets).
	facetTab []facetEntry
	// stats keeps terms' document frequencies (statsOf).
	stats statsCache
	// lenNorm holds BM25's length part, k1·(1-b+b·len/avg), of each
	// document's field, [0] for public searches and [1] with private
	// cases; resetStats computes it after every change.
	lenNorm [2][maxFields][]float32
	// gate admits scoring reads, as many at once as there are processors
	// (admit).
	gate chan struct{}
}

// New builds an index over cases.
func New(v *incidentlib.Vocab, cases []*incidentlib.Case) (*Index, error) {
	ix := &Index{fast: newFastAnalyzer(), vocab: v, byID: map[string]uint32{}, termSets: map[string]bitset{}, orgByName: map[string]string{}, snipCache: newSnipCache(),
		gate: make(chan struct{}, runtime.GOMAXPROCS(0))}
	for _, f := range FilterFields {
		for _, t := range v.Lists[f] {
			for _, a := range t.Aliases {
				if a = strings.TrimSpace(a); a != "" {
					ix.aliases = append(ix.aliases, alias{key: f + "/" + t.ID, text: a, lower: strings.ToLower(a)})
				}
			}
		}
	}
	// Longer aliases first, so "x509: certificate has expired" is read
	// before a shorter one inside it.
	sort.SliceStable(ix.aliases, func(i, j int) bool { return len(ix.aliases[i].lower) > len(ix.aliases[j].lower) })
	for f := 0; f < nFields; f++ {
		ix.post[f] = map[string]*postings{}
	}
	// Analysis is the costly part: run it on every core, then add the
	// results in order on one goroutine.
	type analysed struct {
		c     *incidentlib.Case
		terms [maxFields]map[string]uint16
		lens  [maxFields]uint16
	}
	workers := runtime.GOMAXPROCS(0)
	in := make(chan int, workers*4)
	out := make([]chan analysed, len(cases))
	for i := range out {
		out[i] = make(chan analysed, 1)
	}
	for w := 0; w < workers; w++ {
		go func() {
			cache := stemCache{}
			for i := range in {
				var a analysed
				a.c = cases[i]
				a.terms, a.lens = ix.analyseCase(cases[i], cache)
				out[i] <- a
			}
		}()
	}
	go func() {
		for i := range cases {
			in <- i
		}
		close(in)
	}()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for i := range cases {
		a := <-out[i]
		ix.add(a.c, a.terms, a.lens)
	}
	ix.changed()
	return ix, nil
}

// analyseCase returns, per field, each analysed term with its frequency,
// and the field's length in terms. Each section of incidentlib.Sections
// with a search field adds its texts in both languages; a Terms section
// adds its term ids and their labels.
func (ix *Index) analyseCase(c *incidentlib.Case, cache stemCache) (terms [maxFields]map[string]uint16, lens [maxFields]uint16) {
	var texts [maxFields]strings.Builder
	for i := range incidentlib.Sections {
		f := sectionField[i]
		if f < 0 {
			continue
		}
		b := &texts[f]
		ix.eachSectionText(c, &incidentlib.Sections[i], func(s string) {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(s)
		})
	}
	for f := 0; f < nFields; f++ {
		text := texts[f].String()
		m := make(map[string]uint16, len(text)/12)
		n := 0
		ix.fast.each(text, cache, func(t string) {
			if m[t] < 0xffff {
				m[t]++
			}
			n++
		})
		terms[f] = m
		lens[f] = uint16(min(n, 0xffff))
	}
	return terms, lens
}

// eachSectionText calls fn with every text of section s that search reads:
// each text in English and in Korean, and for a Terms section each term id
// and its labels. Indexing and phrase matching both read it, so what is
// indexed is what a phrase can match.
func (ix *Index) eachSectionText(c *incidentlib.Case, s *incidentlib.Section, fn func(string)) {
	if s.Kind == incidentlib.Terms {
		for _, id := range s.Terms(c) {
			fn(id)
			if t := ix.vocab.Term(s.Vocab, id); t != nil {
				fn(t.Label.EN)
				fn(t.Label.KO)
			}
		}
		return
	}
	for _, t := range s.Texts(c, ix.vocab) {
		if t.EN != "" {
			fn(t.EN)
		}
		if t.KO != "" {
			fn(t.KO)
		}
	}
}

// add appends a document; the caller holds the write lock.
func (ix *Index) add(c *incidentlib.Case, terms [maxFields]map[string]uint16, lens [maxFields]uint16) {
	if old, ok := ix.byID[c.ID]; ok {
		ix.retire(old)
	}
	d := uint32(len(ix.docs))
	ix.docs = append(ix.docs, c)
	ix.byID[c.ID] = d
	ix.live.set(d)
	if !c.Private {
		ix.public.set(d)
		ix.nPublic++
	}
	if c.Reviewed() {
		ix.rev.set(d)
	}
	ix.year = append(ix.year, uint16(c.Year()))
	for f := 0; f < nFields; f++ {
		ix.flen[f] = append(ix.flen[f], lens[f])
		ix.sumLen[f] += float64(lens[f])
		if !c.Private {
			ix.sumLenPub[f] += float64(lens[f])
		}
		for t, tf := range terms[f] {
			p := ix.post[f][t]
			if p == nil {
				p = &postings{}
				ix.post[f][t] = p
			}
			p.docs = append(p.docs, d)
			p.tfs = append(p.tfs, tf)
		}
	}
	for _, f := range FilterFields {
		for _, id := range incidentlib.CaseTerms(c, f) {
			ix.setTerm(f+"/"+id, d)
		}
	}
	ix.setTerm("org/"+c.OrgSlug, d)
	ix.orgByName[strings.ToLower(c.Org)] = c.OrgSlug
	ix.nLive++
}

func (ix *Index) setTerm(key string, d uint32) {
	b := ix.termSets[key]
	b.set(d)
	ix.termSets[key] = b
}

// retire takes a document out of every set; its postings stay and are
// skipped, so an update costs no rewrite of the posting lists.
func (ix *Index) retire(d uint32) {
	c := ix.docs[d]
	if c == nil {
		return
	}
	ix.live.clear(d)
	if !c.Private {
		ix.nPublic--
	}
	ix.public.clear(d)
	ix.rev.clear(d)
	for f := 0; f < nFields; f++ {
		ix.sumLen[f] -= float64(ix.flen[f][d])
		if !c.Private {
			ix.sumLenPub[f] -= float64(ix.flen[f][d])
		}
	}
	for key, b := range ix.termSets {
		if b.has(d) {
			b.clear(d)
			ix.termSets[key] = b
		}
	}
	ix.docs[d] = nil
	ix.snipCache.forget(d)
	delete(ix.byID, c.ID)
	ix.nLive--
}

// Close releases the index.
func (ix *Index) Close() error { return nil }

// Vocab returns the vocabulary the index labels terms with.
func (ix *Index) Vocab() *incidentlib.Vocab { return ix.vocab }

// lenAll returns the number of cases in the index, private ones included.
func (ix *Index) lenAll() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.nLive
}

// lenPublic returns the number of public cases in the index: the count any
// unauthenticated answer (readiness, metrics, stats) may give.
func (ix *Index) lenPublic() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.nPublic
}

// get returns the case id, private or not, or nil.
func (ix *Index) get(id string) *incidentlib.Case {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if d, ok := ix.byID[id]; ok {
		return ix.docs[d]
	}
	return nil
}

// changed brings what the index derives from its documents up to date:
// the term statistics and BM25's length parts (resetStats), the date order
// (rankByDate) and the facet table (buildFacets). The caller holds the
// write lock; every change of the documents ends here (New, Upsert,
// Delete).
func (ix *Index) changed() {
	ix.resetStats()
	ix.rankByDate()
	ix.buildFacets()
}

// rankByDate sets newest, every live document newest first, and dateRank.
// The caller holds the write lock (changed).
func (ix *Index) rankByDate() {
	order := make([]uint32, 0, ix.nLive)
	ix.live.each(func(d uint32) { order = append(order, d) })
	sort.Slice(order, func(i, j int) bool { return newer(ix.docs[order[i]], ix.docs[order[j]]) })
	ix.newest = order
	ix.dateRank = slices.Grow(ix.dateRank[:0], len(ix.docs))[:len(ix.docs)]
	for k, d := range order {
		ix.dateRank[d] = uint32(k)
	}
}

func newer(a, b *incidentlib.Case) bool {
	if a.Date != b.Date {
		return a.Date > b.Date
	}
	return incidentlib.CompareIDs(a.ID, b.ID) > 0
}

// cases returns every case, newest first; private ones only when asked.
func (ix *Index) cases(includePrivate bool) []*incidentlib.Case {
	ix.mu.RLock()
	order := ix.newest
	out := make([]*incidentlib.Case, 0, len(order))
	for _, d := range order {
		if c := ix.docs[d]; c != nil && (includePrivate || !c.Private) {
			out = append(out, c)
		}
	}
	ix.mu.RUnlock()
	return out
}

// Upsert adds or replaces one case.
func (ix *Index) Upsert(c *incidentlib.Case) error {
	terms, lens := ix.analyseCase(c, nil)
	ix.mu.Lock()
	ix.add(c, terms, lens)
	ix.compactIfNeeded()
	ix.changed()
	ix.mu.Unlock()
	return nil
}

// Delete removes one case; deleting a case the index lacks is not an error.
func (ix *Index) Delete(id string) error {
	ix.mu.Lock()
	if d, ok := ix.byID[id]; ok {
		ix.retire(d)
	}
	ix.compactIfNeeded()
	ix.changed()
	ix.mu.Unlock()
	return nil
}

// compactIfNeeded rebuilds the posting lists when retired documents make up
// a quarter of them, so that long-running servers with many edits stay
// fast. The caller holds the write lock.
func (ix *Index) compactIfNeeded() {
	dead := len(ix.docs) - ix.nLive
	if dead < 64 || dead*4 < len(ix.docs) {
		return
	}
	var cases []*incidentlib.Case
	for _, c := range ix.docs {
		if c != nil {
			cases = append(cases, c)
		}
	}
	fresh, err := New(ix.vocab, cases)
	if err != nil {
		return
	}
	ix.docs, ix.byID, ix.live, ix.public, ix.rev = fresh.docs, fresh.byID, fresh.live, fresh.public, fresh.rev
	ix.year, ix.flen, ix.sumLen, ix.post, ix.termSets = fresh.year, fresh.flen, fresh.sumLen, fresh.post, fresh.termSets
	ix.nLive = fresh.nLive
	ix.snipCache = fresh.snipCache
	ix.sumLenPub, ix.nPublic = fresh.sumLenPub, fresh.nPublic
}
