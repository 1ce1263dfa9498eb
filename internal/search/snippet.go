package search

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib"
)

// SnippetLen is roughly how many characters a snippet shows.
const SnippetLen = 220

type span struct{ start, end int }

// snippetSections are the sections snippets are cut from, in their snippet
// order, each with its search field.
var snippetSections = func() []snippetSection {
	var out []snippetSection
	for i := range incidentlib.Sections {
		if s := &incidentlib.Sections[i]; s.Snippet > 0 {
			out = append(out, snippetSection{s, fieldNo(s.Search)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].s.Snippet < out[j].s.Snippet })
	return out
}()

type snippetSection struct {
	s     *incidentlib.Section
	field int
}

func joinable(gap string) bool {
	return gap != "" && len(gap) <= 2 && strings.Trim(gap, "-_.") == ""
}

// snippet picks the part of the case, in lang, that best shows why it
// matched, and marks the matched words. Without query terms it is the start
// of the summary. Only the page's hits are analysed, so a search analyses
// a few texts whatever the size of the corpus.
//
// fields says which fields matched (one bit a field, from scoring): only
// the sections of those fields that give snippets (Section.Snippet) are
// read, in their snippet order (summary, symptoms, trigger, title); the
// first with three matches in the reader's language is used, else the one
// with the most.
//
// The words of those fields are analysed once per document and kept in a
// bounded cache (snipwords.go), so a snippet mostly scans words and
// analyses nothing.
//
// The summary is tried first: a result card also shows the symptoms, and a
// snippet from them would say the same twice. from names the field the
// snippet was cut from ("summary", "symptoms", "trigger" or "title"). The
// text is flattened first, so no Markdown marker or backtick shows.
//
// ds is the document's analysed fields (snips); want gives the query's
// terms that a search field of the document holds, as dictionary numbers
// (wantOf); it is nil without query terms. The snippet is appended to
// out.b: a page's snippets share one string (Search), and out's span
// buffers are reused from hit to hit.
func snippet(ds *docSnips, lang string, want func(field int) []uint32, fields uint8, out *snipOut) (from string) {
	texts := ds[snipLang(lang)]
	if want == nil {
		texts[0].head(&out.b, SnippetLen)
		return "summary"
	}
	best, bestSpans, from := &texts[0], []span(nil), "summary"
	free := 0 // the span buffer the best spans so far are not in
	for i, sn := range snippetSections {
		if fields&(1<<sn.field) == 0 {
			continue
		}
		w := want(sn.field)
		if len(w) == 0 {
			continue
		}
		spans := texts[i].spans(w, out.spans[free][:0])
		out.spans[free] = spans
		if len(spans) > len(bestSpans) {
			best, bestSpans, from = &texts[i], spans, fieldNames[sn.field]
			free = 1 - free
			if len(spans) >= 3 {
				break // enough to show why it matched; skip the rest
			}
		}
	}
	if len(bestSpans) == 0 {
		best.head(&out.b, SnippetLen)
		return from
	}
	mark(&out.b, best, mergeSpans(best.text, bestSpans))
	return from
}

// snipOut is what a page's snippets are written to and found in.
type snipOut struct {
	b     strings.Builder
	spans [2][]span
}

// flatten turns case prose into one line of plain text: list markers,
// fences and backticks go, lines and paragraphs are joined by spaces.
func flatten(s string) string {
	if !strings.ContainsAny(s, "\n`") && !strings.HasPrefix(s, "- ") {
		return s
	}
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "```") {
			continue
		}
		for _, m := range []string{"- ", "* ", "> "} {
			l = strings.TrimPrefix(l, m)
		}
		if i := strings.Index(l, ". "); i > 0 && i <= 3 && strings.Trim(l[:i], "0123456789") == "" {
			l = l[i+2:]
		}
		l = strings.ReplaceAll(l, "`", "")
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(l)
	}
	return b.String()
}

// mergeSpans sorts spans and joins those that overlap or that only a
// hyphen, dot or underscore separates (so kube-apiserver is one mark). It
// merges in place: the result is a prefix of spans.
func mergeSpans(text string, spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	merged := spans[:0]
	for _, s := range spans {
		if n := len(merged); n > 0 && (s.start <= merged[n-1].end || joinable(text[merged[n-1].end:s.start])) {
			if s.end > merged[n-1].end {
				merged[n-1].end = s.end
			}
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// mark cuts the window of st's text that holds the most spans and marks
// them, appending it to b. The window is chosen in the text; what is
// written is the escaped text of it (snipText.esc), so a snippet escapes
// nothing.
func mark(b *strings.Builder, st *snipText, bestSpans []span) {
	best := st.text
	from, most := 0, 0
	for i := range bestSpans {
		n := 0
		for j := i; j < len(bestSpans) && bestSpans[j].end-bestSpans[i].start <= SnippetLen*2; j++ {
			n++
		}
		if n > most {
			from, most = i, n
		}
	}
	start := bestSpans[from].start - SnippetLen/3
	if start < 0 {
		start = 0
	}
	for start > 0 && !utf8.RuneStart(best[start]) {
		start--
	}
	if start > 0 {
		if i := strings.IndexAny(best[start:], " \n"); i >= 0 && i < 30 && start+i+1 <= bestSpans[from].start {
			start += i + 1
		}
	}
	end := start + SnippetLen*2 // bytes: Hangul takes three a character
	if end > len(best) {
		end = len(best)
	}
	for end < len(best) && !utf8.RuneStart(best[end]) {
		end--
	}
	if start > 0 {
		b.WriteString("…")
	}
	pos := start
	for _, s := range bestSpans {
		if s.end <= pos || s.start >= end {
			continue
		}
		if s.start < pos {
			s.start = pos
		}
		if s.end > end {
			s.end = end
		}
		b.WriteString(st.escaped(pos, s.start))
		b.WriteString("<mark>")
		b.WriteString(st.escaped(s.start, s.end))
		b.WriteString("</mark>")
		pos = s.end
	}
	b.WriteString(st.escaped(pos, end))
	if end < len(best) {
		b.WriteString("…")
	}
}

// snippetSpecial marks the bytes escapeShifts replaces, and snippetEsc
// gives their replacements: HTML's five as html.EscapeString writes them,
// a backslash as its character reference, and a line break or any other
// control character as a space. So a snippet is HTML that JSON holds as it
// is (no quote, backslash, control character, U+2028 or U+2029; Hit.Snippet).
var snippetSpecial, snippetEsc = func() (special [256]bool, esc [256]string) {
	for c := 0; c < 0x20; c++ {
		esc[c] = " "
	}
	esc['<'], esc['>'], esc['&'], esc['\''], esc['"'], esc['\\'] = "&lt;", "&gt;", "&amp;", "&#39;", "&#34;", "&#92;"
	for c := range esc {
		special[c] = esc[c] != ""
	}
	special[0xE2] = true // the first byte of U+2028 and U+2029
	return
}()

// escShift says that from byte at of a text on, its escaped form
// (snipText.esc) is delta bytes longer (or shorter).
type escShift struct{ at, delta int32 }

// escapeShifts returns s escaped for a snippet (snippetEsc; U+2028 and
// U+2029 as spaces), in one pass, and, in order, the offsets of s after
// each escape that changes the length, with the total change up to there:
// what escAt needs to map an offset of s into it.
func escapeShifts(s string) (string, []escShift) {
	var b strings.Builder
	b.Grow(len(s) + 16)
	var shifts []escShift
	last, delta := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !snippetSpecial[c] {
			continue
		}
		esc, w := snippetEsc[c], 1
		if c == 0xE2 {
			if i+2 >= len(s) || s[i+1] != 0x80 || s[i+2] != 0xA8 && s[i+2] != 0xA9 {
				continue
			}
			esc, w = " ", 3
		}
		b.WriteString(s[last:i])
		b.WriteString(esc)
		if len(esc) != w {
			delta += len(esc) - w
			shifts = append(shifts, escShift{int32(i + w), int32(delta)})
		}
		i += w - 1
		last = i + 1
	}
	b.WriteString(s[last:])
	return b.String(), shifts
}

// escapeSnippet is s escaped for a snippet (escapeShifts).
func escapeSnippet(s string) string {
	esc, _ := escapeShifts(s)
	return esc
}

// escAt maps byte i of st.text, a rune boundary, to st.esc.
func (st *snipText) escAt(i int) int {
	k := sort.Search(len(st.shifts), func(k int) bool { return int(st.shifts[k].at) > i })
	if k == 0 {
		return i
	}
	return i + int(st.shifts[k-1].delta)
}

// escaped is st.text[from:to] escaped, from st.esc.
func (st *snipText) escaped(from, to int) string {
	if st.shifts == nil {
		return st.esc[from:to]
	}
	return st.esc[st.escAt(from):st.escAt(to)]
}

// head appends to b about n bytes of st.text from its start, escaped,
// ending on a rune boundary, with an ellipsis when it is cut.
func (st *snipText) head(b *strings.Builder, n int) {
	s := st.text
	if len(s) <= n*2 {
		b.WriteString(st.esc)
		return
	}
	end := n * 2
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	b.WriteString(st.escaped(0, end))
	b.WriteString("…")
}
