package search

import (
	"slices"
	"strings"
)

// maxPairs bounds the word pairs of a query that its confidence checks.
const maxPairs = 64

// queryPairs returns the pairs of terms that follow one another on a line
// of text (a paste keeps its lines), numbers and single letters left out:
// the phrases of a pasted message, "larg bodi", "key mismatch".
func (ix *Index) queryPairs(text string) [][2]string {
	var out [][2]string
	seen := map[[2]string]bool{}
	for _, line := range strings.Split(text, "\n") {
		prev := ""
		for _, t := range ix.fast.sequence(line, nil) {
			if len(t) == 1 || numeric(t) {
				prev = ""
				continue
			}
			if pr := [2]string{prev, t}; prev != "" && prev != t && !seen[pr] {
				seen[pr] = true
				out = append(out, pr)
				if len(out) == maxPairs {
					return out
				}
			}
			prev = t
		}
	}
	return out
}

// lookup returns the dictionary numbers of terms, or ok false for a term
// the dictionary does not hold (no case's snippet field holds it). It
// never adds to the dictionary.
func (c *snipCache) lookup(a, b string) (uint32, uint32, bool) {
	c.dmu.RLock()
	defer c.dmu.RUnlock()
	x, ok1 := c.dict[a]
	y, ok2 := c.dict[b]
	return x, y, ok1 && ok2
}

// occurrences returns the word positions of term number id in st.
func (st *snipText) occurrences(id uint32) []int32 {
	k, ok := slices.BinarySearch(st.uniq, id)
	if !ok {
		return nil
	}
	return st.occ[st.off[k]:st.off[k+1]]
}

// adjacent reports whether some field of ds, in either reading, holds
// term number b right after term number a.
func (ds *docSnips) adjacent(a, b uint32) bool {
	for l := range ds {
		for f := range ds[l] {
			st := &ds[l][f]
			pa := st.occurrences(a)
			if len(pa) == 0 { // most fields lack most terms: b need not be looked up
				continue
			}
			pb := st.occurrences(b)
			for i, j := 0, 0; i < len(pa) && j < len(pb); {
				switch {
				case pb[j] == pa[i]+1:
					return true
				case pb[j] <= pa[i]:
					j++
				default:
					i++
				}
			}
		}
	}
	return false
}
