// Package synth makes synthetic corpora from the real one, for measuring
// the library at ten and a hundred times its size.
//
// A synthetic case is drawn from a real case, its template: the same
// sections and vocabulary terms, with about a fifth of the words of every
// text (English and Korean) replaced by words drawn from the whole corpus
// in proportion to their use, and a few by words of the synthetic corpus's
// own. So common words stay common and a posting list grows with the
// corpus as it would in a real one, the vocabulary keeps growing (Heaps'
// law) rather than stopping at the real corpus's, and no two cases are the
// same text. Dates, organisations and source anchors vary too. The cases
// pass validate, so `incidentlib import` loads them as it loads any.
package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"

	"github.com/incidentlib/incidentlib"
)

// Options are the knobs of a synthetic corpus.
type Options struct {
	// Seed makes the corpus repeatable: the same seed, templates and N
	// give the same cases.
	Seed uint64
	// FirstID is the number of the first synthetic id (IL-<FirstID>);
	// 10000 puts every synthetic case past IL-9999.
	FirstID int
	// Replace is the share of a text's words replaced by corpus words
	// (0.2 when zero), and Invent the share replaced by new words
	// (0.01 when zero).
	Replace, Invent float64
}

// Generator draws synthetic cases from templates.
type Generator struct {
	opt       Options
	templates []*incidentlib.Case
	words     [2][]string // every word of the corpus's texts, English [0] and Korean [1], with repeats
	rng       *rand.Rand
	n         int // cases made so far
	orgs      int // the synthetic organisations to draw from
}

// New returns a generator over the templates (the real corpus) that will
// make about total cases in all.
func New(templates []*incidentlib.Case, total int, opt Options) *Generator {
	if opt.Replace == 0 {
		opt.Replace = 0.2
	}
	if opt.Invent == 0 {
		opt.Invent = 0.01
	}
	if opt.FirstID == 0 {
		opt.FirstID = 10000
	}
	g := &Generator{opt: opt, templates: templates, rng: rand.New(rand.NewPCG(opt.Seed, 0x5eed)),
		orgs: max(1, total/3)}
	for _, c := range templates {
		eachText(c, func(t *incidentlib.Text) {
			for l, s := range [2]string{t.EN, t.KO} {
				for _, w := range strings.Fields(s) {
					if plainWord(w) {
						g.words[l] = append(g.words[l], w)
					}
				}
			}
		})
	}
	return g
}

// plainWord reports whether w is a word that can stand anywhere: letters
// only (no time, number, URL or punctuation a check reads), and no hedge.
func plainWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	switch strings.ToLower(w) {
	case "apparently", "seemingly", "reportedly", "presumably", "supposedly", "allegedly",
		"am", "pm", "utc", "gmt", "pt", "et", "pst", "pdt", "est", "edt", "kst", "jst", "cet", "bst", "ist":
		return false
	}
	return w != ""
}

// Next returns the next synthetic case.
func (g *Generator) Next() *incidentlib.Case {
	i := g.n
	g.n++
	return g.make(i)
}

// Redraw makes the case of id again with new draws: for a case that the
// drawn words made invalid.
func (g *Generator) Redraw(id string) *incidentlib.Case {
	var i int
	fmt.Sscanf(id, "IL-%d", &i)
	return g.make(i - g.opt.FirstID)
}

// make draws the i-th synthetic case.
func (g *Generator) make(i int) *incidentlib.Case {
	t := g.templates[g.rng.IntN(len(g.templates))]
	c := clone(t)
	c.ID = fmt.Sprintf("IL-%d", g.opt.FirstID+i)
	c.Date = fmt.Sprintf("%d-%02d-%02d", 2008+g.rng.IntN(19), 1+g.rng.IntN(12), 1+g.rng.IntN(28))
	if g.rng.IntN(2) == 0 {
		o := g.rng.IntN(g.orgs)
		c.Org = fmt.Sprintf("%s %s", g.word(0), orgName(o))
		c.OrgSlug = fmt.Sprintf("synthetic-%d", o)
	}
	eachText(c, func(tx *incidentlib.Text) {
		tx.EN = g.vary(tx.EN, 0)
		tx.KO = g.vary(tx.KO, 1)
	})
	for k := range c.Sources {
		url, _, _ := strings.Cut(c.Sources[k].URL, "#")
		c.Sources[k].URL = fmt.Sprintf("%s#synthetic-%d-%d", url, g.opt.FirstID+i, k)
	}
	c.Related, c.RecurrenceOf = []string{}, nil
	c.Review = incidentlib.Review{WrittenBy: t.Review.WrittenBy}
	return c
}

// orgName is a made-up organisation name of the number o.
func orgName(o int) string {
	const letters = "bcdfghjklmnprstvz"
	var b strings.Builder
	for o++; o > 0; o /= len(letters) {
		b.WriteByte(letters[o%len(letters)])
		b.WriteByte("aeiou"[o%5])
	}
	s := b.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

// word draws a word of language l (0 English, 1 Korean) in proportion to
// its use in the corpus.
func (g *Generator) word(l int) string {
	ws := g.words[l]
	if len(ws) == 0 {
		return "word"
	}
	return ws[g.rng.IntN(len(ws))]
}

// invented is a word no real case holds, from a stock that grows with the
// synthetic corpus: a word made up for one case is met again in others.
func (g *Generator) invented() string {
	stock := 1000 + g.n
	n := g.rng.IntN(stock)
	const letters = "abcdefghijklmnopqrstuvwxyz"
	var b strings.Builder
	b.WriteString("zq")
	for n++; n > 0; n /= len(letters) {
		b.WriteByte(letters[n%len(letters)])
	}
	return b.String()
}

// vary replaces some words of s, never its last (a Korean title and
// sentence end in their verb), and only plain words: times, numbers, ids,
// URLs and quoted log lines stay as they are.
func (g *Generator) vary(s string, l int) string {
	if s == "" {
		return s
	}
	lines := strings.Split(s, "\n")
	for li, line := range lines {
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "```") {
			continue
		}
		words := strings.Split(line, " ")
		for i := 0; i+1 < len(words); i++ {
			if !plainWord(words[i]) {
				continue
			}
			switch r := g.rng.Float64(); {
			case r < g.opt.Invent:
				words[i] = g.invented()
			case r < g.opt.Invent+g.opt.Replace:
				words[i] = g.word(l)
			}
		}
		lines[li] = strings.Join(words, " ")
	}
	return strings.Join(lines, "\n")
}

// eachText calls f with every bilingual text of c.
func eachText(c *incidentlib.Case, f func(*incidentlib.Text)) {
	// The impact's few words (a region, a count of users) stay as they are.
	for _, t := range []*incidentlib.Text{&c.Title, &c.Summary, &c.Trigger, &c.SymptomsText, &c.Detection, &c.Lessons} {
		f(t)
	}
	for i := range c.Timeline.Events {
		f(&c.Timeline.Events[i].Text)
	}
	for _, items := range [][]incidentlib.Item{c.Remediation, c.ActionItems} {
		for i := range items {
			f(&items[i].Text)
		}
	}
}

// clone copies c deeply enough that changing the copy's texts, lists and
// sources leaves c as it was.
func clone(c *incidentlib.Case) *incidentlib.Case {
	k := *c
	k.Domain = append([]string{}, c.Domain...)
	k.Symptoms = append([]string{}, c.Symptoms...)
	k.Components = append([]string{}, c.Components...)
	k.Contributing = append([]string{}, c.Contributing...)
	k.Docs = append([]string{}, c.Docs...)
	k.Timeline.Events = append(k.Timeline.Events[:0:0], c.Timeline.Events...)
	k.Remediation = append(k.Remediation[:0:0], c.Remediation...)
	k.ActionItems = append(k.ActionItems[:0:0], c.ActionItems...)
	k.Sources = append(k.Sources[:0:0], c.Sources...)
	return &k
}
