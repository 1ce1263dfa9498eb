package web

import (
	"html"
	"html/template"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// prose turns a case's plain text into HTML: blank lines separate
// paragraphs, "- " and "1. " lines make lists, `backticks` make code, and
// ``` fences or lines indented four spaces keep quoted machine output as is.
// The corpus wraps lines at spaces, so a line break inside a paragraph is a
// space, except for quoted machine output (see literal).
func prose(s string) template.HTML {
	korean := hasHangul(s)
	// In Korean text, a paragraph or list item with no Hangul (an error
	// quoted whole, a sentence of the write-up) is English.
	open := func(tag string, lines []string) string {
		if korean && !hasHangul(strings.Join(lines, " ")) && hasLatin(strings.Join(lines, " ")) {
			return "<" + tag + ` lang="en">`
		}
		return "<" + tag + ">"
	}
	var b strings.Builder
	for _, block := range blocks(s) {
		if code, ok := strings.CutPrefix(block, codeMark); ok {
			b.WriteString(`<pre class="literal"><code>` + html.EscapeString(code) + "</code></pre>")
			continue
		}
		lines := strings.Split(block, "\n")
		switch {
		case bullet(lines[0]) != "":
			b.WriteString("<ul>")
			for _, it := range listItems(lines, bullet) {
				b.WriteString(open("li", it) + renderLines(it, korean) + "</li>")
			}
			b.WriteString("</ul>")
		case numbered(lines[0]) != "":
			b.WriteString("<ol>")
			for _, it := range listItems(lines, numbered) {
				b.WriteString(open("li", it) + renderLines(it, korean) + "</li>")
			}
			b.WriteString("</ol>")
		default:
			b.WriteString(open("p", trimAll(lines)) + renderLines(trimAll(lines), korean) + "</p>")
		}
	}
	return template.HTML(b.String())
}

// hasLatin reports whether s holds an ASCII letter.
func hasLatin(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < unicode.MaxASCII && unicode.IsLetter(r) })
}

// codeMark starts a block that is quoted machine output: a ``` fenced block
// or lines indented four spaces. It cannot occur in case text, which holds
// no control characters.
const codeMark = "\x00"

// blocks splits text at blank lines. A fenced block is one block whatever
// it holds, and it and a run of lines indented four spaces come back marked
// with codeMark, their lines as written.
func blocks(s string) []string {
	s = strings.ReplaceAll(strings.Trim(s, "\n"), "\r\n", "\n")
	var out, cur []string
	flush := func() {
		if blk := strings.Trim(strings.Join(cur, "\n"), "\n"); strings.TrimSpace(blk) != "" {
			out = append(out, blk)
		}
		cur = cur[:0]
	}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "```"):
			flush()
			var code []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				code = append(code, lines[i])
			}
			if len(code) > 0 {
				out = append(out, codeMark+strings.Join(code, "\n"))
			}
		case strings.HasPrefix(l, "    ") && len(cur) == 0:
			var code []string
			for ; i < len(lines) && strings.HasPrefix(lines[i], "    "); i++ {
				code = append(code, lines[i][4:])
			}
			i--
			out = append(out, codeMark+strings.Join(code, "\n"))
		case strings.TrimSpace(l) == "":
			flush()
		default:
			cur = append(cur, l)
		}
	}
	flush()
	return out
}

// bullet returns the item text when line starts a "- " or "* " item.
func bullet(line string) string {
	t := strings.TrimLeft(line, " ")
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
		return t[2:]
	}
	return ""
}

// numbered returns the item text when line starts a "1. " item.
func numbered(line string) string {
	t := strings.TrimLeft(line, " ")
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && strings.HasPrefix(t[i:], ". ") {
		return t[i+2:]
	}
	return ""
}

// listItems groups lines into items, each a list of its lines; a line that
// starts no item continues the one before.
func listItems(lines []string, start func(string) string) [][]string {
	var items [][]string
	for _, l := range lines {
		if t := start(l); t != "" {
			items = append(items, []string{strings.TrimSpace(t)})
			continue
		}
		if len(items) == 0 {
			items = append(items, nil)
		}
		items[len(items)-1] = append(items[len(items)-1], strings.TrimSpace(l))
	}
	return items
}

func trimAll(lines []string) []string {
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return lines
}

// renderLines joins wrapped lines with spaces and sets quoted machine
// output on lines of its own.
func renderLines(lines []string, korean bool) string {
	var b strings.Builder
	var run []string // lines that flow into one sentence, joined at spaces
	flush := func() {
		if len(run) > 0 {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(inline(strings.Join(run, " "), korean))
			run = run[:0]
		}
	}
	for i, l := range lines {
		if i > 0 && literal(lines[i-1], l) {
			flush()
			b.WriteString(`<code class="literal">` + html.EscapeString(l) + "</code>")
			continue
		}
		run = append(run, l)
	}
	flush()
	return b.String()
}

// literal reports whether line is quoted machine output, such as a log
// line, which the cases introduce with a colon: it must keep its own line
// and spacing rather than flow into the sentence. Prose after a colon has
// Korean or no machine punctuation.
func literal(prev, line string) bool {
	if !strings.HasSuffix(strings.TrimSpace(prev), ":") || hasHangul(line) {
		return false
	}
	return strings.ContainsAny(line, "{}[]=/_") || strings.Count(line, ":") >= 2
}

// inline escapes s and turns `code` spans into <code>. In Korean text
// (korean), a quotation in Latin script (an error message, a log line, a
// sentence of the write-up, between straight or curly double quotes) is
// marked lang="en", so that a screen reader reads it in English.
func inline(s string, korean bool) string {
	esc := html.EscapeString
	if korean {
		esc = markQuotedEnglish
	}
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 { // an unpaired backtick is text
		return esc(s)
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && p != "" {
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
		} else {
			b.WriteString(esc(p))
		}
	}
	return b.String()
}

// quotation is a run between straight or curly double quotes, or from an
// opening quote to the "…" that ends a text cut short.
var quotation = regexp.MustCompile(`"[^"]+"|“[^”]+”|["“][^"“”]+…$`)

// markQuotedEnglish escapes s, marking with lang="en" each quotation that
// holds Latin letters and no Hangul, and the rest of a labelled line
// ("파드 이벤트: Failed to create pod sandbox: …": a Korean label, a colon,
// then text with no Hangul).
func markQuotedEnglish(s string) string {
	if label, rest, ok := strings.Cut(s, ": "); ok && hasHangul(label) && !hasHangul(rest) && hasLatin(rest) {
		return markQuotedEnglish(label) + ": " + `<span lang="en">` + html.EscapeString(rest) + `</span>`
	}
	var b strings.Builder
	last := 0
	for _, m := range quotation.FindAllStringIndex(s, -1) {
		q := s[m[0]:m[1]]
		if hasHangul(q) || !hasLatin(q) {
			continue
		}
		b.WriteString(html.EscapeString(s[last:m[0]]))
		b.WriteString(`<span lang="en">` + html.EscapeString(q) + `</span>`)
		last = m[1]
	}
	b.WriteString(html.EscapeString(s[last:]))
	return b.String()
}

// snippetQuotation is a quotation inside a search snippet, which is
// escaped text with <mark> tags: between escaped straight quotes (with
// entities and marks inside) or curly ones, or from an opening quote to
// the "…" that ends a snippet cut short.
var snippetQuotation = regexp.MustCompile(`&#34;(?:[^&]|&(?:amp|lt|gt|#39|#92);)+?&#34;|“[^“”]+”|(?:&#34;|“)(?:[^&“”]|&(?:amp|lt|gt|#39|#92);)+…$`)

// markSnippetQuotes marks with lang="en" each quotation of a snippet (as
// snippetHTML trusts it) that holds Latin letters and no Hangul, where the
// quotation opens and closes as many marks as it holds, so that the span
// nests. A snippet with no Hangul at all (a symptom that is an error
// message) is marked whole.
func markSnippetQuotes(s string) string {
	if all := snippetText(s); !hasHangul(all) && hasLatin(all) {
		return `<span lang="en">` + s + `</span>`
	}
	var b strings.Builder
	last := 0
	for _, m := range snippetQuotation.FindAllStringIndex(s, -1) {
		q := s[m[0]:m[1]]
		text := snippetText(q)
		if hasHangul(text) || !hasLatin(text) || !balancedMarks(q) {
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(`<span lang="en">` + q + `</span>`)
		last = m[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// unmark takes a snippet's <mark> tags out.
var unmark = strings.NewReplacer("<mark>", "", "</mark>", "")

// snippetText is the text a part of a snippet shows: its marks out, its
// entities decoded.
func snippetText(s string) string { return html.UnescapeString(unmark.Replace(s)) }

// balancedMarks reports whether every <mark> of s closes within it, and
// nothing closes in it that opened before.
func balancedMarks(s string) bool {
	depth := 0
	for s != "" {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			break
		}
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "<mark>"):
			depth++
		case strings.HasPrefix(s, "</mark>"):
			if depth--; depth < 0 {
				return false
			}
		}
		s = s[1:]
	}
	return depth == 0
}

// snippetHTML trusts a search snippet as HTML only as far as its promise
// goes: escaped text plus <mark> tags. Anything else that looks like markup
// means the promise broke, and the snippet is shown as plain text instead.
func snippetHTML(s string) template.HTML {
	rest := strings.NewReplacer("<mark>", "", "</mark>", "").Replace(s)
	if strings.ContainsAny(rest, "<>") {
		return template.HTML(html.EscapeString(html.UnescapeString(rest)))
	}
	return template.HTML(s)
}

// plain flattens prose to one line of text: list markers and backticks go,
// and a code block (a log line, an error message) becomes a quotation, so
// that it still reads as quoted text (and q marks its language).
func plain(s string) string {
	var words []string
	for _, blk := range blocks(s) {
		code := strings.HasPrefix(blk, codeMark)
		blk = strings.TrimPrefix(blk, codeMark)
		from := len(words)
		for _, l := range strings.Split(blk, "\n") {
			if t := bullet(l); t != "" {
				l = t
			} else if t := numbered(l); t != "" {
				l = t
			}
			words = append(words, strings.Fields(strings.ReplaceAll(l, "`", ""))...)
		}
		if code && len(words) > from {
			words[from] = "“" + words[from]
			words[len(words)-1] += "”"
		}
	}
	return strings.Join(words, " ")
}

// fold cuts text to about n characters at a word boundary, for cards that
// show a few lines of each section. CSS clamps the lines; cutting here too
// keeps a list page of twenty cards well under its size budget.
func fold(s string, n int) string {
	s = plain(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for i := range s {
		if n == 0 {
			cut = i
			break
		}
		n--
	}
	if sp := strings.LastIndex(s[:cut], " "); sp > cut*2/3 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ,.;:·") + "…"
}

// hasHangul reports whether s holds Korean, so English-only facts on a
// Korean page can be marked lang="en" for screen readers.
func hasHangul(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hangul, r) {
			return true
		}
	}
	return false
}
