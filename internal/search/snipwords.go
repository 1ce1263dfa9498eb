package search

import (
	"container/list"
	"maps"
	"math/bits"
	"slices"
	"sync"

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
	text  string
	words []snipWord
	// uniq is the field's terms, sorted; the words of uniq[k] are
	// occ[off[k]:off[k+1]], in order.
	uniq []string
	off  []int32
	occ  []int32
}

// docSnips holds a document's snippet texts: [reading][field].
type docSnips [len(snipLangs)][]snipText // [reading][snippetSections index]

// analyseSnips flattens and analyses the snippet fields of c.
func (ix *Index) analyseSnips(c *incidentlib.Case) *docSnips {
	var ds docSnips
	for l, lang := range snipLangs {
		ds[l] = make([]snipText, len(snippetSections))
		for f, sn := range snippetSections {
			st := snipText{text: flatten(sn.s.Text(c).In(lang)), off: []int32{0}}
			byTerm := map[string][]int32{}
			words(st.text, func(start, end int, lower []byte) {
				w := int32(len(st.words))
				held := false
				ix.fast.each(string(lower), nil, func(t string) {
					if ws := byTerm[t]; len(ws) == 0 || ws[len(ws)-1] != w {
						byTerm[t] = append(ws, w)
					}
					held = true
				})
				if held {
					st.words = append(st.words, snipWord{int32(start), int32(end)})
				}
			})
			st.uniq = slices.Sorted(maps.Keys(byTerm))
			for _, t := range st.uniq {
				st.occ = append(st.occ, byTerm[t]...)
				st.off = append(st.off, int32(len(st.occ)))
			}
			ds[l][f] = st
		}
	}
	return &ds
}

// snipCacheDocs bounds how many documents' analysed snippet fields are
// kept (about 30 KB each): every document of a corpus of that size, the
// most recently shown of a larger one.
const snipCacheDocs = 2048

// snipCache keeps analysed snippet fields by document number, the least
// recently used dropped first. It has its own lock: searches, which hold
// the index's read lock, fill it.
type snipCache struct {
	mu sync.Mutex
	m  map[uint32]*list.Element
	ll *list.List // of *snipEntry, most recent first
}

type snipEntry struct {
	d  uint32
	ds *docSnips
}

func newSnipCache() *snipCache { return &snipCache{m: map[uint32]*list.Element{}, ll: list.New()} }

// snips returns document d's analysed snippet fields. The caller holds the
// index's read or write lock.
func (ix *Index) snips(d uint32) *docSnips {
	c := ix.snipCache
	c.mu.Lock()
	if e, ok := c.m[d]; ok {
		c.ll.MoveToFront(e)
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
	c.m[d] = c.ll.PushFront(&snipEntry{d, ds})
	for c.ll.Len() > snipCacheDocs {
		old := c.ll.Remove(c.ll.Back()).(*snipEntry)
		delete(c.m, old.d)
	}
	return ds
}

// forget drops document d (replaced or deleted).
func (c *snipCache) forget(d uint32) {
	c.mu.Lock()
	if e, ok := c.m[d]; ok {
		c.ll.Remove(e)
		delete(c.m, d)
	}
	c.mu.Unlock()
}

// spans returns the byte ranges of the words of st that yield a term in
// want (sorted, without repeats), in text order.
func (st *snipText) spans(want []string) []span {
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
	for _, t := range want {
		i, ok := slices.BinarySearch(st.uniq, t)
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
		return nil
	}
	out := make([]span, 0, count)
	for i, word := range set {
		for word != 0 {
			w := i*64 + bits.TrailingZeros64(word)
			out = append(out, span{int(st.words[w].start), int(st.words[w].end)})
			word &= word - 1
		}
	}
	return out
}

// wantTerms returns terms sorted and without repeats, for spans.
func wantTerms(terms []string) []string {
	out := slices.Clone(terms)
	slices.Sort(out)
	return slices.Compact(out)
}

func init() {
	// snippet takes the summary as snippetSections[0]: the start of the
	// summary is the snippet when nothing matched.
	if len(snippetSections) == 0 || snippetSections[0].s.Key != "summary" {
		panic("search: the summary must be the first snippet section")
	}
}
