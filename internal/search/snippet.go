package search

import (
	"html"
	"strings"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib"
)

// SnippetLen is roughly how many characters a snippet shows.
const SnippetLen = 220

type span struct{ start, end int }

// matches returns the byte ranges of text whose analysed terms are in want,
// merged where they overlap.
func (ix *Index) matches(text string, want map[string]bool) []span {
	a := ix.bi.Mapping().AnalyzerNamed(analyzerName)
	var spans []span
	for _, tok := range a.Analyze([]byte(text)) {
		if want[string(tok.Term)] {
			spans = append(spans, span{tok.Start, tok.End})
		}
	}
	// Tokens come in order of position; bigrams overlap, identifier parts
	// repeat inside their whole. Sort and merge.
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].start < spans[j-1].start; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	var merged []span
	for _, s := range spans {
		// Join spans that only a hyphen, dot or underscore separates, so
		// that kube-apiserver is marked as one word.
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

func joinable(gap string) bool {
	return gap != "" && len(gap) <= 2 && strings.Trim(gap, "-_.") == ""
}

// snippet picks the part of the case, in lang, that best shows why it
// matched, and marks the matched words. Without query terms it is the start
// of the summary.
func (ix *Index) snippet(c *incidentlib.Case, lang string, terms []string) string {
	fields := []string{c.SymptomsText.In(lang), c.Summary.In(lang), c.Trigger.In(lang), c.Detection.In(lang), c.Lessons.In(lang)}
	if len(terms) == 0 {
		return html.EscapeString(cut(fields[1], 0, SnippetLen))
	}
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	best, bestSpans, bestScore := fields[1], []span(nil), -1
	for _, f := range fields {
		sp := ix.matches(f, want)
		if len(sp) > bestScore {
			best, bestSpans, bestScore = f, sp, len(sp)
		}
	}
	if len(bestSpans) == 0 {
		return html.EscapeString(cut(best, 0, SnippetLen))
	}
	// The window of SnippetLen bytes holding the most matches.
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
	// Begin at a word boundary.
	if start > 0 {
		if i := strings.IndexAny(best[start:], " \n"); i >= 0 && i < 30 {
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
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	pos := start
	for _, s := range bestSpans {
		if s.end <= start || s.start >= end {
			continue
		}
		if s.start < pos {
			s.start = pos
		}
		if s.end > end {
			s.end = end
		}
		b.WriteString(flat(html.EscapeString(best[pos:s.start])))
		b.WriteString("<mark>")
		b.WriteString(html.EscapeString(best[s.start:s.end]))
		b.WriteString("</mark>")
		pos = s.end
	}
	b.WriteString(flat(html.EscapeString(best[pos:end])))
	if end < len(best) {
		b.WriteString("…")
	}
	return b.String()
}

func flat(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// cut returns about n bytes of s from start, ending on a rune boundary.
func cut(s string, start, n int) string {
	s = s[start:]
	if len(s) <= n*2 {
		return flat(s)
	}
	end := n * 2
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return flat(s[:end]) + "…"
}
