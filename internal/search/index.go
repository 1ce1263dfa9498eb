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
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

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
	// dateKey and idNum order documents by date, then id (newerDoc).
	dateKey []uint32
	idNum   []int64
	flen    [maxFields][]uint16
	// sumLen is the summed length of each field over the live documents,
	// in whole terms, so that writes keep it exact.
	sumLen [maxFields]int64
	// sumLenPub and nPublic are the statistics of the public documents:
	// a public search ranks by them alone, so that nothing about a private
	// case (not even its words' frequencies) shows in a public answer.
	sumLenPub [maxFields]int64
	nPublic   int
	post      [maxFields]map[string]*postings
	// termSets maps "vocab/term" (and "org/slug") to its documents. A set
	// is never replaced, so the facet table holds it by pointer.
	termSets map[string]*bitset
	// newest is every live document, newest first, sorted when cases()
	// first needs it after a write (nil until then), under newestMu.
	newest   []uint32
	newestMu sync.Mutex
	nLive    int
	// aliases are the vocabulary's aliases, longest first.
	aliases []alias
	// orgByName maps lower-cased organisation names to their slugs.
	orgByName map[string]string
	// snipCache holds documents' snippet fields, analysed.
	snipCache *snipCache
	// facetTab lists the keys of termSets with their labels, by field and
	// term; a new key is put in its place as it comes (addFacet).
	facetTab []facetEntry
	// stats keeps terms' document frequencies (statsOf).
	stats statsCache
	// avgLen is each field's mean length in terms, [0] over the public
	// documents and [1] over every live one; setAvg sets it after every
	// change.
	avgLen [2][maxFields]float32
	// gen counts changes (Generation).
	gen atomic.Uint64
	// prunedN counts the searches scored for closeness alone (scoreClose);
	// a test reads it.
	prunedN atomic.Int64
	// skippedN counts the pruned searches that left a list out of the
	// candidates (a non-essential term); a test reads it.
	skippedN atomic.Int64
	// building is set while New adds the corpus.
	building bool
	// postingWrites counts the postings writes changed (putPosting and
	// dropPosting after New), under the write lock; a test reads it.
	postingWrites int64
	// gate admits scoring reads, as many at once as there are processors
	// (admit).
	gate chan struct{}
}

// New builds an index over cases.
func New(v *incidentlib.Vocab, cases []*incidentlib.Case) (*Index, error) {
	ix := newEmpty(v)
	ix.build(cases)
	return ix, nil
}

// newEmpty returns an index of no cases over the vocabulary v.
func newEmpty(v *incidentlib.Vocab) *Index {
	ix := &Index{fast: newFastAnalyzer(), vocab: v, byID: map[string]uint32{}, termSets: map[string]*bitset{}, orgByName: map[string]string{}, snipCache: newSnipCache(),
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
	return ix
}

// build adds cases to an empty index.
func (ix *Index) build(cases []*incidentlib.Case) {
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
	// The facet table is sorted once at the end, not kept in order key by
	// key (which costs the table's length a key).
	ix.building = true
	for i := range cases {
		a := <-out[i]
		ix.add(a.c, a.terms, a.lens)
	}
	ix.building = false
	slices.SortFunc(ix.facetTab, compareFacets)
	ix.changed()
}

// analyseCase returns, per field, each analysed term with its frequency,
// and the field's length in terms; cache may be nil. Each section of
// incidentlib.Sections with a search field adds its texts in both
// languages; a Terms section adds its term ids and their labels.
func (ix *Index) analyseCase(c *incidentlib.Case, cache stemCache) (terms [maxFields]map[string]uint16, lens [maxFields]uint16) {
	if cache == nil {
		// A case repeats its words: one case's own cache saves most of
		// the stemming of a write.
		cache = stemCache{}
	}
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

// add puts c in the index; the caller holds the write lock. A case the
// index holds keeps its document number: the old version's postings are
// replaced by the new one's term by term (a term both hold changes its
// frequency in place, one only the old held loses the document, one only
// the new holds gains it), and only the old version's own term sets are
// cleared. A new case takes the next number, at the end of every posting
// list. So a write costs the terms of the two versions, never a pass over
// the corpus, and the posting lists never hold a dead document.
func (ix *Index) add(c *incidentlib.Case, terms [maxFields]map[string]uint16, lens [maxFields]uint16) {
	ix.addPre(c, terms, lens, nil, nil, nil)
}

// termDelta is what a write changes in the postings of its document: per
// field, the terms whose frequency is new or changed (with it), and the
// terms the old version held and the new one does not.
type termDelta struct {
	put  [maxFields][]termTF
	drop [maxFields][]string
}

type termTF struct {
	t  string
	tf uint16
}

// diffTerms returns what replacing a version holding old by one holding
// terms changes in the postings. A write computes it before it takes the
// write lock, so that the lock is held for the changed terms alone: an
// edit of one word of a case changes one posting, not the case's
// thousands.
func diffTerms(old, terms *[maxFields]map[string]uint16) *termDelta {
	var dt termDelta
	for f := 0; f < nFields; f++ {
		for t, tf := range terms[f] {
			if old[f][t] != tf {
				dt.put[f] = append(dt.put[f], termTF{t, tf})
			}
		}
		for t := range old[f] {
			if _, still := terms[f][t]; !still {
				dt.drop[f] = append(dt.drop[f], t)
			}
		}
	}
	return &dt
}

// each calls fn with every term of the delta, put or dropped.
func (dt *termDelta) each(fn func(string)) {
	for f := 0; f < nFields; f++ {
		for _, p := range dt.put[f] {
			fn(p.t)
		}
		for _, t := range dt.drop[f] {
			fn(t)
		}
	}
}

// addPre is add given the terms of the version it replaces, analysed
// before the write lock was taken (pre, of the case prev; nil when not),
// and what the write changes (delta, diffTerms(pre, terms); nil when not):
// used when prev is still that version, else analysed again.
func (ix *Index) addPre(c *incidentlib.Case, terms [maxFields]map[string]uint16, lens [maxFields]uint16, prev *incidentlib.Case, pre *[maxFields]map[string]uint16, delta *termDelta) {
	d, ok := ix.byID[c.ID]
	var oldTerms [maxFields]map[string]uint16
	var old *incidentlib.Case
	if ok {
		old = ix.docs[d]
		if pre != nil && prev == old {
			oldTerms = *pre
		} else {
			oldTerms, _ = ix.analyseCase(old, nil)
			delta = nil
		}
		ix.unset(d, old)
	} else {
		d = uint32(len(ix.docs))
		ix.grow(int(d) + 1)
		delta = nil
	}
	if old != nil && delta == nil {
		delta = diffTerms(&oldTerms, &terms)
	}
	ix.place(c, d, lens)
	for f := 0; f < nFields; f++ {
		if delta != nil {
			for _, p := range delta.put[f] {
				ix.putPosting(f, p.t, d, p.tf)
			}
			for _, t := range delta.drop[f] {
				ix.dropPosting(f, t, d)
			}
			continue
		}
		for t, tf := range terms[f] {
			ix.putPosting(f, t, d, tf)
		}
	}
	switch {
	case old != nil && old.Private == c.Private:
		// The document frequencies change only where a term came or
		// went, and the posting lists only where one was made or emptied:
		// the delta's terms.
		ix.restat(old, c, &oldTerms, &terms, delta)
	case old != nil:
		ix.restat(old, c, &oldTerms, &terms, nil)
	case !ix.building:
		ix.restat(nil, c, nil, &terms, nil)
	}
	ix.snipCache.forget(d)
	ix.newest = nil
}

// putPosting sets document d's frequency of term t in field f to tf,
// making the term's list when the field had none.
func (ix *Index) putPosting(f int, t string, d uint32, tf uint16) {
	if !ix.building {
		ix.postingWrites++
	}
	p := ix.post[f][t]
	if p == nil {
		p = &postings{}
		ix.post[f][t] = p
	}
	p.put(d, tf)
}

// place makes document d hold case c, whose fields are lens terms long:
// everything but the postings (its sets, counts, length sums, date and
// id keys). The slices indexed by document reach d already.
func (ix *Index) place(c *incidentlib.Case, d uint32, lens [maxFields]uint16) {
	ix.docs[d] = c
	ix.byID[c.ID] = d
	ix.live.set(d)
	if !c.Private {
		ix.public.set(d)
		ix.nPublic++
	}
	if c.Reviewed() {
		ix.rev.set(d)
	}
	ix.year[d] = uint16(c.Year())
	ix.dateKey[d] = dateKey(c.Date)
	// A string that is not an id orders after every id, as CompareIDs
	// has it (the stores refuse such a case anyway).
	ix.idNum[d] = math.MaxInt64
	if n, ok := incidentlib.IDNumber(c.ID); ok {
		ix.idNum[d] = n
	}
	for f := 0; f < nFields; f++ {
		ix.flen[f][d] = lens[f]
		ix.sumLen[f] += int64(lens[f])
		if !c.Private {
			ix.sumLenPub[f] += int64(lens[f])
		}
	}
	for _, f := range FilterFields {
		for _, id := range incidentlib.CaseTerms(c, f) {
			ix.setTerm(f+"/"+id, d, "")
		}
	}
	ix.setTerm("org/"+c.OrgSlug, d, c.Org)
	ix.orgByName[strings.ToLower(c.Org)] = c.OrgSlug
	ix.nLive++
}

// grow makes the slices indexed by document n long.
func (ix *Index) grow(n int) {
	for len(ix.docs) < n {
		ix.docs = append(ix.docs, nil)
		ix.year = append(ix.year, 0)
		ix.dateKey = append(ix.dateKey, 0)
		ix.idNum = append(ix.idNum, 0)
		for f := 0; f < nFields; f++ {
			ix.flen[f] = append(ix.flen[f], 0)
		}
	}
}

// dropPosting takes document d out of term t's postings in field f, and
// the term out of the field when no document holds it any more.
func (ix *Index) dropPosting(f int, t string, d uint32) {
	ix.postingWrites++
	p := ix.post[f][t]
	if p == nil {
		return
	}
	p.remove(d)
	if len(p.docs) == 0 {
		delete(ix.post[f], t)
	}
}

// put sets document d's frequency tf: in place when the list holds d,
// else inserted where d's number puts it (at the end for a new document).
func (p *postings) put(d uint32, tf uint16) {
	n := len(p.docs)
	if n == 0 || p.docs[n-1] < d {
		p.docs = append(p.docs, d)
		p.tfs = append(p.tfs, tf)
		return
	}
	i, found := slices.BinarySearch(p.docs, d)
	if found {
		p.tfs[i] = tf
		return
	}
	p.docs = slices.Insert(p.docs, i, d)
	p.tfs = slices.Insert(p.tfs, i, tf)
}

// remove takes document d out of the list.
func (p *postings) remove(d uint32) {
	if i, found := slices.BinarySearch(p.docs, d); found {
		p.docs = slices.Delete(p.docs, i, i+1)
		p.tfs = slices.Delete(p.tfs, i, i+1)
	}
}

// setTerm adds document d to the set of key ("vocab/term" or "org/slug"),
// and a new key to the facet table, labelled by label for an organisation.
func (ix *Index) setTerm(key string, d uint32, label string) {
	b := ix.termSets[key]
	if b == nil {
		b = &bitset{}
		ix.termSets[key] = b
		if ix.building {
			ix.facetTab = append(ix.facetTab, ix.facetEntry(key, b, label))
		} else {
			ix.addFacet(key, b, label)
		}
	}
	b.set(d)
}

// unset takes document d, holding case c, out of the counts, the length
// sums and the sets of c's own terms and organisation; its postings are
// the caller's to change.
func (ix *Index) unset(d uint32, c *incidentlib.Case) {
	ix.live.clear(d)
	if !c.Private {
		ix.nPublic--
	}
	ix.public.clear(d)
	ix.rev.clear(d)
	for f := 0; f < nFields; f++ {
		ix.sumLen[f] -= int64(ix.flen[f][d])
		if !c.Private {
			ix.sumLenPub[f] -= int64(ix.flen[f][d])
		}
	}
	for _, f := range FilterFields {
		for _, id := range incidentlib.CaseTerms(c, f) {
			if b := ix.termSets[f+"/"+id]; b != nil {
				b.clear(d)
			}
		}
	}
	if b := ix.termSets["org/"+c.OrgSlug]; b != nil {
		b.clear(d)
	}
	ix.nLive--
}

// dateKey packs a date ("2024-03-01", "2024-03", "2024") into a number
// that orders as the strings do: each digit as digit+1 in four bits, the
// digits missing from a shorter date as zero.
func dateKey(date string) uint32 {
	var k uint32
	n := 0
	for i := 0; i < len(date) && n < 8; i++ {
		if c := date[i]; c >= '0' && c <= '9' {
			k = k<<4 | uint32(c-'0'+1)
			n++
		}
	}
	return k << (4 * (8 - n))
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

// changed brings up to date what the index derives from all its documents,
// each field's mean length (setAvg), and counts the change; the term
// statistics a write touched were brought up to date by restat. The caller
// holds the write lock; every change of the documents ends here (New,
// Upsert, Delete). Nothing here is a pass over the corpus.
func (ix *Index) changed() {
	ix.setAvg()
	ix.gen.Add(1)
}

// Generation counts the index's changes: a snapshot written at one
// generation describes the index as long as it has not moved on.
func (ix *Index) Generation() uint64 { return ix.gen.Load() }

// newerDoc reports whether document a is newer than b: a later date, or
// on the same date a higher id number (incidentlib.CompareIDs' order).
// The caller holds the read lock.
func (ix *Index) newerDoc(a, b uint32) bool {
	if ix.dateKey[a] != ix.dateKey[b] {
		return ix.dateKey[a] > ix.dateKey[b]
	}
	return ix.idNum[a] > ix.idNum[b]
}

// cases returns every case, newest first; private ones only when asked.
// The order is sorted when first asked for after a write and kept until
// the next, so that a write never sorts the corpus.
func (ix *Index) cases(includePrivate bool) []*incidentlib.Case {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	ix.newestMu.Lock()
	order := ix.newest
	if order == nil {
		order = make([]uint32, 0, ix.nLive)
		ix.live.each(func(d uint32) { order = append(order, d) })
		slices.SortFunc(order, func(a, b uint32) int {
			switch {
			case ix.newerDoc(a, b):
				return -1
			case ix.newerDoc(b, a):
				return 1
			}
			return 0
		})
		ix.newest = order
	}
	ix.newestMu.Unlock()
	out := make([]*incidentlib.Case, 0, len(order))
	for _, d := range order {
		if c := ix.docs[d]; c != nil && (includePrivate || !c.Private) {
			out = append(out, c)
		}
	}
	return out
}

// Upsert adds or replaces one case.
func (ix *Index) Upsert(c *incidentlib.Case) error {
	// Both versions are analysed before the write lock, so that searches
	// wait only for the postings to change.
	terms, lens := ix.analyseCase(c, nil)
	prev := ix.get(c.ID)
	var pre *[maxFields]map[string]uint16
	var delta *termDelta
	if prev != nil {
		t, _ := ix.analyseCase(prev, nil)
		pre = &t
		delta = diffTerms(pre, &terms)
	}
	ix.mu.Lock()
	ix.addPre(c, terms, lens, prev, pre, delta)
	ix.changed()
	ix.mu.Unlock()
	return nil
}

// Delete removes one case; deleting a case the index lacks is not an error.
// Its document number stays empty.
func (ix *Index) Delete(id string) error {
	ix.mu.Lock()
	if d, ok := ix.byID[id]; ok {
		c := ix.docs[d]
		terms, _ := ix.analyseCase(c, nil)
		for f := 0; f < nFields; f++ {
			for t := range terms[f] {
				ix.dropPosting(f, t, d)
			}
		}
		ix.restat(c, nil, &terms, nil, nil)
		ix.unset(d, c)
		ix.docs[d] = nil
		delete(ix.byID, id)
		ix.snipCache.forget(d)
		ix.newest = nil
	}
	ix.changed()
	ix.mu.Unlock()
	return nil
}
