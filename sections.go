package incidentlib

// The sections of a case, defined once. The search index, phrase matching,
// snippets, `incidentlib show`, the case page, MCP's get_incident, CSV
// export and the FTS5 relevance baseline all range over Sections, so a new
// text section is one row here plus its Case field (docs/CASE-FORMAT.md,
// "Adding a field", names the other places).

// SearchField is one text field of the search index. Weight multiplies the
// field's BM25 score: a word in the title counts four times a word in the
// rest of the case.
type SearchField struct {
	Name   string
	Weight float32
}

// SearchFields are the text fields of the search index, in index order. A
// Section names the one its text goes into. The names are also what a
// search hit's snippet_from says.
var SearchFields = []SearchField{
	{"title", 4}, {"trigger", 3}, {"symptoms", 3}, {"terms", 2.5}, {"summary", 2}, {"org", 2}, {"rest", 1},
}

// SectionKind says what a section holds, and so how its consumers read it.
type SectionKind int

const (
	// Prose is one Text (title, summary, trigger …).
	Prose SectionKind = iota
	// Items is a list of Items, each one Text (remediation, action items).
	Items
	// Terms are ids of the vocabulary Section.Vocab; their labels are the
	// section's texts.
	Terms
	// Name is a single string in the write-up's own words (the organisation).
	Name
	// Events are the timeline's dated moments.
	Events
	// Sources are the write-ups the case is based on; their titles are the
	// section's texts.
	Sources
)

// Layouts: where the case page and `show` put a section. The uniform ones
// (LayoutProse, LayoutItems) are rendered by ranging over the table; the
// others are placed by the case layout (view.CaseLayout), which the page
// and `show` both print, at the place named.
const (
	LayoutHead      = "head"        // the page head: organisation, title, domain chips, summary
	LayoutFacts     = "facts"       // the facts list under the summary
	LayoutCauseTerm = "cause-terms" // the terms list of the cause section
	LayoutChips     = "chips"       // the chips above the section whose Chips names this vocabulary
	LayoutTimeline  = "timeline"    // its own section, in table order
	LayoutProse     = "prose"       // heading and prose, in table order
	LayoutCause     = "cause"       // the cause section: cause terms, then this prose under its own heading
	LayoutItems     = "items"       // heading and a list, in table order ("none recorded" when empty)
	LayoutSources   = "sources"     // its own section, in table order
)

// Section is one section of a case.
type Section struct {
	// Key is the name of the section: the JSON name of its Case field.
	Key string
	// Words is the key of its heading in the catalogue of words.
	Words string
	Kind  SectionKind
	// Vocab is the vocabulary of a Terms section.
	Vocab string
	// Search is the search field (SearchFields) the section's text is
	// indexed in and phrases are matched on; "" keeps it out of search.
	Search string
	// Snippet is the order in which snippets try the section (1 first);
	// 0 never cuts a snippet from it. Only sections with a Search field
	// can give one.
	Snippet int
	// Layout says where the case page and `show` put it (the Layout
	// constants); Chips names the vocabulary whose chips the page shows
	// above a prose section.
	Layout string
	Chips  string
	// Anchor is the id of the section's heading on the case page
	// ("s-"+Anchor), for sections that have their own heading.
	Anchor string
	// CSV exports the section as columns of `incidentlib export --format
	// csv`, after the case's identity columns (id, org, org_slug, date,
	// date_kind): a Prose section as KEY_en and KEY_ko, a Terms section as
	// its ids joined by ";".
	CSV bool
	// MCP is the JSON name of the section in MCP's one-language case
	// (get_incident); "" leaves it out. Short keeps it in the short view
	// (view=summary).
	MCP   string
	Short bool

	text func(c *Case) []Text
}

// Sections are the sections of a case. Sections with their own place on
// the case page (timeline, symptoms, cause, detection, remediation, action
// items, lessons, sources) come in the page's order; the CSV columns come
// in table order.
var Sections = []Section{
	{Key: "org", Words: "org", Kind: Name, Search: "org", Layout: LayoutHead,
		text: func(c *Case) []Text { return []Text{{EN: c.Org}} }},
	{Key: "title", Words: "title", Kind: Prose, Search: "title", Snippet: 4, Layout: LayoutHead, CSV: true, MCP: "title", Short: true,
		text: func(c *Case) []Text { return []Text{c.Title} }},
	{Key: "summary", Words: "summary", Kind: Prose, Search: "summary", Snippet: 1, Layout: LayoutHead, MCP: "summary", Short: true,
		text: func(c *Case) []Text { return []Text{c.Summary} }},
	{Key: "domain", Words: "domain", Kind: Terms, Vocab: VocabDomain, Search: "terms", Layout: LayoutHead, CSV: true, MCP: "terms", Short: true},
	{Key: "root_cause", Words: "root_cause", Kind: Terms, Vocab: VocabRootCause, Search: "terms", Layout: LayoutCauseTerm, CSV: true, MCP: "root_cause", Short: true},
	{Key: "symptoms", Words: "symptoms", Kind: Terms, Vocab: VocabSymptoms, Search: "terms", Layout: LayoutChips, CSV: true, MCP: "terms", Short: true},
	{Key: "components", Words: "components", Kind: Terms, Vocab: VocabComponents, Search: "terms", Layout: LayoutCauseTerm, CSV: true, MCP: "terms", Short: true},
	{Key: "contributing", Words: "contributing", Kind: Terms, Vocab: VocabContributing, Search: "terms", Layout: LayoutCauseTerm, CSV: true, MCP: "terms", Short: true},
	{Key: "severity", Words: "severity", Kind: Terms, Vocab: VocabSeverity, Layout: LayoutFacts, CSV: true, MCP: "severity", Short: true},
	{Key: "timeline", Words: "timeline", Kind: Events, Layout: LayoutTimeline, Anchor: "timeline", MCP: "timeline",
		text: func(c *Case) []Text {
			var ts []Text
			for _, e := range c.Timeline.Events {
				ts = append(ts, e.Text)
			}
			return ts
		}},
	{Key: "symptoms_text", Words: "symptoms", Kind: Prose, Search: "symptoms", Snippet: 2, Layout: LayoutProse, Chips: VocabSymptoms, Anchor: "symptoms", MCP: "symptoms",
		text: func(c *Case) []Text { return []Text{c.SymptomsText} }},
	{Key: "trigger", Words: "trigger", Kind: Prose, Search: "trigger", Snippet: 3, Layout: LayoutCause, Anchor: "cause", MCP: "trigger", Short: true,
		text: func(c *Case) []Text { return []Text{c.Trigger} }},
	{Key: "detection", Words: "detection", Kind: Prose, Search: "rest", Layout: LayoutProse, Anchor: "detection", MCP: "detection",
		text: func(c *Case) []Text { return []Text{c.Detection} }},
	{Key: "remediation", Words: "remediation", Kind: Items, Search: "rest", Layout: LayoutItems, Anchor: "remediation", MCP: "remediation",
		text: func(c *Case) []Text { return itemTexts(c.Remediation) }},
	{Key: "action_items", Words: "action_items", Kind: Items, Search: "rest", Layout: LayoutItems, Anchor: "actions", MCP: "action_items",
		text: func(c *Case) []Text { return itemTexts(c.ActionItems) }},
	{Key: "lessons", Words: "lessons", Kind: Prose, Search: "rest", Layout: LayoutProse, Anchor: "lessons", MCP: "lessons",
		text: func(c *Case) []Text { return []Text{c.Lessons} }},
	{Key: "sources", Words: "sources", Kind: Sources, Layout: LayoutSources, Anchor: "sources", MCP: "sources", Short: true,
		text: func(c *Case) []Text {
			var ts []Text
			for _, s := range c.Sources {
				ts = append(ts, Text{EN: s.Title})
			}
			return ts
		}},
}

func itemTexts(items []Item) []Text {
	ts := make([]Text, len(items))
	for i, it := range items {
		ts[i] = it.Text
	}
	return ts
}

// SectionByKey returns the section key, or nil.
func SectionByKey(key string) *Section {
	for i := range Sections {
		if Sections[i].Key == key {
			return &Sections[i]
		}
	}
	return nil
}

// Terms returns the term ids of a Terms section; nil for other kinds.
func (s *Section) Terms(c *Case) []string {
	if s.Kind != Terms {
		return nil
	}
	return CaseTerms(c, s.Vocab)
}

// Texts returns the section's texts in both languages: one for a Prose
// section, one an item, event or source title, and for a Terms section the
// labels of its terms (v gives them; an unknown term has none). A Name or a
// source title is in the write-up's words and held as EN; Text.In falls back
// to it in Korean.
func (s *Section) Texts(c *Case, v *Vocab) []Text {
	if s.Kind == Terms {
		var ts []Text
		for _, id := range CaseTerms(c, s.Vocab) {
			if t := v.Term(s.Vocab, id); t != nil {
				ts = append(ts, t.Label)
			}
		}
		return ts
	}
	return s.text(c)
}

// In returns the section's texts in lang (see Texts).
func (s *Section) In(c *Case, v *Vocab, lang string) []string {
	ts := s.Texts(c, v)
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.In(lang)
	}
	return out
}

// Text returns the one text of a Prose section.
func (s *Section) Text(c *Case) Text {
	if s.Kind != Prose {
		return Text{}
	}
	return s.text(c)[0]
}
