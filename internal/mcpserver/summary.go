package mcpserver

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// A tool answer goes out once in full, as structured content that the
// output schema describes, with a short text beside it for hosts that show
// the model only text: one line a case (id, organisation, date, title),
// the notes and how to page on; addresses, snippets, scores and the rest
// are in the structured content. An answer with no summary sends its JSON
// as the text.

// titleRunes bounds a title in the text summary, in columns: a Hangul or
// other wide character takes two (it carries about as much as two Latin
// letters), so a Korean title is cut at about 45 characters.
const titleRunes = 90

func clip(s string, n int) string {
	cols := 0
	for i, r := range s {
		w := 1
		if r >= 0x1100 && (unicode.Is(unicode.Hangul, r) || unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)) {
			w = 2
		}
		if cols+w > n {
			return strings.TrimSpace(s[:i]) + "…"
		}
		cols += w
	}
	return s
}

func writeItems(b *strings.Builder, items []Item) {
	for _, it := range items {
		fmt.Fprintf(b, "- %s %s %s: %s\n", it.ID, it.Org, it.Date, clip(it.Title, titleRunes))
	}
}

func writePaging(b *strings.Builder, shown, total, next int) {
	if next > 0 {
		fmt.Fprintf(b, "More: %d of %d shown; call again with offset %d.\n", shown, total, next)
	}
}

func (o ListOutput) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d cases match; %d here (addresses, snippets and every field are in the structured content).\n", o.Total, len(o.Items))
	writeItems(&b, o.Items)
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	writePaging(&b, len(o.Items), o.Total, o.NextOffset)
	return b.String()
}

func (o SimilarOutput) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d similar cases, most similar first (reasons, scores, addresses: structured content).\n", len(o.Items))
	for _, it := range o.Items {
		fmt.Fprintf(&b, "- %s %s %s: %s\n", it.ID, it.Org, it.Date, clip(it.Title, titleRunes))
	}
	if o.NextOffset > 0 {
		fmt.Fprintf(&b, "More: call again with offset %d.\n", o.NextOffset)
	}
	return b.String()
}

func (o TopicOutput) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s:%s): %s\n%d cases; %d here (co-occurring terms and counts by year are in the structured content).\n", o.Label, o.Vocab, o.Term, o.Description, o.Total, len(o.Cases))
	writeItems(&b, o.Cases)
	writePaging(&b, len(o.Cases), o.Total, o.NextOffset)
	return b.String()
}

func (o VocabOutput) Summary() string {
	var b strings.Builder
	b.WriteString("Term ids by vocabulary (labels and the rest: structured content):\n")
	names := make([]string, 0, len(o.Vocabularies))
	for n := range o.Vocabularies {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s: ", n)
		ids := make([]string, 0, len(o.Vocabularies[n]))
		for _, t := range o.Vocabularies[n] {
			ids = append(ids, t.ID)
		}
		fmt.Fprintf(&b, "%s\n", strings.Join(ids, ", "))
	}
	return b.String()
}
