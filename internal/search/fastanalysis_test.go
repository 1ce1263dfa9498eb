package search

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// analysisTexts are every text of the corpus and some tricky input.
func analysisTexts(t *testing.T) []string {
	t.Helper()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"kube-proxy가 conntrack을 못 지움", "conntrack_allowance_exceeded", "proxier.go:610] Failed to delete",
		"ÇAĞ straße Ωmega", "a.b.c d: e_f_g_ h..i", "롤아웃 중 DNS 오류가", "가 나 다", "Kubernetes's node's", "1.5GB 20:13:53.795782",
		"", "   ", "\x00\xff", "ＡＢＣ 全角", "x_가_y", "가a나b다", "the_a.b of: is_가나다_running",
	}
	both := func(x incidentlib.Text) { texts = append(texts, x.EN, x.KO) }
	for _, k := range c.Cases {
		both(k.Title)
		both(k.Summary)
		both(k.SymptomsText)
		both(k.Trigger)
		both(k.Detection)
		both(k.Lessons)
	}
	return texts
}

func short(text string) string { return strings.TrimSpace(text[:min(len(text), 80)]) }

// TestFastAnalyzerMatchesAnalyzer: the one-pass analysis used for indexing
// and queries gives exactly the terms of the reference Bleve chain, in the
// same order, on every text of the corpus and on tricky input.
func TestFastAnalyzerMatchesAnalyzer(t *testing.T) {
	an, err := newAnalyzer(true)
	if err != nil {
		t.Fatal(err)
	}
	fa := newFastAnalyzer()
	cache := stemCache{}
	for _, text := range analysisTexts(t) {
		var want, got []string
		for _, tok := range an.Analyze([]byte(text)) {
			want = append(want, string(tok.Term))
		}
		fa.each(text, cache, func(term string) { got = append(got, term) })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q (-analyzer +fast):\n%s", short(text), diff)
		}
	}
}

// TestSequenceMatchesAnalyzer: the terms phrase checks compare are the
// reference chain's terms, in order, without the identifier parts filter.
func TestSequenceMatchesAnalyzer(t *testing.T) {
	an, err := newAnalyzer(false)
	if err != nil {
		t.Fatal(err)
	}
	fa := newFastAnalyzer()
	for _, text := range analysisTexts(t) {
		var want []string
		for _, tok := range an.Analyze([]byte(text)) {
			want = append(want, string(tok.Term))
		}
		if diff := cmp.Diff(want, fa.sequence(text, nil)); diff != "" {
			t.Fatalf("%q (-analyzer +sequence):\n%s", short(text), diff)
		}
	}
}

// TestStopWordsAreBleves: the stop words are the list of Bleve's stop_en
// filter, which the reference chain uses.
func TestStopWordsAreBleves(t *testing.T) {
	m, err := registry.NewCache().TokenMapNamed(en.StopName)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for w := range m {
		want[w] = true
	}
	if diff := cmp.Diff(want, englishStop); diff != "" {
		t.Errorf("stop words (-bleve +ours):\n%s", diff)
	}
}

// FuzzFastAnalyzerMatchesAnalyzer holds the one-pass analysis (each, and
// sequence for phrases) to the reference Bleve chain on any input, not
// only the corpus's texts.
func FuzzFastAnalyzerMatchesAnalyzer(f *testing.F) {
	full, err := newAnalyzer(true)
	if err != nil {
		f.Fatal(err)
	}
	parts, err := newAnalyzer(false)
	if err != nil {
		f.Fatal(err)
	}
	// Seeds, written as pieces of the alphabet: a capital sigma ending a
	// word and a part, Hangul between Latin and joiners, jamo, ASCII
	// capitals, dotted and coloned identifiers, full-width letters.
	for _, pieces := range [][]string{
		{"a", "Σ", " ", "Σ", "σ", "Σ", ".", "B", "Σ", "_", "e", "Σ"},
		{"k", "-", "가", "a", "나", "_", "다", ":", "을", " ", "ᄀ", "ᅡ", "ㄱ", " ", "뷁", "뷁", "뷁"},
		{"Q", "B", "z", ".", "0", "7", ":", "s", " ", ".", "a", ":", ":", "t", "_", "_", "i"},
		{"ａ", "Ｚ", "１", "é", "Ç", "ß", "ñ", "Ω", " ", "\x00", "\xff", "가", "\xff"},
	} {
		f.Add(alphabetSeed(f, pieces...))
	}
	fa := newFastAnalyzer()
	f.Fuzz(func(t *testing.T, raw string) {
		text := alphabetText(raw)
		var want, got []string
		for _, tok := range full.Analyze([]byte(text)) {
			want = append(want, string(tok.Term))
		}
		fa.each(text, stemCache{}, func(term string) { got = append(got, term) })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("each %q (-analyzer +fast):\n%s", text, diff)
		}
		want = want[:0]
		for _, tok := range parts.Analyze([]byte(text)) {
			want = append(want, string(tok.Term))
		}
		if diff := cmp.Diff(want, fa.sequence(text, nil), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("sequence %q (-analyzer +sequence):\n%s", text, diff)
		}
	})
}

// fuzzAlphabet is what the fuzz test writes texts in: the kinds of
// character the cases hold (ASCII letters, digits and punctuation, the
// joiners of identifiers, Hangul syllables and jamo, accented Latin,
// Greek with its final sigma, full-width forms, a control byte and an
// invalid one). The analysis follows the reference chain on these; beyond
// them (word breaks inside scripts such as Thai or Han runs, and İ, whose
// lower case Bleve's filter garbles in place) the two are not held equal.
var fuzzAlphabet = []string{
	"a", "B", "z", "Q", "k", "e", "s", "t", "i", "n", "g", "0", "7", " ", " ", "\n", "\t", ".", ":", "_", "-", "/", ",", "'", "\"", "(", ")", "[", "]", "=", "%", "@", "#",
	"가", "나", "다", "을", "를", "의", "뷁", "ᄀ", "ᅡ", "ㄱ", "ㅏ", "é", "Ç", "ß", "ñ", "Ω", "Σ", "σ", "ς", "ａ", "Ｚ", "１", "\x00", "\xff",
}

// alphabetText maps each byte of raw to a piece of fuzzAlphabet.
func alphabetText(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		b.WriteString(fuzzAlphabet[int(raw[i])%len(fuzzAlphabet)])
	}
	return b.String()
}

// TestHangulBounds: isHangul's shortcuts hold for the Unicode tables of
// this Go: no Hangul rune lies below U+1100, and every syllable is Hangul.
func TestHangulBounds(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if want := unicode.Is(unicode.Hangul, r); isHangul(r) != want {
			t.Fatalf("isHangul(%U) = %v, unicode.Hangul says %v", r, !want, want)
		}
	}
}

// alphabetSeed writes pieces of fuzzAlphabet as the bytes alphabetText
// maps back to them.
func alphabetSeed(f *testing.F, pieces ...string) string {
	var b []byte
	for _, p := range pieces {
		i := slices.Index(fuzzAlphabet, p)
		if i < 0 {
			f.Fatalf("%q is not in the fuzz alphabet", p)
		}
		b = append(b, byte(i))
	}
	return string(b)
}
