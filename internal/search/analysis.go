package search

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
	"github.com/blevesearch/bleve/v2/mapping"
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

// addAnalyzer registers the one analyzer every text field uses. Korean and
// English share it so that a query in either language, or mixed, is analysed
// the same way as the text: Hangul runs become overlapping syllable bigrams
// (so particles such as 가, 를, 에서 never stop a match), Latin words are
// lower-cased, stop words dropped and stemmed, and identifiers such as
// conntrack_allowance_exceeded are kept whole and split into their parts.
func addAnalyzer(m *mapping.IndexMappingImpl) error {
	return m.AddCustomAnalyzer(analyzerName, map[string]any{
		"type":      custom.Name,
		"tokenizer": tokenizerName,
		"token_filters": []string{
			lowercase.Name,
			identPartsName,
			hangulBigramName,
			en.PossessiveName,
			en.StopName,
			porter.Name,
		},
	})
}

// newAnalyzer returns the registered analyzer. The search runs its one-pass
// twin (fastanalysis.go); this one is the reference a test holds it to.
func newAnalyzer() (analysis.Analyzer, error) {
	m := bleve.NewIndexMapping()
	if err := addAnalyzer(m); err != nil {
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

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

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
