package search

// The reference analyzer: the chain of Bleve analysis parts (our tokenizer
// and filters, Bleve's lower case, possessive, English stop words and
// Porter stemmer) that the one-pass analysis in fastanalysis.go must match.
// It lives in the tests so that the server links no Bleve package.

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/registry"
)

// The names under which the analysis parts are registered with Bleve.
const (
	analyzerName     = "incidentlib"
	identPartsName   = "ident_parts"
	hangulBigramName = "hangul_bigram"
)

func init() {
	registry.RegisterTokenFilter(identPartsName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return identParts{}, nil
	})
	registry.RegisterTokenFilter(hangulBigramName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return hangulBigram{}, nil
	})
}

// newAnalyzer returns the reference analyzer: the one analyzer every text
// field uses. Korean and English share it so that a query in either
// language, or mixed, is analysed the same way as the text: Hangul runs
// become overlapping syllable bigrams (so particles such as 가, 를, 에서
// never stop a match), Latin words are lower-cased, stop words dropped and
// stemmed, and identifiers such as conntrack_allowance_exceeded are kept
// whole and, if identifierParts, split into their parts.
func newAnalyzer(identifierParts bool) (analysis.Analyzer, error) {
	filters := []string{lowercase.Name, identPartsName, hangulBigramName, en.PossessiveName, en.StopName, porter.Name}
	if !identifierParts {
		filters = append(filters[:1], filters[2:]...)
	}
	m := bleve.NewIndexMapping()
	if err := m.AddCustomAnalyzer(analyzerName, map[string]any{
		"type":          custom.Name,
		"tokenizer":     tokenizerName,
		"token_filters": filters,
	}); err != nil {
		return nil, err
	}
	a := m.AnalyzerNamed(analyzerName)
	if a == nil {
		return nil, fmt.Errorf("analyzer %s is not registered", analyzerName)
	}
	return a, nil
}

// identParts keeps a token such as conntrack_allowance_exceeded or
// proxier.go whole and adds each of its parts at the same position, so that
// both the identifier and its words match.
type identParts struct{}

func (identParts) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(in))
	for _, tok := range in {
		out = append(out, tok)
		term := string(tok.Term)
		if !strings.ContainsAny(term, "_.:") {
			continue
		}
		start := 0
		for i := 0; i <= len(term); i++ {
			if i < len(term) && term[i] != '_' && term[i] != '.' && term[i] != ':' {
				continue
			}
			if i > start {
				out = append(out, &analysis.Token{
					Term:     []byte(term[start:i]),
					Start:    tok.Start + start,
					End:      tok.Start + i,
					Position: tok.Position,
					Type:     tok.Type,
				})
			}
			start = i + 1
		}
	}
	return out
}

// hangulBigram splits each token that holds Hangul into overlapping
// syllable bigrams ("롤아웃" → "롤아", "아웃"). Tokens of one syllable stay
// whole; tokens without Hangul pass through untouched. Positions are
// renumbered so that consecutive bigrams stay adjacent for phrase queries,
// while the parts identParts added keep their identifier's position.
type hangulBigram struct{}

func (hangulBigram) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(in))
	pos, lastIn := 0, -1
	emit := func(term []byte, start, end int, typ analysis.TokenType) {
		out = append(out, &analysis.Token{Term: term, Start: start, End: end, Position: pos, Type: typ})
	}
	for _, tok := range in {
		if tok.Position != lastIn {
			pos++
			lastIn = tok.Position
		}
		if !containsHangul(tok.Term) {
			tok.Position = pos
			out = append(out, tok)
			continue
		}
		// Split the token into runs of Hangul and of other letters:
		// "proxy가" is "proxy" and "가"; Hangul runs become bigrams.
		term := tok.Term
		first := true
		for i := 0; i < len(term); {
			r, _ := utf8.DecodeRune(term[i:])
			hangul := isHangul(r)
			j := i
			var offs []int
			for j < len(term) {
				r2, n2 := utf8.DecodeRune(term[j:])
				if isHangul(r2) != hangul {
					break
				}
				offs = append(offs, j)
				j += n2
			}
			offs = append(offs, j)
			if !first {
				pos++
			}
			first = false
			runes := len(offs) - 1
			switch {
			case !hangul:
				emit(append([]byte(nil), term[i:j]...), tok.Start+i, tok.Start+j, tok.Type)
			case runes == 1:
				emit(append([]byte(nil), term[i:j]...), tok.Start+i, tok.Start+j, analysis.Ideographic)
			default:
				for k := 0; k+1 < runes; k++ {
					if k > 0 {
						pos++
					}
					emit(append([]byte(nil), term[offs[k]:offs[k+2]]...), tok.Start+offs[k], tok.Start+offs[k+2], analysis.Ideographic)
				}
			}
			i = j
		}
	}
	return out
}

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
