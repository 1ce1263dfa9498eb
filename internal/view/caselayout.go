package view

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
)

// LayoutRelated is the place of the related cases, after the sections of
// incidentlib.Sections.
const LayoutRelated = "related"

// CasePage is a case laid out in one language, as the case page and
// `incidentlib show` print it: the head, the facts, then the blocks in
// order. What is unknown, which blocks show, in what order and in what
// words is decided here; the page and the terminal only format it.
type CasePage struct {
	Lang   string
	Head   CaseHead
	Facts  []Fact
	Blocks []Block
}

// CaseHead is the case's identity above the facts.
type CaseHead struct {
	ID, Org, OrgSlug, Date string
	DateKind               string // the kind of date, in words
	Domain                 Terms
	Title, Summary         string
	Reviewed               bool
}

// Fact is one line of the facts list.
type Fact struct {
	Key   string // the section or field it comes from
	Words string
	Value string // "–" (the catalogue's "unknown") when not known
	// Lang is the value's language when it is not the page's: "en" for an
	// English text on a Korean page; "" otherwise.
	Lang string
}

// Terms are a case's terms of one vocabulary.
type Terms struct {
	Vocab  string
	Words  string // the vocabulary's heading
	IDs    []string
	Labels []string // the ids' labels, in order
	// Joined is the labels joined by ", ", or "–" when there are none.
	Joined string
	// Strong marks the case's root cause, shown as the strongest chip.
	Strong bool
}

// Event is one moment of the timeline.
type Event struct {
	At, Text string
}

// Source is one write-up a case is based on.
type Source struct {
	Title, URL, Publisher string
	Kind                  string // the kind, in words
	License               string // "" when unknown
	Archived              string // the archived copy's address, or ""
}

// CaseRef names another case.
type CaseRef struct {
	ID, Title, Org string
	Year           int
	Reason         string // why it is related, in words; "" when not given
	Curated        bool   // listed by the case itself
	Found          bool   // false for an id the library does not hold
}

// Block is one block of the page under its own heading: a section of
// incidentlib.Sections with a place of its own, or the related cases.
type Block struct {
	Layout string // an incidentlib.Layout constant, or LayoutRelated
	Key    string // the section's key, or "related"
	Anchor string // the heading's id on the page is "s-"+Anchor
	Words  string // the heading
	// Prose is the text of a prose or cause block; TextWords heads it in
	// a cause block.
	Prose     string
	TextWords string
	// Chips are the terms shown above a prose block, or nil.
	Chips *Terms
	// Terms are the cause's terms that the case has, in table order;
	// Recurrence the earlier case this one is a recurrence of.
	Terms      []Terms
	Recurrence *CaseRef
	Items      []string
	Events     []Event
	Sources    []Source
	Docs       []string
	Related    []CaseRef
	// None is what an items or related block says when it lists nothing.
	None string
}

// CaseLayout lays out c in lang. find looks up another case by id (the
// recurrence); related are the related cases the face has (RelatedOf,
// CuratedRelated).
func CaseLayout(c *incidentlib.Case, v *incidentlib.Vocab, lang string, find func(id string) *incidentlib.Case, related []CaseRef) CasePage {
	p := CasePage{Lang: lang, Head: caseHead(c, v, lang), Facts: caseFacts(c, v, lang)}
	for i := range incidentlib.Sections {
		if b, ok := sectionBlock(&incidentlib.Sections[i], c, v, lang, find); ok {
			p.Blocks = append(p.Blocks, b)
		}
	}
	p.Blocks = append(p.Blocks, Block{Layout: LayoutRelated, Key: "related", Anchor: "related",
		Words: locale.T(lang, "related"), Related: related, None: locale.T(lang, "unknown")})
	return p
}

func caseHead(c *incidentlib.Case, v *incidentlib.Vocab, lang string) CaseHead {
	return CaseHead{
		ID: c.ID, Org: c.Org, OrgSlug: c.OrgSlug, Date: c.Date,
		DateKind: locale.T(lang, "date_kind."+c.DateKind),
		Domain:   caseTerms(incidentlib.SectionByKey("domain"), c, v, lang),
		Title:    c.Title.In(lang), Summary: c.Summary.In(lang),
		Reviewed: c.Reviewed(),
	}
}

// caseFacts are the facts list: severity, the impact, the durations.
func caseFacts(c *incidentlib.Case, v *incidentlib.Vocab, lang string) []Fact {
	unknown := locale.T(lang, "unknown")
	severity := unknown
	if c.Severity != "" && c.Severity != "unknown" {
		severity = v.Label(incidentlib.VocabSeverity, c.Severity, lang)
	}
	text := func(key string, t incidentlib.Text) Fact {
		f := Fact{Key: key, Words: locale.T(lang, key), Value: t.In(lang)}
		if incidentlib.IsUnknown(f.Value) {
			f.Value = unknown
		} else if lang == locale.KO && !hasHangul(f.Value) && strings.ContainsFunc(f.Value, unicode.IsLetter) {
			f.Lang = locale.EN
		}
		return f
	}
	return []Fact{
		{Key: "severity", Words: locale.T(lang, "severity"), Value: severity},
		text("impact.scope", c.Impact.Scope),
		text("impact.users", c.Impact.Users),
		text("impact.region", c.Impact.Region),
		{Key: "detected_after", Words: locale.T(lang, "detected_after"), Value: Duration(c.Timeline.DetectedAfter, lang)},
		{Key: "resolved_after", Words: locale.T(lang, "resolved_after"), Value: Duration(c.Timeline.ResolvedAfter, lang)},
	}
}

// sectionBlock is the block of a section with a place of its own; false
// for the others, and for a section the case leaves without a block (a
// timeline with no events, an optional prose section left empty).
func sectionBlock(sec *incidentlib.Section, c *incidentlib.Case, v *incidentlib.Vocab, lang string, find func(string) *incidentlib.Case) (Block, bool) {
	b := Block{Layout: sec.Layout, Key: sec.Key, Anchor: sec.Anchor, Words: locale.T(lang, sec.Words)}
	switch sec.Layout {
	case incidentlib.LayoutTimeline:
		for _, ev := range c.Timeline.Events {
			b.Events = append(b.Events, Event{At: ev.At, Text: ev.Text.In(lang)})
		}
		return b, len(b.Events) > 0
	case incidentlib.LayoutProse:
		t := sec.Text(c)
		if sec.Chips != "" {
			chips := caseTerms(chipSection(sec.Chips), c, v, lang)
			b.Chips = &chips
		}
		b.Prose = t.In(lang)
		return b, b.Chips != nil || t.EN != "" || t.KO != ""
	case incidentlib.LayoutCause:
		b.Words, b.TextWords, b.Prose = locale.T(lang, "cause"), b.Words, sec.Text(c).In(lang)
		b.Terms = causeTerms(c, v, lang)
		b.Recurrence = recurrence(c, lang, find)
		return b, true
	case incidentlib.LayoutItems:
		b.Items = sec.In(c, v, lang)
		b.None = locale.T(lang, "case.none_recorded")
		return b, true
	case incidentlib.LayoutSources:
		b.Sources = sources(c, v, lang)
		b.Docs = c.Docs
		return b, true
	}
	return b, false
}

// chipSection is the Terms section of vocab.
func chipSection(vocab string) *incidentlib.Section {
	for i := range incidentlib.Sections {
		if s := &incidentlib.Sections[i]; s.Kind == incidentlib.Terms && s.Vocab == vocab {
			return s
		}
	}
	return &incidentlib.Section{Kind: incidentlib.Terms, Vocab: vocab, Words: "vocab." + vocab}
}

// causeTerms are the rows of the cause's terms list, in table order; a
// vocabulary the case has no term of has none.
func causeTerms(c *incidentlib.Case, v *incidentlib.Vocab, lang string) []Terms {
	var ts []Terms
	for i := range incidentlib.Sections {
		if sec := &incidentlib.Sections[i]; sec.Layout == incidentlib.LayoutCauseTerm {
			if t := caseTerms(sec, c, v, lang); len(t.IDs) > 0 {
				t.Strong = sec.Vocab == incidentlib.VocabRootCause
				ts = append(ts, t)
			}
		}
	}
	return ts
}

func caseTerms(sec *incidentlib.Section, c *incidentlib.Case, v *incidentlib.Vocab, lang string) Terms {
	t := Terms{Vocab: sec.Vocab, Words: locale.T(lang, sec.Words), Joined: locale.T(lang, "unknown")}
	for _, id := range sec.Terms(c) {
		if id == "" {
			continue
		}
		t.IDs = append(t.IDs, id)
		t.Labels = append(t.Labels, v.Label(sec.Vocab, id, lang))
	}
	if len(t.Labels) > 0 {
		t.Joined = strings.Join(t.Labels, ", ")
	}
	return t
}

func recurrence(c *incidentlib.Case, lang string, find func(string) *incidentlib.Case) *CaseRef {
	if c.RecurrenceOf == nil || find == nil {
		return nil
	}
	if k := find(*c.RecurrenceOf); k != nil {
		r := caseRef(k, lang)
		return &r
	}
	return nil
}

func sources(c *incidentlib.Case, v *incidentlib.Vocab, lang string) []Source {
	out := make([]Source, 0, len(c.Sources))
	for _, s := range c.Sources {
		src := Source{Title: s.Title, URL: s.URL, Publisher: s.Publisher,
			Kind: v.Label(incidentlib.VocabSourceKind, s.Kind, lang)}
		if !incidentlib.IsUnknown(s.License) {
			src.License = s.License
		}
		if s.Archived != nil {
			src.Archived = *s.Archived
		}
		out = append(out, src)
	}
	return out
}

func caseRef(k *incidentlib.Case, lang string) CaseRef {
	return CaseRef{ID: k.ID, Title: k.Title.In(lang), Org: k.Org, Year: k.Year(), Found: true}
}

// RelatedOf are the similar cases a search found, with their reasons.
func RelatedOf(similar []search.Similar, lang string) []CaseRef {
	var out []CaseRef
	for _, s := range similar {
		r := caseRef(s.Case, lang)
		r.Reason, r.Curated = s.Reason.Label.In(lang), s.Reason.Curated
		out = append(out, r)
	}
	return out
}

// CuratedRelated are the related cases c lists itself, looked up with
// find; an id find does not know is kept, not Found.
func CuratedRelated(c *incidentlib.Case, lang string, find func(string) *incidentlib.Case) []CaseRef {
	var out []CaseRef
	for _, id := range c.Related {
		r := CaseRef{ID: id}
		if k := find(id); k != nil {
			r = caseRef(k, lang)
		}
		r.Curated = true
		out = append(out, r)
	}
	return out
}

// Duration shows a Go duration string in lang's units ("2h 30m", "2시간
// 30분"), as the write-up gives it when it is no Go duration, or "–" when
// the write-up gives none.
func Duration(p *string, lang string) string {
	if p == nil || *p == "" {
		return locale.T(lang, "unknown")
	}
	d, err := time.ParseDuration(*p)
	if err != nil {
		return *p
	}
	units := [4]string{"d", "h", "m", "s"}
	if lang == locale.KO {
		units = [4]string{"일", "시간", "분", "초"}
	}
	var parts []string
	for i, unit := range []time.Duration{24 * time.Hour, time.Hour, time.Minute, time.Second} {
		if n := d / unit; n > 0 || unit == time.Second && len(parts) == 0 {
			parts = append(parts, strconv.Itoa(int(n))+units[i])
			d -= n * unit
		}
	}
	return strings.Join(parts, " ")
}

// hasHangul reports whether s holds Korean.
func hasHangul(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Hangul, r) })
}
