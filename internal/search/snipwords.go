package search

import (
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

// snipWord is one word of a flattened text: its byte range, and the range
// of its terms in snipText.terms.
type snipWord struct{ start, end, lo, hi int32 }

// snipText is one field of one case in one reading, flattened, with the
// analysed terms of every word that yields any, as term numbers. A snippet
// then costs a scan of these words instead of analysing the text again.
type snipText struct {
	text  string
	words []snipWord
	terms []uint32
	// uniq is the set of terms, sorted: a field that holds none of a
	// query's terms is skipped without reading its words.
	uniq []uint32
}

// docSnips holds a document's snippet texts: [reading][field].
type docSnips [len(snipLangs)][len(snipFields)]snipText

// snipRaw is a snipText before its terms are numbered: analysis runs on
// several goroutines, numbering on the one that holds the write lock.
type snipRaw struct {
	text  string
	words []snipWord
	terms []string
}

// analyseSnips flattens and analyses the snippet fields of c.
func (ix *Index) analyseSnips(c *incidentlib.Case, cache stemCache) *[len(snipLangs)][len(snipFields)]snipRaw {
	var out [len(snipLangs)][len(snipFields)]snipRaw
	for l, lang := range snipLangs {
		for f, sf := range snipFields {
			r := &out[l][f]
			r.text = flatten(sf.text(c).In(lang))
			words(r.text, func(start, end int, lower []byte) {
				lo := len(r.terms)
				ix.fast.each(string(lower), cache, func(t string) { r.terms = append(r.terms, t) })
				if len(r.terms) > lo {
					r.words = append(r.words, snipWord{int32(start), int32(end), int32(lo), int32(len(r.terms))})
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
			st := snipText{text: r.text, words: r.words, terms: make([]uint32, len(r.terms))}
			for i, t := range r.terms {
				id, ok := ix.termNum[t]
				if !ok {
					id = uint32(len(ix.termNum))
					ix.termNum[t] = id
				}
				st.terms[i] = id
			}
			st.uniq = slices.Compact(slices.Sorted(slices.Values(st.terms)))
			ds[l][f] = st
		}
	}
	return &ds
}

// spans returns the byte ranges of the words of st that yield a term in
// want (term numbers, sorted, without repeats).
func (st *snipText) spans(want []uint32) []span {
	// The terms of want the field holds: a merge of two sorted lists.
	var buf [16]uint32
	held := buf[:0]
	for i, j := 0, 0; i < len(st.uniq) && j < len(want); {
		switch {
		case st.uniq[i] < want[j]:
			i++
		case st.uniq[i] > want[j]:
			j++
		default:
			held = append(held, want[j])
			i++
			j++
		}
	}
	if len(held) == 0 {
		return nil
	}
	var out []span
	for _, w := range st.words {
		for _, t := range st.terms[w.lo:w.hi] {
			if has(held, t) {
				out = append(out, span{int(w.start), int(w.end)})
				break
			}
		}
	}
	return out
}

// has reports whether the sorted list s holds t.
func has(s []uint32, t uint32) bool {
	if len(s) <= 8 {
		for _, x := range s {
			if x == t {
				return true
			}
		}
		return false
	}
	_, ok := slices.BinarySearch(s, t)
	return ok
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
