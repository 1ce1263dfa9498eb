package web_test

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/net/html"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/web"
)

// TestOtherLanguageMarked finds text in the other language that is not
// marked with its lang: an English phrase where the text's language is
// Korean, or Hangul where it is English. Screen readers pronounce text by
// its marked language; a Korean voice reading an English sentence, or an
// English one reading Hangul, is hard to follow. The text of an element's
// aria-label, title, alt and placeholder counts too; code and preformatted
// text (commands, log lines, file names) do not, nor does the page's
// <title>, which cannot hold markup (the page's lang is its language).
//
// TestCrawl applies the same check (unmarked) to every page it reaches,
// every case and organisation page in both languages among them; this
// test reads the pages the crawl cannot reach: the reader's forms and the
// desk's sign-in, an error page, searches that no link leads to.
func TestOtherLanguageMarked(t *testing.T) {
	t.Parallel()
	ix := sharedIndex(t)
	mux := newMux(t, ix, web.Options{Desk: testDesk(t)})
	pages := []string{"/cases?q=dns+timeout", "/cases?q=zzzzqqq", "/cases?domain=dns&year_from=2020",
		"/submit", "/cases/IL-0049/correct", "/desk/login", "/no-such-page"}
	found := 0
	for _, lang := range []string{"ko", "en"} {
		for _, p := range pages {
			if lang == "en" {
				p = "/en" + p
			}
			r := get(t, mux, p)
			for _, u := range unmarked(r.body, lang) {
				if found++; found <= 40 {
					t.Errorf("%s: %s", p, u)
				}
			}
		}
	}
	if found > 40 {
		t.Errorf("… and %d more", found-40)
	}
}

// englishWord is a word in Latin letters (with its apostrophes and
// hyphens); functionWords are English words no Korean sentence uses.
var (
	englishWord   = regexp.MustCompile(`[A-Za-z][A-Za-z'’-]*`)
	functionWords = map[string]bool{"the": true, "of": true, "and": true, "to": true, "in": true, "is": true, "was": true,
		"were": true, "are": true, "a": true, "an": true, "for": true, "on": true, "with": true, "by": true, "from": true,
		"that": true, "this": true, "be": true, "not": true, "at": true, "as": true, "it": true, "its": true, "has": true,
		"had": true, "have": true, "which": true, "when": true, "after": true, "before": true, "into": true, "or": true}
)

// englishPhrase returns the first English phrase of s: a run of four or
// more Latin words, separated only by spaces and light punctuation, of
// which at least two are lower-case function words ("the write-up of the
// incident"; not a name such as "Bank of America" or a product's).
func englishPhrase(s string) string {
	locs := englishWords(s)
	for i := 0; i < len(locs); {
		j := i + 1
		for j < len(locs) && strings.Trim(s[locs[j-1][1]:locs[j][0]], " ,;:") == "" {
			j++
		}
		if j-i >= 4 {
			n := 0
			for _, l := range locs[i:j] {
				if functionWords[s[l[0]:l[1]]] {
					n++
				}
			}
			if n >= 2 {
				return s[locs[i][0]:locs[j-1][1]]
			}
		}
		i = j
	}
	return ""
}

// englishWords returns the [start, end) of every match of englishWord in
// s, as englishWord.FindAllStringIndex does (TestEnglishWords), without
// the regexp: the crawl scans every page's every text, and the regexp was
// a tenth of the crawl under the race detector.
func englishWords(s string) [][]int {
	var locs [][]int
	latin := func(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
	for i := 0; i < len(s); {
		if !latin(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) {
			switch {
			case latin(s[j]) || s[j] == '\'' || s[j] == '-':
				j++
				continue
			case strings.HasPrefix(s[j:], "’"):
				j += len("’")
				continue
			}
			break
		}
		locs = append(locs, []int{i, j})
		i = j
	}
	return locs
}

// hasHangul reports whether s holds a Hangul letter.
func hasHangul(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Hangul, r) })
}

// unmarked lists the texts of page (whose language is lang) that are in
// the other language without being marked so.
func unmarked(page, lang string) []string {
	type open struct{ tag, lang string }
	stack := []open{{"#document", lang}}
	skip := 0 // inside code, pre, kbd, samp, script, style, title
	var out []string
	check := func(where, text string) {
		cur := stack[len(stack)-1].lang
		switch {
		case strings.HasPrefix(cur, "ko"):
			if p := englishPhrase(text); p != "" {
				out = append(out, fmt.Sprintf("English %s in Korean: %q", where, p))
			}
		case strings.HasPrefix(cur, "en"):
			if hasHangul(text) {
				out = append(out, fmt.Sprintf("Hangul %s in English: %q", where, strings.TrimSpace(text)))
			}
		}
	}
	void := []string{"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				out = append(out, "the page does not tokenize: "+z.Err().Error())
			}
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			l := stack[len(stack)-1].lang
			for _, a := range tok.Attr {
				if a.Key == "lang" {
					l = a.Val
				}
			}
			selfClosing := slices.Contains(void, tok.Data)
			if !selfClosing {
				stack = append(stack, open{tok.Data, l})
				if slices.Contains([]string{"code", "pre", "kbd", "samp", "script", "style", "title"}, tok.Data) {
					skip++
				}
			}
			if skip == 0 {
				for _, a := range tok.Attr {
					if slices.Contains([]string{"aria-label", "title", "alt", "placeholder"}, a.Key) {
						if selfClosing {
							stack = append(stack, open{tok.Data, l})
						}
						check(tok.Data+" "+a.Key, a.Val)
						if selfClosing {
							stack = stack[:len(stack)-1]
						}
					}
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			for i := len(stack) - 1; i > 0; i-- {
				if stack[i].tag == string(name) {
					for _, o := range stack[i:] {
						if slices.Contains([]string{"code", "pre", "kbd", "samp", "script", "style", "title"}, o.tag) {
							skip--
						}
					}
					stack = stack[:i]
					break
				}
			}
		case html.TextToken:
			if skip == 0 {
				check("text", string(z.Text()))
			}
		}
	}
}

// TestUnmarkedFinds holds the scanner to what it must find and leave.
func TestUnmarkedFinds(t *testing.T) {
	for _, c := range []struct {
		page, lang string
		want       int
	}{
		{`<p>장애는 the write-up of the incident 에서 나왔다</p>`, "ko", 1},
		{`<p>장애는 <span lang="en">the write-up of the incident</span> 에서 나왔다</p>`, "ko", 0},
		{`<p>Bank of America 와 Amazon Web Services 가 멈췄다</p>`, "ko", 0},
		{`<p><code>read udp 10.0.0.1: the i/o timeout of the pod</code></p>`, "ko", 0},
		{`<p>The outage lasted 4 minutes</p>`, "en", 0},
		{`<p>The outage: 장애</p>`, "en", 1},
		{`<p>The outage: <span lang="ko">장애</span></p>`, "en", 0},
		{`<a lang="en" href="/en/"><span>영어로</span>English</a>`, "ko", 1},
		{`<img alt="a chart of the cases by the year" src="x.svg"><p>사례</p>`, "ko", 1},
		{`<p>사례<br>the cases of the year were many</p>`, "ko", 1},
	} {
		if got := unmarked(c.page, c.lang); len(got) != c.want {
			t.Errorf("unmarked(%q, %s) = %q, want %d", c.page, c.lang, got, c.want)
		}
	}
}

// testDesk is a desk whose queue keeps nothing: enough for its forms and
// sign-in page to be shown.
func testDesk(t *testing.T) *web.Desk {
	return &web.Desk{Corrections: nopQueue{}, Cases: sharedIndex(t).All(), Token: "a-long-enough-token-for-the-test"}
}

type nopQueue struct{}

func (nopQueue) AddCorrection(context.Context, *incidentlib.Correction) (int64, error) { return 1, nil }
func (nopQueue) Corrections(context.Context, string, int) ([]incidentlib.Correction, error) {
	return nil, nil
}
func (nopQueue) CloseCorrection(context.Context, int64, string, string) error { return nil }

// TestEnglishWords: the scanner finds what the regexp englishWord finds.
func TestEnglishWords(t *testing.T) {
	for _, s := range []string{"", "a", "the write-up of the incident", "it’s O'Brien's — 1.2 x-y -z z- ’a", "한국어 text와 English, mixed; ok", "[x]y_z@w", "\xffab\xc3", "Ab’’c d‘e"} {
		if got, want := englishWords(s), englishWord.FindAllStringIndex(s, -1); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("englishWords(%q) = %v, want %v", s, got, want)
		}
	}
}
