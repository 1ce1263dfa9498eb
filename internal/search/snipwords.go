package search

import (
	"maps"
	"slices"

	"github.com/incidentlib/incidentlib"
)

// snipField is a field a snippet may be cut from.
type snipField struct {
	bit  int
	name string
	text func(*incidentlib.Case) incidentlib.Text
}

// snipFields are the fields a snippet may be cut from, in the order they
// are tried (see snippet).
var snipFields = [...]snipField{
	{fSummary, "summary", func(c *incidentlib.Case) incidentlib.Text { return c.Summary }},
	{fSymptoms, "symptoms", func(c *incidentlib.Case) incidentlib.Text { return c.SymptomsText }},
	{fTrigger, "trigger", func(c *incidentlib.Case) incidentlib.Text { return c.Trigger }},
	{fTitle, "title", func(c *incidentlib.Case) incidentlib.Text { return c.Title }},
}

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
// words and, for each term they yield (by number), the words that yield
// it. A snippet then costs a merge of the query's terms with the field's
// and a look at the words of those held, instead of analysing the text.
type snipText struct {
	text  string
	words []snipWord
	// uniq is the field's terms, sorted; the words of uniq[k] are
	// occ[off[k]:off[k+1]], in order.
	uniq []uint32
	off  []int32
	occ  []int32
}

// docSnips holds a document's snippet texts: [reading][field].
type docSnips [len(snipLangs)][len(snipFields)]snipText

// snipRaw is a snipText before its terms are numbered: analysis runs on
// several goroutines, numbering on the one that holds the write lock.
type snipRaw struct {
	text  string
	words []snipWord
	// terms[i] are the terms of words[i].
	terms [][]string
}

// analyseSnips flattens and analyses the snippet fields of c.
func (ix *Index) analyseSnips(c *incidentlib.Case, cache stemCache) *[len(snipLangs)][len(snipFields)]snipRaw {
	var out [len(snipLangs)][len(snipFields)]snipRaw
	for l, lang := range snipLangs {
		for f, sf := range snipFields {
			r := &out[l][f]
			r.text = flatten(sf.text(c).In(lang))
			words(r.text, func(start, end int, lower []byte) {
				var ts []string
				ix.fast.each(string(lower), cache, func(t string) { ts = append(ts, t) })
				if len(ts) > 0 {
					r.words = append(r.words, snipWord{int32(start), int32(end)})
					r.terms = append(r.terms, ts)
				}
			})
		}
	}
	return &out
}

// numberSnips turns analysed snippet texts into numbered ones, adding new
// terms to the index's table. The caller holds the write lock.
func (ix *Index) numberSnips(raw *[len(snipLangs)][len(snipFields)]snipRaw) *docSnips {
	var ds docSnips
	for l := range raw {
		for f := range raw[l] {
			r := &raw[l][f]
			byTerm := map[uint32][]int32{}
			for w, ts := range r.terms {
				for _, t := range ts {
					id, ok := ix.termNum[t]
					if !ok {
						id = uint32(len(ix.termNum))
						ix.termNum[t] = id
					}
					if ws := byTerm[id]; len(ws) == 0 || ws[len(ws)-1] != int32(w) {
						byTerm[id] = append(ws, int32(w))
					}
				}
			}
			st := snipText{text: r.text, words: r.words, off: []int32{0}}
			st.uniq = slices.Sorted(maps.Keys(byTerm))
			for _, id := range st.uniq {
				st.occ = append(st.occ, byTerm[id]...)
				st.off = append(st.off, int32(len(st.occ)))
			}
			ds[l][f] = st
		}
	}
	return &ds
}

// spans returns the byte ranges of the words of st that yield a term in
// want (term numbers, sorted, without repeats), in text order.
func (st *snipText) spans(want []uint32) []span {
	var buf [64]int32
	ws := buf[:0]
	held := 0
	for i, j := 0, 0; i < len(st.uniq) && j < len(want); {
		switch {
		case st.uniq[i] < want[j]:
			i++
		case st.uniq[i] > want[j]:
			j++
		default:
			ws = append(ws, st.occ[st.off[i]:st.off[i+1]]...)
			held++
			i++
			j++
		}
	}
	if len(ws) == 0 {
		return nil
	}
	if held > 1 {
		slices.Sort(ws)
		ws = slices.Compact(ws)
	}
	out := make([]span, len(ws))
	for i, w := range ws {
		out[i] = span{int(st.words[w].start), int(st.words[w].end)}
	}
	return out
}

// termNums returns the numbers of the terms the index knows, sorted and
// without repeats. The caller holds the read lock.
func (ix *Index) termNums(terms []string) []uint32 {
	out := make([]uint32, 0, len(terms))
	for _, t := range terms {
		if id, ok := ix.termNum[t]; ok {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
