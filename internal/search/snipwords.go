package search

import (
	"cmp"
	"container/list"
	"maps"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/incidentlib/incidentlib"
)

// snipLangs are the two readings of a text: Korean first (the default) and
// English first; Text.In gives one or the other for any language.
var snipLangs = [2]string{"ko", "en"}

func snipLang(lang string) int {
	if lang == "en" {
		return 1
	}
	return 0
}

// snipWord is one word of a flattened text: its byte range.
type snipWord struct{ start, end int32 }

// snipText is one field of one case in one reading, flattened, with its
// words and, for each term they yield, the words that yield it. A snippet
// then costs a merge of the query's terms with the field's and a look at
// the words of those held, instead of analysing the text.
type snipText struct {
	text string
	// esc is text escaped for a snippet (escapeSnippet), and shifts maps
	// an offset of text into it (escAt): a snippet copies its pieces.
	esc    string
	shifts []escShift
	words  []snipWord
	// uniq is the field's terms as numbers of the cache's dictionary
	// (snipCache.number), sorted; the words of uniq[k] are occ[off[k]:off[k+1]],
	// in order. Numbers, not strings: a snippet looks each query term up in
	// several fields of every hit, and comparing numbers is what makes that
	// cheap.
	uniq []uint32
	off  []int32
	occ  []int32
}

// docSnips holds a document's snippet texts: [reading][field].
type docSnips [len(snipLangs)][]snipText // [reading][snippetSections index]

// analyseSnips flattens and analyses the snippet fields of c.
func (ix *Index) analyseSnips(c *incidentlib.Case) *docSnips {
	var ds docSnips
	cache := stemCache{} // the case's own: its words repeat
	for l, lang := range snipLangs {
		ds[l] = make([]snipText, len(snippetSections))
		for f, sn := range snippetSections {
			st := snipText{text: flatten(sn.s.Text(c).In(lang)), off: []int32{0}}
			st.esc, st.shifts = escapeShifts(st.text)
			byTerm := map[string][]int32{}
			words(st.text, func(start, end int, lower []byte, wide bool) {
				w := int32(len(st.words))
				held := false
				ix.fast.word(lower, wide, cache, func(t string) {
					if ws := byTerm[t]; len(ws) == 0 || ws[len(ws)-1] != w {
						byTerm[t] = append(ws, w)
					}
					held = true
				})
				if held {
					st.words = append(st.words, snipWord{int32(start), int32(end)})
				}
			})
			terms := slices.Sorted(maps.Keys(byTerm))
			ids := ix.snipCache.number(terms)
			order := make([]int, len(terms))
			for i := range order {
				order[i] = i
			}
			slices.SortFunc(order, func(a, b int) int { return cmp.Compare(ids[a], ids[b]) })
			st.uniq = make([]uint32, 0, len(terms))
			for _, i := range order {
				st.uniq = append(st.uniq, ids[i])
				st.occ = append(st.occ, byTerm[terms[i]]...)
				st.off = append(st.off, int32(len(st.occ)))
			}
			ds[l][f] = st
		}
	}
	return &ds
}

// snipCacheBytes and snipCacheShare bound the bytes of analysed snippet
// fields kept (about 21 KB a document, snipBytes): at most 24 MB, or a
// twenty-fifth of the documents where that is more; the most recently
// shown are kept. 24 MB holds every document of the built-in corpus (517
// documents, 11 MB) and about twice as many again. A bound of 2,048
// documents kept 43 MB at ten times the corpus, a third of what the larger
// corpus cost in memory. A bound of 24 MB alone, at a hundred times the
// corpus, missed so often that a search's p99 on one connection went from
// 12 to 27 ms; at 16 MB, the searches at ten times the corpus (about a
// thousand documents shown again and again) answered at a third of the
// rate (docs/PERFORMANCE.md, "The snippet cache's bound").
const (
	snipCacheBytes = 24 << 20
	snipCacheShare = 25
)

// bound is how many bytes the cache may hold in an index of live
// documents: its limit, or a snipCacheShare-th of the documents at the
// mean size of those it holds. The caller holds c.mu.
func (c *snipCache) bound(live int) int {
	n := c.ll.Len()
	if n == 0 {
		return c.limit
	}
	return max(c.limit, live/snipCacheShare*(c.bytes/n))
}

// snipBytes is about how many bytes ds holds.
func snipBytes(ds *docSnips) int {
	n := 0
	for l := range ds {
		for i := range ds[l] {
			st := &ds[l][i]
			n += int(unsafe.Sizeof(*st)) + len(st.text) + len(st.esc) + len(st.shifts)*int(unsafe.Sizeof(escShift{})) +
				len(st.words)*int(unsafe.Sizeof(snipWord{})) + 4*(len(st.uniq)+len(st.off)+len(st.occ))
		}
	}
	return n
}

// snipCache keeps analysed snippet fields by document number, the least
// recently used dropped first. It has its own lock: searches, which hold
// the index's read lock, fill it.
type snipCache struct {
	mu sync.Mutex
	m  map[uint32]*list.Element
	ll *list.List // of *snipEntry, most recent first
	// bytes is what the entries hold (snipBytes), at most bound's but for
	// the last entry added; full says an entry was ever dropped for room.
	bytes int
	full  bool
	limit int // the least bound: snipCacheBytes, smaller in tests

	// dict numbers the terms of the analysed fields, for snipText.uniq;
	// a number, once given, is never taken back or changed.
	dmu  sync.RWMutex
	dict map[string]uint32
}

// number returns the dictionary numbers of terms, adding the new ones.
func (c *snipCache) number(terms []string) []uint32 {
	out := make([]uint32, len(terms))
	c.dmu.Lock()
	defer c.dmu.Unlock()
	for i, t := range terms {
		n, ok := c.dict[t]
		if !ok {
			n = uint32(len(c.dict))
			c.dict[t] = n
		}
		out[i] = n
	}
	return out
}

// markTerm is a term a snippet marks: its dictionary number, and the bit
// of its query term number in scratch.fmask (all bits when it has none).
type markTerm struct {
	id  uint32
	bit uint64
}

// markTerms returns the terms the dictionary knows, by number and without
// repeats, each with its bit of termNo (scratch.termNo). Call it after the
// fields a snippet reads were analysed (snips).
func (c *snipCache) markTerms(terms []string, termNo map[string]uint16) []markTerm {
	out := make([]markTerm, 0, len(terms))
	c.dmu.RLock()
	for _, t := range terms {
		n, ok := c.dict[t]
		if !ok {
			continue
		}
		bit := uint64(math.MaxUint64)
		if no := termNo[t]; no >= 1 && no <= 64 {
			bit = 1 << (no - 1)
		}
		out = append(out, markTerm{n, bit})
	}
	c.dmu.RUnlock()
	slices.SortFunc(out, func(a, b markTerm) int { return cmp.Compare(a.id, b.id) })
	return slices.CompactFunc(out, func(a, b markTerm) bool { return a.id == b.id })
}

// wantOf appends to buf the numbers of the marks whose bit mask has:
// the terms a field of a document holds (scratch.fmask), for spans.
func wantOf(marks []markTerm, mask uint64, buf []uint32) []uint32 {
	for _, m := range marks {
		if m.bit&mask != 0 {
			buf = append(buf, m.id)
		}
	}
	if buf == nil {
		buf = []uint32{} // terms, none held: not "no query terms"
	}
	return buf
}

type snipEntry struct {
	d     uint32
	ds    *docSnips
	bytes int
}

func newSnipCache() *snipCache {
	return &snipCache{m: map[uint32]*list.Element{}, ll: list.New(), dict: map[string]uint32{}, limit: snipCacheBytes}
}

// snips returns document d's analysed snippet fields. The caller holds the
// index's read or write lock.
func (ix *Index) snips(d uint32) *docSnips {
	c := ix.snipCache
	c.mu.Lock()
	if e, ok := c.m[d]; ok {
		// Recency matters only once the cache is full: a corpus that
		// fits keeps every document and never reorders the list.
		if c.full {
			c.ll.MoveToFront(e)
		}
		ds := e.Value.(*snipEntry).ds
		c.mu.Unlock()
		return ds
	}
	c.mu.Unlock()
	ds := ix.analyseSnips(ix.docs[d]) // outside the lock: two may race, both right
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[d]; ok {
		return e.Value.(*snipEntry).ds
	}
	e := &snipEntry{d, ds, snipBytes(ds)}
	c.m[d] = c.ll.PushFront(e)
	c.bytes += e.bytes
	for bound := c.bound(ix.nLive); c.bytes > bound && c.ll.Len() > 1; {
		old := c.ll.Remove(c.ll.Back()).(*snipEntry)
		delete(c.m, old.d)
		c.bytes -= old.bytes
		c.full = true
	}
	return ds
}

// forget drops document d (replaced or deleted).
func (c *snipCache) forget(d uint32) {
	c.mu.Lock()
	if e, ok := c.m[d]; ok {
		c.ll.Remove(e)
		delete(c.m, d)
		c.bytes -= e.Value.(*snipEntry).bytes
	}
	c.mu.Unlock()
}

// spans appends to out the byte ranges of the words of st that yield a
// term in want (dictionary numbers, sorted, without repeats: wantOf), in
// text order.
func (st *snipText) spans(want []uint32, out []span) []span {
	// The words of the terms of want the field holds (a query has a few
	// terms and a field hundreds, so each is looked up by binary search),
	// as a bit set over the words: text order and no repeats come free.
	var small [8]uint64
	var set []uint64
	if n := (len(st.words) + 63) / 64; n <= len(small) {
		set = small[:n]
	} else {
		set = make([]uint64, n)
	}
	count := 0
	uniq := st.uniq
	base := 0
	for _, t := range want {
		// want is sorted too: each search starts after the last found.
		i, ok := slices.BinarySearch(uniq, t)
		uniq = uniq[i:]
		base += i
		i = base
		if !ok {
			continue
		}
		for _, w := range st.occ[st.off[i]:st.off[i+1]] {
			if bit := uint64(1) << (w & 63); set[w>>6]&bit == 0 {
				set[w>>6] |= bit
				count++
			}
		}
	}
	if count == 0 {
		return out
	}
	out = slices.Grow(out, count)
	for i, word := range set {
		for word != 0 {
			w := i*64 + bits.TrailingZeros64(word)
			out = append(out, span{int(st.words[w].start), int(st.words[w].end)})
			word &= word - 1
		}
	}
	return out
}

func init() {
	// snippet takes the summary as snippetSections[0]: the start of the
	// summary is the snippet when nothing matched.
	if len(snippetSections) == 0 || snippetSections[0].s.Key != "summary" {
		panic("search: the summary must be the first snippet section")
	}
}
