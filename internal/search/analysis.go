package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
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
		"tokenizer": unicodetok.Name,
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
	for _, tok := range in {
		if tok.Position != lastIn {
			pos++
			lastIn = tok.Position
		}
		runes := []rune(string(tok.Term))
		if len(runes) < 2 || !containsHangul(tok.Term) {
			tok.Position = pos
			out = append(out, tok)
			continue
		}
		// Byte offsets of each rune within the term.
		offs := make([]int, len(runes)+1)
		o := 0
		for i, r := range runes {
			offs[i] = o
			o += utf8.RuneLen(r)
		}
		offs[len(runes)] = o
		for i := 0; i+1 < len(runes); i++ {
			if i > 0 {
				pos++
			}
			out = append(out, &analysis.Token{
				Term:     []byte(string(runes[i : i+2])),
				Start:    tok.Start + offs[i],
				End:      tok.Start + offs[i+2],
				Position: pos,
				Type:     analysis.Ideographic,
			})
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
