package search

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/incidentlib/incidentlib"
)

// BM25 parameters.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// textPlan is a parsed, analysed query.
type textPlan struct {
	terms   []string   // loose words, analysed
	phrases [][]string // quoted phrases, analysed, each in order
	ids     []string   // case ids typed in the query
	marks   []string   // every analysed term, for snippets
	aliases []aliasHit // vocabulary terms the query names by an alias
	// sig holds the terms of the query's signature words (signatureWord):
	// they weigh signatureEvidence times their rarity in the confidence.
	sig map[string]bool
	// pairs are the terms that follow one another on a line (queryPairs):
	// a case holding a pair in that order holds a phrase of the paste.
	pairs [][2]string
	// paste is set for pasted text (readPaste found noise in it, or it has
	// several lines): a word no case holds is then most often a name of
	// the reader's own, and weighs less in the confidence (oovPaste).
	paste bool
}

// aliasHit is a vocabulary term a query names by one of its aliases.
type aliasHit struct {
	key   string // "symptoms/oom-kills"
	alias string // as the vocabulary writes it
	words int    // how many of the query's terms the alias covers
}

// alias is one alias of a term, lower-cased, for matching queries.
type alias struct {
	key, text, lower string
}

// pairHash is a hash of two bytes in [0, 4096), for findAliases' filter.
func pairHash(a, b byte) uint { return (uint(a)*131 + uint(b)) & 4095 }

// aliasBoost is what naming a term by its alias adds to a case that
// carries the term: more than any text match, so such cases rank first
// (and among themselves by their text), below a case asked for by id.
const aliasBoost = 100

// findAliases returns the terms whose aliases text holds as whole words.
func (ix *Index) findAliases(text string) []aliasHit {
	low := strings.ToLower(text)
	var out []aliasHit
	seen := map[string]bool{}
	// The byte pairs of the text, hashed into a bit set: an alias whose
	// first two bytes are not among them cannot be in it, and is not
	// searched for (most are not, and there are hundreds).
	var pairs [4096 / 64]uint64
	for i := 0; i+1 < len(low); i++ {
		h := pairHash(low[i], low[i+1])
		pairs[h>>6] |= 1 << (h & 63)
	}
	for _, a := range ix.aliases {
		if seen[a.key] {
			continue
		}
		if len(a.lower) >= 2 {
			if h := pairHash(a.lower[0], a.lower[1]); pairs[h>>6]&(1<<(h&63)) == 0 {
				continue
			}
		}
		for from := 0; ; {
			i := strings.Index(low[from:], a.lower)
			if i < 0 {
				break
			}
			i += from
			j := i + len(a.lower)
			if boundary(low, i-1) && boundary(low, j) {
				seen[a.key] = true
				out = append(out, aliasHit{key: a.key, alias: a.text, words: len(ix.analyze(a.text))})
				break
			}
			from = i + 1
		}
	}
	return out
}

// boundary reports whether position i of s is outside a word: the ends, or
// a byte that is not an ASCII letter or digit.
func boundary(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	c := s[i]
	return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_')
}

// informative is the number of distinct analysed terms the plan scores:
// loose words and the words of phrases.
func (p textPlan) informative() int {
	seen := map[string]bool{}
	for _, t := range p.terms {
		seen[t] = true
	}
	for _, ph := range p.phrases {
		for _, t := range ph {
			seen[t] = true
		}
	}
	return len(seen)
}

func (ix *Index) plan(text string, notes *[]string) textPlan {
	// The paste's noise is blanked before anything else reads its words;
	// aliases and case ids are looked for in the text as given.
	pr := readPaste(text, ix.holdsWhole)
	words := pr.text
	if len(pr.expand) > 0 {
		words += "\n" + strings.Join(pr.expand, "\n")
	}
	pq := parse(words)
	// Quotes are phrase operators in a short query ("PLEG is not healthy",
	// kubelet "PLEG is not healthy"). In pasted text they are part of what
	// was pasted: Back-off pulling image "nginx:latest" must match by words.
	if len(pq.phrases) > 0 && (len(strings.Fields(pq.words)) > 2 || pr.noise > 0 || pr.lines > 1) {
		pq = parsedQuery{words: strings.Map(func(r rune) rune {
			if r == '"' || r == '“' || r == '”' {
				return ' '
			}
			return r
		}, words)}
		*notes = append(*notes, "the quotes were read as part of pasted text, not as a phrase to match exactly")
	}
	var p textPlan
	p.aliases = ix.findAliases(text)
	for _, a := range p.aliases {
		vocab, id, _ := strings.Cut(a.key, "/")
		*notes = append(*notes, fmt.Sprintf("%q was read as the %s term %s", a.alias, vocab, id))
	}
	p.terms = ix.analyze(pq.words)
	// A single letter is no evidence: the "o" of an "I/O", the "s" of a
	// "pod's".
	p.terms = slices.DeleteFunc(p.terms, func(t string) bool { return len(t) == 1 })
	if len(p.terms) > MaxQueryTerms {
		*notes = append(*notes, fmt.Sprintf("the query has %d distinct terms; the first %d were used", len(p.terms), MaxQueryTerms))
		p.terms = p.terms[:MaxQueryTerms]
	}
	p.marks = append(p.marks, p.terms...)
	p.pairs = ix.queryPairs(pq.words)
	p.paste = pr.noise > 0 || pr.lines > 1
	for _, w := range signatureWord.FindAllString(pq.words, -1) {
		if apiVersion.MatchString(w) {
			continue
		}
		if p.sig == nil {
			p.sig = map[string]bool{}
		}
		for _, t := range ix.analyze(w) {
			p.sig[t] = true
		}
	}
	for _, ph := range pq.phrases {
		if seq := ix.fast.sequence(ph, nil); len(seq) > 0 {
			p.phrases = append(p.phrases, seq)
			p.marks = append(p.marks, seq...)
		}
	}
	for _, w := range strings.Fields(strings.ToUpper(text)) {
		if caseIDLike(w) {
			p.ids = append(p.ids, w)
		}
	}
	return p
}

func (p textPlan) empty() bool {
	return len(p.terms) == 0 && len(p.phrases) == 0 && len(p.ids) == 0 && len(p.aliases) == 0
}

// scratch holds per-search buffers, reused through a pool.
type scratch struct {
	score  []float32
	fields []uint8            // which text fields matched, one bit a field
	nterms []uint16           // how many distinct query terms the document holds
	mw     []float32          // the summed weight of those terms
	totalW float32            // the weight of all the query's terms
	cw     []float32          // the summed evidence of the units the document holds (confidence)
	totalC float32            // the evidence of all the query's units
	floorC float32            // the least evidence a confidence is measured against
	termC  map[string]float32 // each scored term's evidence
	last   []uint16           // the last term counted for the document, plus one
	// fmask[f] has bit k-1 set for each term numbered k (termNo, k <= 64)
	// that field f of the document holds: its snippet looks up only those.
	fmask   [maxFields][]uint64
	termNo  map[string]uint16 // the query's distinct scored terms, numbered from 1
	touched []uint32
	docs    []uint32 // the hits, for Search alone (it outlives no search)
	cand    []uint32 // scoreClose's candidates
	// snip is where Search writes the page's snippets; its builder is new
	// each search (the snippets outlive it), its span buffers are kept.
	snip snipOut
}

func (sc *scratch) reset() {
	for _, d := range sc.touched {
		sc.score[d], sc.fields[d], sc.nterms[d], sc.last[d], sc.mw[d], sc.cw[d] = 0, 0, 0, 0, 0, 0
		for f := range sc.fmask {
			if int(d) < len(sc.fmask[f]) {
				sc.fmask[f][d] = 0
			}
		}
	}
	clear(sc.termNo)
}

// admit waits for a slot to score in and returns its release. Searches
// and similar-case lookups are CPU work without a wait inside: as many run
// at once as there are processors, and the others queue in the order they
// came (a channel's waiters are served first come, first served). Left to
// Go's scheduler, which runs the goroutine readied last first, some waited
// behind many later ones under load, and the slowest hundredth took ten
// times the median. Only the public entry points admit (Search, SimilarTo,
// SimilarText), never a function they call.
//
// The release yields the processor (yield). A freed slot readies the next
// waiter to run next on the releasing goroutine's processor; without the
// yield, under load, a processor went from search to search that way while
// goroutines the network had readied (the next requests, the answers still
// to write) waited in the run queue: a hundredth of them waited over
// 12 ms, and the slowest hundredth of searches took 25 ms end to end. With
// it the releasing goroutine rejoins the run queue behind them, and those
// figures fell to under 4 ms and 13 ms, at the same throughput
// (docs/PERFORMANCE.md).
func (ix *Index) admit() func() {
	if ix.gate == nil {
		return func() {}
	}
	ix.gate <- struct{}{}
	return func() {
		<-ix.gate
		yield()
	}
}

// yield is runtime.Gosched; a test counts its calls.
var yield = runtime.Gosched

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// termStats are a term's document frequencies among the documents a search
// ranks by (the public ones, or every live one with private cases): in
// each field, and in any field.
type termStats struct {
	df  [maxFields]int32
	any int32
	// pl are the term's posting lists by field (nil where it has none):
	// one look-up of the term instead of one a field.
	pl [maxFields]*postings
}

// statsCacheTerms bounds the terms statsCache keeps for each of its two
// sets: past it the set starts again empty, so that queries of invented
// words cannot grow it without end.
const statsCacheTerms = 1 << 16

// statsCache keeps termStats by term, for public searches [0] and for
// searches with private cases [1]: counting a term's visible documents in
// every posting list was a tenth of a search. A write brings the entries
// of its terms up to date (restat, under the write lock), and searches
// fill it under the read lock, so it always describes the documents the
// search sees.
type statsCache struct {
	mu sync.RWMutex
	m  [2]map[string]termStats
}

// setAvg sets each field's mean length, for public searches [0] and
// searches with private cases [1]; the caller holds the write lock.
func (ix *Index) setAvg() {
	for k, v := range [2]struct {
		sums *[maxFields]int64
		n    int
	}{{&ix.sumLenPub, ix.nPublic}, {&ix.sumLen, ix.nLive}} {
		N := float64(max(v.n, 1))
		for f := 0; f < nFields; f++ {
			avg := float32(float64(v.sums[f]) / N)
			if avg <= 0 {
				avg = 1
			}
			ix.avgLen[k][f] = avg
		}
	}
}

// restat brings the cached statistics of the terms a write touched up to
// date: old, holding oldTerms, is the version the write replaced (nil for
// none), c, holding terms, the one it put (nil for a deletion). Each
// cached term of either changes its document frequencies by what the two
// versions hold, in the public and the full statistics as each version is
// visible there, and takes its posting lists anew. A write so costs its
// own terms, not a recount of their lists by every search after it; with
// only (a replacement of the same visibility), the terms of its delta
// alone, as no other term's frequencies or lists changed. The caller
// holds the write lock, after the postings changed.
func (ix *Index) restat(old, c *incidentlib.Case, oldTerms, terms *[maxFields]map[string]uint16, only *termDelta) {
	cache := &ix.stats
	cache.mu.Lock()
	defer cache.mu.Unlock()
	seen := map[string]bool{}
	visit := func(t string) {
		if seen[t] {
			return
		}
		seen[t] = true
		for k := range cache.m {
			st, ok := cache.m[k][t]
			if !ok {
				continue
			}
			// Private cases count in the full statistics [1] only.
			oldVis := old != nil && (k == 1 || !old.Private)
			newVis := c != nil && (k == 1 || !c.Private)
			oldAny, newAny := false, false
			for f := 0; f < nFields; f++ {
				oh := oldVis && oldTerms[f][t] > 0
				nh := newVis && terms[f][t] > 0
				oldAny, newAny = oldAny || oh, newAny || nh
				st.df[f] += b2i(nh) - b2i(oh)
				st.pl[f] = ix.post[f][t]
			}
			st.any += b2i(newAny) - b2i(oldAny)
			cache.m[k][t] = st
		}
	}
	if only != nil {
		only.each(visit)
		return
	}
	for f := 0; f < nFields; f++ {
		if oldTerms != nil {
			for t := range oldTerms[f] {
				visit(t)
			}
		}
		if terms != nil {
			for t := range terms[f] {
				visit(t)
			}
		}
	}
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// statsOf returns t's document frequencies among visible (the public
// documents, or with includePrivate every live one). The caller holds the
// read lock.
func (ix *Index) statsOf(t string, includePrivate bool, visible bitset) termStats {
	k := 0
	if includePrivate {
		k = 1
	}
	c := &ix.stats
	c.mu.RLock()
	st, ok := c.m[k][t]
	c.mu.RUnlock()
	if ok {
		return st
	}
	var holders bitset
	for f := 0; f < nFields; f++ {
		pl := ix.post[f][t]
		if pl == nil {
			continue
		}
		st.pl[f] = pl
		n := int32(0)
		for _, d := range pl.docs {
			if visible.has(d) {
				n++
				holders.set(d)
			}
		}
		st.df[f] = n
	}
	st.any = int32(holders.count())
	c.mu.Lock()
	if c.m[k] == nil || len(c.m[k]) >= statsCacheTerms {
		c.m[k] = map[string]termStats{}
	}
	c.m[k][t] = st
	c.mu.Unlock()
	return st
}

// allowed is the set of documents a search may return: live, visible and
// through every filter. The caller holds the read lock.
func (ix *Index) allowed(q *Query) bitset {
	var set bitset
	if q.private {
		set = ix.live.clone()
	} else {
		set = ix.public.clone()
	}
	for _, field := range append(append([]string{}, FilterFields...), OrgFilter) {
		// Any of the values of one field: a case has one severity and one
		// root cause, so "critical,major" must mean either.
		if terms := q.Filters[field]; len(terms) > 0 {
			var anyOf bitset
			for _, t := range terms {
				anyOf.orInPlace(ix.set(field + "/" + t))
			}
			set.andInPlace(anyOf)
		}
		for _, t := range q.AllOf[field] {
			set.andInPlace(ix.set(field + "/" + t))
		}
	}
	if q.YearFrom != 0 || q.YearTo != 0 {
		set.each(func(d uint32) {
			y := int(ix.year[d])
			if (q.YearFrom != 0 && y < q.YearFrom) || (q.YearTo != 0 && y > q.YearTo) {
				set.clear(d)
			}
		})
	}
	if q.Reviewed != nil {
		if *q.Reviewed {
			set.andInPlace(ix.rev)
		} else {
			set.each(func(d uint32) {
				if ix.rev.has(d) {
					set.clear(d)
				}
			})
		}
	}
	return set
}

// score runs the text plan over the allowed documents: BM25 per field,
// weighted by field, summed over terms. Quoted phrases must all match. It
// returns the matching documents and their scores. The caller holds the
// read lock.
//
// The BM25 statistics (document count, document frequency, mean length) are
// those of the documents the caller may see: the public ones, or with
// includePrivate every live one. Retired versions never count.
func (ix *Index) score(p textPlan, allowed bitset, includePrivate bool, sc *scratch) (bitset, []uint32) {
	sc.size(len(ix.docs))
	s := ix.newScorer(p, allowed, includePrivate, sc)
	stats, order := s.prepare()
	for _, i := range order {
		s.termSt(p.terms[i], &stats[i], 1)
	}
	must := s.phrases()
	s.ids()
	s.aliases()
	return s.hits(must)
}

// scoreClose is score for a text query without phrases, over only the
// documents that can be results (results): those holding a term of the
// query's heavier part, or named by an id or an alias. It follows MaxScore
// (Turtle and Flood, 1995), with the results' bound as the threshold: a
// result holds at least a nearDiv-th of the weight the best document
// holds, so once the terms not yet read weigh less than that, their lists
// are non-essential: a document holding only those cannot be a result, and
// their lists are only probed for the candidates the other terms gave. The
// cost follows the candidates, not the lists of the query's common words.
// Every term is scored in the plan's order, as score does, so that a
// candidate's score, match and evidence are exactly those score gives it
// (TestPrunedMatchesExhaustive). The caller holds the read lock.
func (ix *Index) scoreClose(p textPlan, allowed bitset, includePrivate bool, sc *scratch) (bitset, []uint32) {
	sc.size(len(ix.docs))
	s := ix.newScorer(p, allowed, includePrivate, sc)
	stats, order := s.prepare()
	// rest is the weight of the distinct terms not read yet; best, the
	// largest weight a document holds so far, is a floor under the best
	// document's, so a nearDiv-th of it is a floor under the results'
	// bound. Once the terms left weigh less together than that (with a
	// margin for float32 sums), a document holding only those cannot be a
	// result: the candidates are the documents scored so far and those an
	// id or an alias names, and the lists left are read for them alone.
	var rest float32
	seen := make(map[string]bool, len(order))
	for _, i := range order {
		if t := p.terms[i]; !seen[t] {
			seen[t] = true
			rest += s.termW[t]
		}
	}
	clear(seen)
	var best float32
	var candSet bitset
	var cand []uint32
	pruned := false
	for _, i := range order {
		t := p.terms[i]
		if !pruned && nearDiv*rest*(1+closeMargin) < best {
			pruned = true
			ix.skippedN.Add(1)
			cand, candSet = s.candidates()
		}
		if !seen[t] {
			seen[t] = true
			rest -= s.termW[t]
		}
		if pruned {
			s.termOn(t, &stats[i], cand, candSet)
		} else {
			best = max(best, s.termSt(t, &stats[i], 1))
		}
	}
	s.ids()
	s.aliases()
	return s.hits(nil)
}

// prepare weighs the plan's terms in its order (which numbers them), and
// returns each term's statistics (by its index in p.terms) and the order
// in which they are scored: heaviest first, ties by the term, then by
// place. score and scoreClose score in that one order, so that a
// document's sums are the same to the last bit in both.
func (s *scorer) prepare() ([]termStats, []int) {
	terms := s.p.terms
	stats := make([]termStats, len(terms))
	order := make([]int, len(terms))
	for i, t := range terms {
		stats[i] = s.ix.statsOf(t, s.includePrivate, s.visible)
		s.weigh(t, &stats[i])
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		if c := cmp.Compare(s.termW[terms[j]], s.termW[terms[i]]); c != 0 {
			return c
		}
		return strings.Compare(terms[i], terms[j])
	})
	return stats, order
}

// candidates returns scoreClose's candidates, in order and as a set: the
// allowed documents scored so far, and those an id or an alias names.
func (s *scorer) candidates() ([]uint32, bitset) {
	ix, sc, allowed := s.ix, s.sc, s.allowed
	var set bitset
	for _, d := range sc.touched {
		set.set(d)
	}
	for _, id := range s.p.ids {
		if d, ok := ix.byID[id]; ok && allowed.has(d) {
			set.set(d)
		}
	}
	for _, a := range s.p.aliases {
		// The index's own set of the term: read, never changed (every
		// search shares it).
		ix.set(a.key).each(func(d uint32) {
			if allowed.has(d) {
				set.set(d)
			}
		})
	}
	list := sc.cand[:0]
	set.each(func(d uint32) { list = append(list, d) })
	sc.cand = list[:0]
	return list, set
}

// closeMargin keeps a document whose float32 sum of weights lands a hair
// from half of the query's on the side of the candidates.
const closeMargin = 1e-4

// nearDiv: a text query's results are the documents holding at least a
// nearDiv-th of the weight the best one holds (results). Chosen by the
// judged sets: with a half, recall@5 over the pasted logs fell from 0.981
// to 0.963 (IL-0627 dropped) and an unanswerable paste lost its weak-match
// note; with a third, that note was still lost; with a quarter every
// judged, pasted and unanswerable query answers as when every holder is a
// result.
const nearDiv = 4

// probeRatio: a non-essential list at most this many times longer than the
// candidates is read through; a longer one is probed by binary search
// for each candidate.
const probeRatio = 8

// termOn scores term t, of statistics st, for the candidates alone (cand,
// in order, and as a set), as term scores it for every document.
func (s *scorer) termOn(t string, st *termStats, cand []uint32, candSet bitset) {
	ix, sc := s.ix, s.sc
	no, tw, tc := s.weigh(t, st)
	N := s.N
	for f := 0; f < nFields; f++ {
		n := st.df[f]
		if n == 0 {
			continue
		}
		pl := st.pl[f]
		df := float64(n)
		idf := float32(math.Log(1 + (N-df+0.5)/(df+0.5)))
		w := fieldBoost[f] * idf * 1
		a, c := float32(bm25K1*(1-bm25B)), float32(bm25K1*bm25B)/ix.avgLen[s.vis][f]
		flen := ix.flen[f]
		var bit uint64
		if no <= 64 {
			bit = 1 << (no - 1)
		}
		fmask := sc.fmask[f]
		post := func(d uint32, tf16 uint16) {
			tf := float32(tf16)
			norm := tf * (bm25K1 + 1) / (tf + a + c*float32(flen[d]))
			if sc.score[d] == 0 {
				sc.touched = append(sc.touched, d)
			}
			sc.score[d] += w * norm
			sc.fields[d] |= 1 << f
			fmask[d] |= bit
			if sc.last[d] != no {
				sc.last[d] = no
				sc.nterms[d]++
				sc.mw[d] += tw
				sc.cw[d] += tc
			}
		}
		docs := pl.docs
		if len(docs) <= probeRatio*len(cand) {
			for i, d := range docs {
				if candSet.has(d) {
					post(d, pl.tfs[i])
				}
			}
			continue
		}
		lo := 0
		for _, d := range cand {
			i, found := slices.BinarySearch(docs[lo:], d)
			lo += i
			if lo >= len(docs) {
				break
			}
			if found {
				post(d, pl.tfs[lo])
				lo++
			}
		}
	}
}

// size makes the scratch's per-document slices n long and empties its
// list of touched documents.
func (sc *scratch) size(n int) {
	if cap(sc.score) < n {
		sc.score = make([]float32, n)
		sc.fields = make([]uint8, n)
		sc.nterms = make([]uint16, n)
		sc.mw = make([]float32, n)
		sc.cw = make([]float32, n)
		sc.last = make([]uint16, n)
		for f := range sc.fmask {
			sc.fmask[f] = make([]uint64, n)
		}
	}
	sc.score, sc.fields, sc.nterms, sc.last, sc.mw, sc.cw = sc.score[:n], sc.fields[:n], sc.nterms[:n], sc.last[:n], sc.mw[:n], sc.cw[:n]
	for f := range sc.fmask {
		sc.fmask[f] = sc.fmask[f][:n]
	}
	if sc.termNo == nil {
		sc.termNo = map[string]uint16{}
	}
	sc.touched = sc.touched[:0]
}

// scorer is one run of score: the plan, the documents it may rank and the
// statistics of those it may see.
type scorer struct {
	ix             *Index
	p              textPlan
	allowed        bitset
	includePrivate bool
	sc             *scratch
	visible        bitset
	vis            int     // 0 public, 1 with private cases: ix.avgLen's index
	N              float64 // the visible documents, at least one
	// termW is each query term's weight: log(1 + N/(df+1)) over the
	// documents holding it in any field. A word no case holds weighs most,
	// so a question about sourdough is not "matched" by its common words.
	termW map[string]float32
	termC map[string]float32 // sc.termC: each scored term's evidence
}

func (ix *Index) newScorer(p textPlan, allowed bitset, includePrivate bool, sc *scratch) *scorer {
	s := &scorer{ix: ix, p: p, allowed: allowed, includePrivate: includePrivate, sc: sc,
		visible: ix.public, termW: map[string]float32{}}
	nVisible := ix.nPublic
	if includePrivate {
		s.visible, nVisible, s.vis = ix.live, ix.nLive, 1
	}
	s.N = float64(max(nVisible, 1))
	sc.floorC = evidence(minEvidenceDF, s.N)
	if len(p.terms) >= 3 {
		sc.floorC = evidence(1, s.N)
	}
	if sc.termC == nil {
		sc.termC = map[string]float32{}
	}
	clear(sc.termC)
	s.termC = sc.termC
	sc.totalW, sc.totalC = 0, 0
	return s
}

// add scores document d v more, matched in field f.
func (s *scorer) add(d uint32, v float32, f int) {
	sc := s.sc
	if sc.score[d] == 0 {
		sc.touched = append(sc.touched, d)
	}
	sc.score[d] += v
	sc.fields[d] |= 1 << f
}

// weigh numbers term t among the query's terms and, the first time, adds
// its weight and evidence to the query's totals. It returns its number,
// weight and evidence.
func (s *scorer) weigh(t string, st *termStats) (no uint16, tw, tc float32) {
	sc := s.sc
	no, ok := sc.termNo[t]
	if !ok {
		no = uint16(len(sc.termNo) + 1)
		sc.termNo[t] = no
	}
	tw, ok = s.termW[t]
	if !ok {
		tw = float32(math.Log(1 + s.N/float64(st.any+1)))
		s.termW[t] = tw
		sc.totalW += tw
		df := int(st.any)
		if (df == 0 && strings.ContainsAny(t, ".:_")) || numeric(t) {
			df = -1
		}
		c := evidence(df, s.N)
		if df == 0 && s.p.paste {
			c *= oovPaste
		}
		if s.p.sig[t] {
			c *= signatureEvidence
		}
		s.termC[t] = c
		sc.totalC += c
	}
	return no, tw, s.termC[t]
}

// term scores every allowed document holding t, in each field, at the
// given weight.
func (s *scorer) term(t string, weight float32) {
	st := s.ix.statsOf(t, s.includePrivate, s.visible)
	s.termSt(t, &st, weight)
}

// termSt is term with t's statistics st. It returns the largest weight of
// the query's terms (mw) that a document holding t now holds.
func (s *scorer) termSt(t string, st *termStats, weight float32) (top float32) {
	ix, sc, allowed := s.ix, s.sc, s.allowed
	no, tw, tc := s.weigh(t, st)
	N := s.N
	for f := 0; f < nFields; f++ {
		n := st.df[f]
		if n == 0 {
			continue
		}
		pl := st.pl[f]
		df := float64(n)
		idf := float32(math.Log(1 + (N-df+0.5)/(df+0.5)))
		w := fieldBoost[f] * idf * weight
		// BM25's length part, k1·(1-b+b·len/avg), as a + c·len.
		a, c := float32(bm25K1*(1-bm25B)), float32(bm25K1*bm25B)/ix.avgLen[s.vis][f]
		flen := ix.flen[f]
		var bit uint64
		if no <= 64 {
			bit = 1 << (no - 1)
		}
		fmask := sc.fmask[f]
		for i, d := range pl.docs {
			if !allowed.has(d) {
				continue
			}
			tf := float32(pl.tfs[i])
			norm := tf * (bm25K1 + 1) / (tf + a + c*float32(flen[d]))
			// add(d, w*norm, f), written out: the hottest loop of a search.
			if sc.score[d] == 0 {
				sc.touched = append(sc.touched, d)
			}
			sc.score[d] += w * norm
			sc.fields[d] |= 1 << f
			fmask[d] |= bit
			if sc.last[d] != no {
				sc.last[d] = no
				sc.nterms[d]++
				sc.mw[d] += tw
				sc.cw[d] += tc
				top = max(top, sc.mw[d])
			}
		}
	}
	return top
}

// phrases returns the documents holding every quoted phrase (nil without
// phrases), and scores the phrases' terms at double weight.
func (s *scorer) phrases() bitset {
	var must bitset
	if len(s.p.phrases) > 0 {
		must = s.allowed.clone()
		for _, ph := range s.p.phrases {
			must.andInPlace(s.ix.phraseDocs(ph, must))
			for _, t := range ph {
				s.term(t, 2)
			}
		}
	}
	return must
}

// ids scores the cases whose ids the query names as if in their titles.
func (s *scorer) ids() {
	for _, id := range s.p.ids {
		if d, ok := s.ix.byID[id]; ok && s.allowed.has(d) {
			s.add(d, 1000, fTitle)
		}
	}
}

// aliases scores the cases of each term the query names by its alias: they
// rank as if the alias were in their titles, and they hold the alias's
// words for the match measure. For the confidence, the alias is one unit
// more, as rare as its term.
func (s *scorer) aliases() {
	sc := s.sc
	for _, a := range s.p.aliases {
		var aw float32
		for _, t := range s.ix.analyze(a.alias) {
			if w, ok := s.termW[t]; ok {
				aw += w
			}
		}
		set := s.ix.set(a.key)
		ac := evidence(set.andCount(s.visible), s.N)
		sc.totalC += ac
		set.each(func(d uint32) {
			if !s.allowed.has(d) {
				return
			}
			s.add(d, aliasBoost, fSymptoms)
			sc.nterms[d] = uint16(min(int(sc.nterms[d])+a.words, 0xffff))
			sc.mw[d] = min(sc.mw[d]+aw, sc.totalW)
			sc.cw[d] += ac
		})
	}
}

// hits returns the scored documents that hold every phrase (must, when not
// nil), and those holding the phrases that no loose word scored.
func (s *scorer) hits(must bitset) (bitset, []uint32) {
	sc := s.sc
	var hits bitset
	docs := sc.docs[:0]
	defer func() { sc.docs = docs[:0] }()
	for _, d := range sc.touched {
		if sc.score[d] > 0 && (must == nil || must.has(d)) {
			hits.set(d)
			docs = append(docs, d)
		}
	}
	if must != nil {
		// A phrase-only query matches documents that hold the phrase even
		// where no loose word scored.
		must.each(func(d uint32) {
			if !hits.has(d) {
				hits.set(d)
				docs = append(docs, d)
				if sc.score[d] == 0 {
					sc.touched = append(sc.touched, d)
					sc.score[d] = 1e-6
					sc.fields[d] = 0xff
				}
			}
		})
	}
	return hits, docs
}

// phraseDocs returns the documents among candidates that hold the phrase:
// first those holding every term, then a check of term order on the text.
func (ix *Index) phraseDocs(phrase []string, candidates bitset) bitset {
	var out bitset
	set := candidates.clone()
	for _, t := range phrase {
		var has bitset
		for f := 0; f < nFields; f++ {
			if pl := ix.post[f][t]; pl != nil {
				for _, d := range pl.docs {
					has.set(d)
				}
			}
		}
		set.andInPlace(has)
	}
	set.each(func(d uint32) {
		c := ix.docs[d]
		found := false
		for i := range incidentlib.Sections {
			if sectionField[i] < 0 || found {
				continue
			}
			ix.eachSectionText(c, &incidentlib.Sections[i], func(text string) {
				if !found && ix.containsPhrase(text, phrase) {
					found = true
				}
			})
		}
		if found {
			out.set(d)
		}
	})
	return out
}

// containsPhrase reports whether text holds the terms of phrase one after
// the other. Stop words are dropped on both sides, so "PLEG is not healthy"
// matches the text's "PLEG is not healthy" as [pleg healthi].
func (ix *Index) containsPhrase(text string, phrase []string) bool {
	if text == "" {
		return false
	}
	seq := ix.fast.sequence(text, nil)
	for i := 0; i+len(phrase) <= len(seq); i++ {
		ok := true
		for j, t := range phrase {
			if seq[i+j] != t {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// topK returns the k documents of docs that rank first by less, in order;
// the caller cuts the page [offset, offset+limit) from the first
// offset+limit.
//
// It keeps the best k seen so far in a binary heap with the worst of them
// on top, so that a better document replaces it: k log k work, and no
// boxing of numbers as container/heap would do.
func topK(docs []uint32, k int, less func(a, b uint32) bool) []uint32 {
	k = max(0, min(k, len(docs)))
	h := make([]uint32, 0, k)
	worse := func(i, j int) bool { return less(h[j], h[i]) } // h[i] ranks after h[j]
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			if r := l + 1; r < len(h) && worse(r, l) {
				l = r
			}
			if !worse(l, i) {
				return
			}
			h[i], h[l] = h[l], h[i]
			i = l
		}
	}
	for _, d := range docs {
		switch {
		case len(h) < k:
			h = append(h, d)
			for i := len(h) - 1; i > 0; {
				up := (i - 1) / 2
				if !worse(i, up) {
					break
				}
				h[i], h[up] = h[up], h[i]
				i = up
			}
		case k > 0 && less(d, h[0]):
			h[0] = d
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b uint32) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	return h
}

// search runs q. Invalid filters or sort give an error of kind ErrInvalid
// whose message lists what is valid.
func (ix *Index) search(q Query) (*Result, error) {
	notes, err := ix.normalize(&q)
	if err != nil {
		return nil, err
	}
	defer ix.admit()()
	before := len(notes)
	text := clean(q.Text, &notes)
	cut := len(notes) > before // clean's one note: the query was cut
	p := ix.plan(text, &notes)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	allowed := ix.allowed(&q)
	sc := scratchPool.Get().(*scratch)
	defer func() {
		sc.reset()
		scratchPool.Put(sc)
	}()
	r := &searchRun{ix: ix, q: &q, p: p, sc: sc}
	hits, docs := r.match(allowed)
	res := &Result{Total: len(docs), Offset: q.Offset, Limit: q.Limit, Notes: notes, Terms: p.informative(), Cut: cut}
	r.closeness(res, docs)
	r.weak(res, docs)
	if q.Offset < len(docs) {
		r.page(res, docs)
	} else if res.Total > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("offset %d is past the last result (%d in all)", q.Offset, res.Total))
	}
	if !q.NoFacets {
		res.Facets = ix.facets(hits, q.Lang)
	}
	return res, nil
}

// searchRun is one run of search, under the read lock: the query, its
// plan, the scores, the order of the hits and the evidence of the
// query's pairs.
type searchRun struct {
	ix     *Index
	q      *Query
	p      textPlan
	sc     *scratch
	byDate func(a, b uint32) bool // newer first, by rankByDate
	less   func(a, b uint32) bool // the order of the results
	// pairs are the query's pairs of terms a snippet dictionary numbers,
	// pairTotal the evidence of all of them (pairUnits).
	pairs     []pairUnit
	pairTotal float32
}

// match returns the hits among the allowed documents (every one of them
// for a query without text) and sets the results' order.
func (r *searchRun) match(allowed bitset) (bitset, []uint32) {
	ix, sc := r.ix, r.sc
	var hits bitset
	var docs []uint32
	byDate := ix.newerDoc
	r.byDate = byDate
	less := byDate
	if r.p.empty() {
		hits = allowed
		docs = sc.docs[:0]
		allowed.each(func(d uint32) { docs = append(docs, d) })
		sc.docs = docs[:0]
	} else {
		hits, docs = r.results(allowed)
		if r.q.Sort == SortRelevance {
			less = func(a, b uint32) bool {
				if sc.score[a] != sc.score[b] {
					return sc.score[a] > sc.score[b]
				}
				return byDate(a, b)
			}
		}
	}
	if r.q.Sort == SortOldest {
		less = func(a, b uint32) bool { return byDate(b, a) }
	}
	r.less = less
	return hits, docs
}

// results scores a text query and returns its results (Result): the
// documents holding at least a nearDiv-th of the weight the best one holds
// (so every close match, which holds half of the query's), and the cases
// its ids name.
// A query without phrases is scored over the candidates for the results
// alone (scoreClose).
func (r *searchRun) results(allowed bitset) (bitset, []uint32) {
	ix, sc, p := r.ix, r.sc, r.p
	if p.informative() == 0 { // ids or aliases alone: no closeness to measure
		return ix.score(p, allowed, r.q.private, sc)
	}
	var docs []uint32
	if len(p.phrases) == 0 && !r.q.exhaustive {
		ix.prunedN.Add(1)
		_, docs = ix.scoreClose(p, allowed, r.q.private, sc)
	} else {
		_, docs = ix.score(p, allowed, r.q.private, sc)
	}
	var named bitset
	for _, id := range p.ids {
		if d, ok := ix.byID[id]; ok {
			named.set(d)
		}
	}
	var best float32
	for _, d := range docs {
		best = max(best, sc.mw[d])
	}
	var kept bitset
	out := docs[:0] // in place: nothing is written over when nothing is kept
	for _, d := range docs {
		if nearDiv*sc.mw[d] >= best || named.has(d) {
			kept.set(d)
			out = append(out, d)
		}
	}
	return kept, out
}

// close reports whether document d holds at least half of the query's
// weight: a close match.
func (sc *scratch) close(d uint32) bool {
	return int(d) < len(sc.mw) && sc.totalW > 0 && 2*sc.mw[d] >= sc.totalW
}

// closeness sets res.Close and res.Long: how closely each hit matches is
// the share of the query's weight it holds, and the close ones hold at
// least half.
func (r *searchRun) closeness(res *Result, docs []uint32) {
	if res.Terms > 0 {
		for _, d := range docs {
			if r.sc.close(d) {
				res.Close++
			}
		}
		res.Long = res.Terms >= LongQueryTerms
	}
}

// weak measures the query's pairs, and sets res.Confidence and res.Weak:
// the best hit (the first by relevance) is a weak match by its confidence.
// The sort order does not change which case that is.
func (r *searchRun) weak(res *Result, docs []uint32) {
	ix, sc, byDate := r.ix, r.sc, r.byDate
	if !r.p.empty() && len(docs) > 0 && sc.totalC > 0 {
		top := topK(docs, 1, func(a, b uint32) bool {
			if sc.score[a] != sc.score[b] {
				return sc.score[a] > sc.score[b]
			}
			return byDate(a, b)
		})
		// The pairs are numbered by the snippet dictionary, which learns
		// a document's terms when it is first analysed: number them
		// after the best hit's analysis, so that the confidence is the
		// same whatever searches came before.
		ds := ix.snips(top[0])
		r.pairs, r.pairTotal = ix.pairUnits(r.p.pairs, sc.termC)
		res.Confidence = r.confidence(top[0], ds)
		if res.Confidence < WeakConfidence {
			res.Weak = true
			res.Notes = append(res.Notes, fmt.Sprintf("%s: the best case holds %.0f%% of the query's evidence (its rare terms and signatures); the results below are only the nearest", WeakNote, 100*res.Confidence))
		}
	}
}

// confidence is the share of the query's evidence document d holds: its
// units, and the pairs its snippet fields ds hold in order.
func (r *searchRun) confidence(d uint32, ds *docSnips) float64 {
	sc := r.sc
	if int(d) >= len(sc.cw) || sc.totalC == 0 {
		return 0
	}
	held := sc.cw[d]
	for _, u := range r.pairs {
		if ds.adjacent(u.a, u.b) {
			held += u.e
		}
	}
	return math.Min(1, float64(held/max(sc.totalC+r.pairTotal, sc.floorC)))
}

// page fills res.Hits with the page of results q asks for, each with its
// score, match, confidence and snippet.
func (r *searchRun) page(res *Result, docs []uint32) {
	ix, q, sc := r.ix, r.q, r.sc
	page := topK(docs, q.Offset+q.Limit, r.less)
	if q.Offset < len(page) {
		page = page[q.Offset:]
	} else {
		page = nil
	}
	// The page's analysed fields first: the query's terms are then
	// numbered by the dictionary that holds all of theirs.
	ds := make([]*docSnips, len(page))
	for i, d := range page {
		ds[i] = ix.snips(d)
	}
	var marks []markTerm
	if len(r.p.marks) > 0 {
		marks = ix.snipCache.markTerms(r.p.marks, sc.termNo)
	}
	if !r.p.empty() { // numbered now that the page's terms are known (weak)
		r.pairs, r.pairTotal = ix.pairUnits(r.p.pairs, sc.termC)
	}
	var buf []uint32
	res.Hits = make([]Hit, 0, len(page))
	out := &sc.snip
	out.b = strings.Builder{}
	out.b.Grow(len(page) * (SnippetLen*2 + 64))
	ends := make([][2]int, 0, len(page))
	for i, d := range page {
		c := ix.docs[d]
		var score float64
		mask := uint8(0xff)
		if int(d) < len(sc.score) {
			score, mask = float64(sc.score[d]), sc.fields[d]
		}
		var want func(field int) []uint32
		if marks != nil {
			want = func(field int) []uint32 {
				var fmask uint64 = math.MaxUint64
				if int(d) < len(sc.fmask[field]) && len(sc.termNo) <= 64 {
					fmask = sc.fmask[field][d]
				}
				buf = wantOf(marks, fmask, buf[:0])
				return buf
			}
		}
		at := out.b.Len()
		from := snippet(ds[i], q.Lang, want, mask, out)
		ends = append(ends, [2]int{at, out.b.Len()})
		h := Hit{Case: c, Score: score, SnippetFrom: from}
		if res.Terms > 0 && int(d) < len(sc.mw) && sc.totalW > 0 {
			h.Match = math.Min(1, float64(sc.mw[d]/sc.totalW))
		}
		if !r.p.empty() {
			h.Confidence = r.confidence(d, ds[i])
		}
		res.Hits = append(res.Hits, h)
	}
	// The page's snippets are one string; each hit's is a part of it.
	all := out.b.String()
	for i := range res.Hits {
		res.Hits[i].Snippet = all[ends[i][0]:ends[i][1]]
	}
}

// facets counts, for every term of every filter field and for each
// organisation, how many hits carry it. The caller holds the read lock.
func (ix *Index) facets(hits bitset, lang string) map[string][]FacetCount {
	out := make(map[string][]FacetCount, len(FilterFields)+1)
	for _, f := range FilterFields {
		out[f] = []FacetCount{}
	}
	out[OrgFilter] = []FacetCount{}
	l := snipLang(lang)
	// Count every entry first, then fill one array of the exact size: the
	// table is in field order, so each field's counts are one run of it.
	fs := facetScratchPool.Get().(*facetScratch)
	defer facetScratchPool.Put(fs)
	counts := slices.Grow(fs.counts[:0], len(ix.facetTab))[:len(ix.facetTab)]
	fs.counts = counts
	total := 0
	for i := range ix.facetTab {
		counts[i] = hits.andCount(*ix.facetTab[i].set)
		if counts[i] > 0 {
			total++
		}
	}
	// Each field's entries by count, most first, then in table (term)
	// order: sorted as numbers, the count's complement above the entry's
	// place, and only then copied out.
	all := make([]FacetCount, 0, total)
	keys := fs.keys[:0]
	for i := 0; i < len(ix.facetTab); {
		field, start := ix.facetTab[i].field, len(all)
		keys = keys[:0]
		for ; i < len(ix.facetTab) && ix.facetTab[i].field == field; i++ {
			if n := counts[i]; n > 0 {
				keys = append(keys, uint64(math.MaxUint32-uint32(n))<<32|uint64(i))
			}
		}
		if len(keys) == 0 {
			continue
		}
		slices.Sort(keys)
		for _, k := range keys {
			i := k & math.MaxUint32
			e := &ix.facetTab[i]
			all = append(all, FacetCount{Term: e.term, Label: e.label[l], Count: counts[i], head: e.head[l]})
		}
		out[field] = all[start:len(all):len(all)]
	}
	fs.keys = keys[:0]
	return out
}

// facetScratch is what facets counts and sorts in, kept between searches
// in facetScratchPool: a count for each entry of the table, and one field's
// sort keys.
type facetScratch struct {
	counts []int
	keys   []uint64
}

var facetScratchPool = sync.Pool{New: func() any { return new(facetScratch) }}

// facetEntry is one term of one filter field (or one organisation) with
// its labels in both readings.
type facetEntry struct {
	field, term string
	set         *bitset // termSets' set of the key
	label       [len(snipLangs)]string
	head        [len(snipLangs)][]byte // FacetCount.head in each language
}

// facetEntry makes the facet table's entry of a key of termSets, with its
// set: an organisation labelled by its name (label), a vocabulary term by
// the vocabulary.
func (ix *Index) facetEntry(key string, set *bitset, label string) facetEntry {
	f, term, _ := strings.Cut(key, "/")
	e := facetEntry{field: f, term: term, set: set}
	for l, lang := range snipLangs {
		if f == OrgFilter {
			e.label[l] = label
		} else {
			e.label[l] = ix.vocab.Label(f, term, lang)
		}
		e.head[l] = facetHead(e.term, e.label[l])
	}
	return e
}

// compareFacets orders the facet table: by field, then term.
func compareFacets(a, b facetEntry) int {
	if a.field != b.field {
		return strings.Compare(a.field, b.field)
	}
	return strings.Compare(a.term, b.term)
}

// addFacet puts a new key of termSets, with its set, in its place in the
// facet table. The caller holds the write lock.
func (ix *Index) addFacet(key string, set *bitset, label string) {
	e := ix.facetEntry(key, set, label)
	i, _ := slices.BinarySearchFunc(ix.facetTab, e, compareFacets)
	ix.facetTab = slices.Insert(ix.facetTab, i, e)
}

// set returns the documents of key ("vocab/term" or "org/slug"), nil for
// a key no document ever held. The caller holds the read lock.
func (ix *Index) set(key string) bitset {
	if b := ix.termSets[key]; b != nil {
		return *b
	}
	return nil
}

// textScores runs text as a query and returns each matching case's score
// divided by the best score, so that the scores fall in [0, 1].
func (ix *Index) textScores(text string, includePrivate bool, n int) map[string]float64 {
	var notes []string
	p := ix.plan(clean(text, &notes), &notes)
	if p.empty() {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	q := Query{private: includePrivate}
	sc := scratchPool.Get().(*scratch)
	defer func() {
		sc.reset()
		scratchPool.Put(sc)
	}()
	_, docs := ix.score(p, ix.allowed(&q), includePrivate, sc)
	top := topK(docs, n, func(a, b uint32) bool { return sc.score[a] > sc.score[b] })
	out := map[string]float64{}
	if len(top) == 0 {
		return out
	}
	best := float64(sc.score[top[0]])
	for _, d := range top {
		out[ix.docs[d].ID] = float64(sc.score[d]) / best
	}
	return out
}

// WeakNote starts the note a result carries when its best hit is weak by
// its confidence (Result.Weak); the API, MCP and the pages show it.
const WeakNote = "no case closely matches"

// minEvidenceDF sets the least evidence a confidence is measured against:
// that of one unit held by this many cases. A query of common words alone
// cannot make a case look close by holding them all.
const minEvidenceDF = 3

// WeakConfidence is the confidence below which a best hit is weak.
const WeakConfidence = 0.2

// oovEvidence is the evidence of a word no case holds, as a share of that
// of a word one case holds: in typed text such a word is what the reader
// asks about and the library lacks (bread, toner).
const oovEvidence = 1

// oovPaste is the share of that evidence a word no case holds keeps in a
// paste, where such words are mostly names: the service, the namespace,
// the host the log came from.
const oovPaste = 0.2

// evidence is what holding one unit of a query tells of a case, for its
// confidence: the square of its rarity, log(1 + N/df), over the N
// documents searched, df of which hold the unit. Squared, a rare
// signature outweighs many common words: a word in half of the cases
// tells 1.2, one in 3 of 366 cases 23. A unit no case holds (df 0) weighs
// oovEvidence of a unit held by one case.
func evidence(df int, N float64) float32 {
	if df < 0 { // a compound no case holds whole: its parts are the units
		return 0
	}
	if df == 0 {
		r := math.Log(1 + N)
		return float32(oovEvidence * r * r)
	}
	r := math.Log(1 + N/float64(df))
	return float32(r * r)
}

// numeric reports whether t is a number (digits and dots): a version, a
// count, a code. Numbers rank cases, but they are no evidence of a close
// match: any case may hold a 1.1 or a 16.
func numeric(t string) bool {
	for i := 0; i < len(t); i++ {
		if c := t[i]; (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return t != ""
}

// pairUnit is a pair of the query's terms (textPlan.pairs) as numbers of
// the snippet dictionary, with its evidence: the lesser of its terms'.
type pairUnit struct {
	a, b uint32
	e    float32
}

// pairUnits numbers the query's pairs and sums their evidence. A pair
// whose term no snippet field holds counts in the sum all the same: no
// case holds that phrase.
func (ix *Index) pairUnits(pairs [][2]string, termC map[string]float32) ([]pairUnit, float32) {
	var out []pairUnit
	var total float32
	for _, pr := range pairs {
		e := pairEvidence * min(termC[pr[0]], termC[pr[1]])
		if e <= 0 {
			continue
		}
		total += e
		if a, b, ok := ix.snipCache.lookup(pr[0], pr[1]); ok {
			out = append(out, pairUnit{a, b, e})
		}
	}
	return out, total
}

const pairEvidence = 1
