package search

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// fastAnalyzer is the text analysis of the index: tokenizer, lower case,
// identifier parts, Hangul bigrams, English stop words and Porter stemming,
// in one pass without building tokens. Indexing and queries use each,
// snippets use spans and phrase checks use sequence. The chain of Bleve
// analysis parts it replaced is kept in the tests (reference_test.go), and
// a test holds the two to the same terms, in the same order, on every text
// of the corpus.
type fastAnalyzer struct {
	stop map[string]bool
}

// stemCache remembers the final form of each raw term one worker has seen;
// a corpus repeats its words, so most terms skip the stemmer.
type stemCache map[string]string

func newFastAnalyzer() *fastAnalyzer { return &fastAnalyzer{stop: englishStop} }

func (a *fastAnalyzer) emit(term []byte, hangul bool, cache stemCache, fn func(string)) {
	if len(term) == 0 {
		return
	}
	// The cache holds stop words too (as stopMark), so that a term seen
	// before costs one look-up.
	if out, ok := cache[string(term)]; ok {
		if out != stopMark {
			fn(out)
		}
		return
	}
	out := stopMark
	switch {
	case a.stop[string(term)]:
	case hangul:
		out = string(term)
	default:
		out = string(porterstemmer.StemWithoutLowerCasing(bytes.Runes(term)))
	}
	if cache != nil && len(cache) < 1<<20 {
		cache[string(term)] = out
	}
	if out != stopMark {
		fn(out)
	}
}

// stopMark stands in the stem cache for a stop word: no term holds a NUL,
// which is no word character.
const stopMark = "\x00"

// splitScripts emits term's Latin runs whole and its Hangul runs as
// syllable bigrams (a lone syllable whole), as hangulBigram does. wide
// says whether term holds a byte beyond ASCII; an ASCII term is one Latin
// run.
func (a *fastAnalyzer) splitScripts(term []byte, wide bool, cache stemCache, fn func(string)) {
	if !wide || !containsHangul(term) {
		a.emit(term, false, cache, fn)
		return
	}
	var offs []int
	for i := 0; i < len(term); {
		r, _ := utf8.DecodeRune(term[i:])
		h := isHangul(r)
		offs = offs[:0]
		j := i
		for j < len(term) {
			r2, n2 := utf8.DecodeRune(term[j:])
			if isHangul(r2) != h {
				break
			}
			offs = append(offs, j)
			j += n2
		}
		offs = append(offs, j)
		if !h || len(offs) == 2 {
			a.emit(term[i:j], h, cache, fn)
		} else {
			for k := 0; k+2 < len(offs); k++ {
				a.emit(term[offs[k]:offs[k+2]], true, cache, fn)
			}
		}
		i = j
	}
}

// each calls fn for every term of text, in order. cache may be nil; it must
// not be shared between goroutines.
func (a *fastAnalyzer) each(text string, cache stemCache, fn func(string)) {
	words(text, func(_, _ int, w []byte, wide bool) { a.word(w, wide, cache, fn) })
}

// word calls fn for every term of one word of words (lower-cased; wide
// when it holds a byte beyond ASCII): the word whole, then, when it holds
// an underscore, dot or colon, each part between them.
func (a *fastAnalyzer) word(w []byte, wide bool, cache stemCache, fn func(string)) {
	a.splitScripts(w, wide, cache, fn)
	if !bytes.ContainsAny(w, "_.:") {
		return
	}
	start := 0
	for i := 0; i <= len(w); i++ {
		if i < len(w) && w[i] != '_' && w[i] != '.' && w[i] != ':' {
			continue
		}
		if i > start {
			a.splitScripts(w[start:i], wide, cache, fn)
		}
		start = i + 1
	}
}

// wordAt reports whether the rune at text[i:] belongs to a word.
func wordAt(text string, i int) bool {
	if c := text[i]; c < utf8.RuneSelf {
		return asciiWord[c]
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return wordRune(r)
}

// finalSigma turns the σ that ends word into ς.
func finalSigma(word []byte) {
	if n := len(word); n >= 2 && word[n-2] == 0xCF && word[n-1] == 0x83 {
		word[n-1] = 0x82
	}
}

// asciiWord marks the ASCII bytes that belong to a word.
var asciiWord = func() (t [128]bool) {
	for c := 0; c < 128; c++ {
		t[c] = c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
	}
	return
}()

// words calls fn with the byte range of every word of text, the word
// lower-cased, and whether it holds a byte beyond ASCII, splitting as the
// analyzer's tokenizer does. ASCII, most of the English text, takes a fast
// path without decoding or calls.
func words(text string, fn func(start, end int, lower []byte, wide bool)) {
	buf := make([]byte, 0, 64)
	start := -1
	// wide: buf holds a byte beyond ASCII; sigma: its last letter was a
	// capital sigma, which lower-cases to the final form at the end of a
	// word, as Bleve's lower-case filter does.
	wide, sigma := false, false
	end := func(i int) {
		if sigma {
			finalSigma(buf)
		}
		fn(start, i, buf, wide)
		buf, start, wide, sigma = buf[:0], -1, false, false
	}
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			switch {
			case asciiWord[c]:
				if start < 0 {
					start = i
				}
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf = append(buf, c)
				sigma = false
			case start >= 0 && (c == '.' || c == ':') && i+1 < len(text):
				if wordAt(text, i+1) {
					buf = append(buf, c)
					sigma = false
				} else {
					end(i)
				}
			case start >= 0:
				end(i)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r >= 0xAC00 && r <= 0xD7A3: // Hangul has no case
			if start < 0 {
				start = i
			}
			buf = append(buf, text[i:i+n]...)
			wide, sigma = true, false
		case wordRune(r):
			if start < 0 {
				start = i
			}
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
			wide, sigma = true, r == 'Σ'
		case start >= 0:
			end(i)
		}
		i += n
	}
	if start >= 0 {
		end(len(text))
	}
}

// spans returns the byte ranges of the words of text that yield a term in
// want. A word is only stemmed when it could match: stems are the word cut
// short, so a word that holds no want term (less its last letter) is
// skipped cheaply.
func (a *fastAnalyzer) spans(text string, want map[string]bool, cache stemCache) []span {
	// Keep only the prefixes the text holds at all: most texts hold none
	// and are skipped without being split into words.
	lowerText := asciiLower(text)
	var prefixes [][]byte
	for t := range want {
		p := []byte(t)
		if len(p) > 1 && p[len(p)-1] < utf8.RuneSelf {
			p = p[:len(p)-1]
		}
		if bytes.Contains(lowerText, p) {
			prefixes = append(prefixes, p)
		}
	}
	if len(prefixes) == 0 {
		return nil
	}
	var out []span
	words(text, func(start, end int, lower []byte, wide bool) {
		maybe := false
		for _, p := range prefixes {
			if bytes.Contains(lower, p) {
				maybe = true
				break
			}
		}
		if !maybe {
			return
		}
		hit := false
		a.word(lower, wide, cache, func(t string) { hit = hit || want[t] })
		if hit {
			out = append(out, span{start, end})
		}
	})
	return out
}

// asciiLower lower-cases the ASCII letters of text and copies the rest:
// enough for the pre-check in spans (Hangul has no case). A word whose
// match hangs on a non-ASCII capital letter goes unmarked in its snippet;
// the search itself is not affected.
func asciiLower(text string) []byte {
	b := make([]byte, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return b
}

// sequence returns the terms of text in order, without the parts of
// identifiers, for phrase matching.
func (a *fastAnalyzer) sequence(text string, cache stemCache) []string {
	var out []string
	words(text, func(_, _ int, lower []byte, wide bool) {
		a.splitScripts(lower, wide, cache, func(t string) { out = append(out, t) })
	})
	return out
}

// wordRune reports whether r belongs to a word: letters, digits, marks and
// the underscore.
func wordRune(r rune) bool {
	if r >= 0xAC00 && r <= 0xD7A3 { // Hangul syllables, most of the Korean text
		return true
	}
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// isHangul reports whether r is of the Hangul script: no rune below U+1100
// is, every syllable (U+AC00 to U+D7A3) is, and the table decides the rest
// (a test holds the two bounds to unicode.Hangul).
func isHangul(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r >= 0xAC00 && r <= 0xD7A3:
		return true
	}
	return unicode.Is(unicode.Hangul, r)
}

func containsHangul(b []byte) bool {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if isHangul(r) {
			return true
		}
		b = b[n:]
	}
	return false
}
