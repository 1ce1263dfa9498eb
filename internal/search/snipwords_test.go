package search

import (
	"bytes"
	"encoding/json"
	"html"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/incidentlib/internal/corpus"
)

// corpusIndex is an index of the embedded corpus, closed when t ends.
func corpusIndex(t *testing.T) *Index {
	t.Helper()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := New(c.Vocab, c.Cases)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// TestSnipWordsMatchAnalysis: the words analysed when a case is indexed
// mark exactly the spans that analysing the flattened text at query time
// marks, for every snippet field of every case in both readings, for the
// terms of many queries. Terms no case holds mark nothing.
func TestSnipWordsMatchAnalysis(t *testing.T) {
	ix := corpusIndex(t)
	queries := []string{
		"kube-apiserver OOM", "롤아웃 중 DNS 오류", "conntrack_allowance_exceeded", "CoreDNS 파드가 줄어든 뒤",
		"Failed to delete kube-system/kube-dns:dns endpoint connections", "certificates expired", "인증서 만료",
		"webhook timeout", "etcd", "Failed to delete kube-system/kube-dns:dns endpoint connections, error: error deleting conntrack entries for UDP peer {10.0.0.1, 10.0.0.2} nodes NotReady webhook certificate expired CoreDNS OOMKilled", "noSuchWordAnywhere zzqx", "nodes NotReady after upgrade", "메모리",
	}
	checked, marked := 0, 0
	for _, q := range queries {
		terms := ix.analyze(q)
		want := map[string]bool{}
		for _, term := range terms {
			want[term] = true
		}
		for d := range ix.docs {
			ix.snips(uint32(d))
		}
		nums := wantOf(ix.snipCache.markTerms(terms, nil), math.MaxUint64, nil)
		for d, k := range ix.docs {
			for l, lang := range snipLangs {
				for f, sn := range snippetSections {
					text := flatten(sn.s.Text(k).In(lang))
					st := &ix.snips(uint32(d))[l][f]
					if st.text != text {
						t.Fatalf("%s %s %s: stored text differs", k.ID, lang, sn.s.Key)
					}
					got, wantSpans := st.spans(nums, nil), ix.fast.spans(text, want, nil)
					if diff := cmp.Diff(wantSpans, got, cmp.AllowUnexported(span{})); diff != "" {
						t.Fatalf("%q in %s %s %s (-analysed now +analysed once, kept):\n%s", q, k.ID, lang, sn.s.Key, diff)
					}
					checked++
					marked += len(got)
				}
			}
		}
	}
	if checked == 0 || marked < 100 {
		t.Fatalf("checked %d texts, %d spans marked: the test saw too little", checked, marked)
	}
	t.Logf("%d texts, %d spans", checked, marked)
}

// FuzzEscapeSnippet: the one-pass escape writes what html.EscapeString
// did (with line breaks as spaces), with a backslash as &#92; and control characters, U+2028
// and U+2029 as spaces; the result holds nothing JSON would escape.
func FuzzEscapeSnippet(f *testing.F) {
	for _, s := range []string{"", "plain", `<a href="x">&'</a>`, "line\nnext", "한국어 <mark> & \"인용\"\n", "tab\there \\d+ \u2028 \u2029 \xe2\x80", "\xe2\x80\xa8x"} {
		f.Add(s)
	}
	ref := strings.NewReplacer("\\", "&#92;", "\u2028", " ", "\u2029", " ")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // case texts are valid UTF-8
		}
		got := escapeSnippet(s)
		want := strings.Map(func(r rune) rune {
			if r < 0x20 {
				return ' '
			}
			return r
		}, ref.Replace(html.EscapeString(s)))
		if got != want {
			t.Errorf("escapeSnippet(%q) = %q, want %q", s, got, want)
		}
		var j bytes.Buffer
		enc := json.NewEncoder(&j)
		enc.SetEscapeHTML(false) // as the API writes
		enc.Encode(got)
		if strings.TrimSuffix(j.String(), "\n") != `"`+got+`"` {
			t.Errorf("escapeSnippet(%q) = %q, which JSON escapes: %s", s, got, j.String())
		}
	})
}

// FuzzEscapedPieces: any piece of a text between rune boundaries, taken
// from its escaped form (snipText.escaped, as mark writes snippets), is
// the piece escaped on its own; head is the escaped start of the text.
func FuzzEscapedPieces(f *testing.F) {
	for _, s := range []string{"", "plain", `it's <b>"x"</b> & y`, "\u2028a\u2029b\\c\td", "한국어 \"인용\" <mark>", "\xe2\x80\xa6 … \u2028", strings.Repeat("a<b ", 200)} {
		f.Add(s, 0, 3)
	}
	f.Fuzz(func(t *testing.T, s string, a, b int) {
		if !utf8.ValidString(s) {
			return // case texts are valid UTF-8
		}
		st := snipText{text: s}
		st.esc, st.shifts = escapeShifts(s)
		if st.esc != escapeSnippet(s) {
			t.Fatalf("escapeShifts(%q) = %q, want %q", s, st.esc, escapeSnippet(s))
		}
		var bounds []int
		for i := range s {
			bounds = append(bounds, i)
		}
		bounds = append(bounds, len(s))
		check := func(from, to int) {
			if got, want := st.escaped(from, to), escapeSnippet(s[from:to]); got != want {
				t.Fatalf("%q [%d:%d]: escaped %q, want %q", s, from, to, got, want)
			}
		}
		a, b = bounds[abs(a)%len(bounds)], bounds[abs(b)%len(bounds)]
		check(min(a, b), max(a, b))
		for _, i := range bounds {
			check(0, i)
			check(i, len(s))
		}
		for _, n := range []int{0, 1, 5, SnippetLen} {
			want := s
			if len(s) > n*2 {
				end := n * 2
				for end > 0 && !utf8.RuneStart(s[end]) {
					end--
				}
				want = s[:end] + "…"
			}
			var b strings.Builder
			b.WriteString("x")
			st.head(&b, n)
			if got := strings.TrimPrefix(b.String(), "x"); got != escapeSnippet(want) {
				t.Fatalf("%q: head(%d) = %q, want %q", s, n, got, escapeSnippet(want))
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestSnipCacheKeepsItsBound: the analysed snippet fields are kept within
// their bound in bytes, dropping the least recently shown documents, and a
// dropped document's snippets, analysed again, are the same. The built-in
// corpus fits whole.
func TestSnipCacheKeepsItsBound(t *testing.T) {
	whole, small := corpusIndex(t), corpusIndex(t)
	small.snipCache.limit = 512 << 10 // about twenty-five documents, above a twenty-fifth of the corpus
	queries := []string{"kube-apiserver OOM", "롤아웃 중 DNS 오류", "certificates expired", "인증서 만료", "webhook timeout", "etcd", "nodes NotReady after upgrade", "메모리", "BGP", "load balancer"}
	for round := 0; round < 2; round++ {
		for _, q := range queries {
			for _, lang := range []string{"ko", "en"} {
				want, err := whole.Public().Search(Query{Text: q, Lang: lang, Limit: 20})
				if err != nil {
					t.Fatal(err)
				}
				got, err := small.Public().Search(Query{Text: q, Lang: lang, Limit: 20})
				if err != nil {
					t.Fatal(err)
				}
				wj, _ := json.Marshal(want)
				gj, _ := json.Marshal(got)
				if len(want.Hits) == 0 || !bytes.Equal(wj, gj) {
					t.Fatalf("%q (%s), round %d: %d hits; the results with a small cache differ:\n%s\n%s", q, lang, round, len(want.Hits), wj, gj)
				}
			}
		}
	}
	c := small.snipCache
	sum, biggest := 0, 0
	for e := c.ll.Front(); e != nil; e = e.Next() {
		b := e.Value.(*snipEntry).bytes
		sum += b
		biggest = max(biggest, b)
	}
	if sum != c.bytes || len(c.m) != c.ll.Len() {
		t.Errorf("the cache counts %d bytes in %d entries; its entries hold %d bytes in %d", c.bytes, len(c.m), sum, c.ll.Len())
	}
	if bound := c.bound(small.nLive); !c.full || c.bytes > bound+biggest || bound > c.limit*2 {
		t.Errorf("the cache holds %d bytes in %d documents, bound %d, limit %d (full %v)", c.bytes, c.ll.Len(), bound, c.limit, c.full)
	}
	// A twenty-fifth of a corpus ten times as large, at the same mean size.
	if got, want := c.bound(10*small.nLive), 10*small.nLive/snipCacheShare*(c.bytes/c.ll.Len()); got != want || got <= c.limit {
		t.Errorf("at ten times the documents the bound is %d, want %d", got, want)
	}
	for d := range whole.docs {
		whole.snips(uint32(d))
	}
	if w := whole.snipCache; w.full || w.ll.Len() != len(whole.docs) {
		t.Errorf("the built-in corpus's %d documents do not all fit: %d kept, %d bytes (bound %d)", len(whole.docs), w.ll.Len(), w.bytes, snipCacheBytes)
	}
}
