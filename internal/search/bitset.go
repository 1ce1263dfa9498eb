package search

import "math/bits"

// bitset is a set of document numbers.
type bitset []uint64

func (b *bitset) set(i uint32) {
	w := int(i >> 6)
	for len(*b) <= w {
		*b = append(*b, 0)
	}
	(*b)[w] |= 1 << (i & 63)
}

func (b bitset) clear(i uint32) {
	if w := int(i >> 6); w < len(b) {
		b[w] &^= 1 << (i & 63)
	}
}

func (b bitset) has(i uint32) bool {
	w := int(i >> 6)
	return w < len(b) && b[w]&(1<<(i&63)) != 0
}

// andInPlace keeps in b only what o has.
func (b bitset) andInPlace(o bitset) {
	for i := range b {
		if i < len(o) {
			b[i] &= o[i]
		} else {
			b[i] = 0
		}
	}
}

// andCount returns |b ∧ o| without building it.
func (b bitset) andCount(o bitset) int {
	n := 0
	for i := 0; i < min(len(b), len(o)); i++ {
		n += bits.OnesCount64(b[i] & o[i])
	}
	return n
}

// each calls fn for every member, in order.
func (b bitset) each(fn func(i uint32)) {
	for w, word := range b {
		for word != 0 {
			t := bits.TrailingZeros64(word)
			fn(uint32(w<<6 + t))
			word &= word - 1
		}
	}
}

func (b bitset) clone() bitset { return append(bitset(nil), b...) }

// orInPlace adds to b everything o has.
func (b *bitset) orInPlace(o bitset) {
	for len(*b) < len(o) {
		*b = append(*b, 0)
	}
	for i, w := range o {
		(*b)[i] |= w
	}
}

// count returns the number of members.
func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}
