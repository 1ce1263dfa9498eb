package search

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

const tokenizerName = "incidentlib_words"

func init() {
	registry.RegisterTokenizer(tokenizerName, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return wordTokenizer{}, nil
	})
}

// wordTokenizer splits text into runs of letters, digits and underscores,
// keeping a dot or colon that joins two such runs (proxier.go:610,
// kube-system.svc) inside the token. It does what the Unicode word
// segmenter does for this corpus at a fraction of its cost, which matters
// because every start of the server analyses the whole corpus.
type wordTokenizer struct{}

func wordRune(r rune) bool {
	if r >= 0xAC00 && r <= 0xD7A3 { // Hangul syllables, most of the Korean text
		return true
	}
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func (wordTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	pos := 0
	start := -1
	for i := 0; i < len(input); {
		r, n := utf8.DecodeRune(input[i:])
		switch {
		case wordRune(r):
			if start < 0 {
				start = i
			}
		case start >= 0 && (r == '.' || r == ':') && i+n < len(input):
			// Keep the joiner only when a word character follows.
			if r2, _ := utf8.DecodeRune(input[i+n:]); !wordRune(r2) {
				pos++
				out = append(out, token(input, start, i, pos))
				start = -1
			}
		default:
			if start >= 0 {
				pos++
				out = append(out, token(input, start, i, pos))
				start = -1
			}
		}
		i += n
	}
	if start >= 0 {
		pos++
		out = append(out, token(input, start, len(input), pos))
	}
	return out
}

func token(input []byte, start, end, pos int) *analysis.Token {
	typ := analysis.AlphaNumeric
	if r, _ := utf8.DecodeRune(input[start:]); unicode.IsDigit(r) {
		typ = analysis.Numeric
	}
	return &analysis.Token{Term: input[start:end], Start: start, End: end, Position: pos, Type: typ}
}
