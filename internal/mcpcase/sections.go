package mcpcase

import (
	"fmt"
	"slices"
	"strings"

	"github.com/incidentlib/incidentlib"
)

// A place is the field of Incident that sections of one MCP name fill: the
// kinds of section it takes, and how it takes one.
type place struct {
	kinds []incidentlib.SectionKind
	fill  func(inc *Incident, s *incidentlib.Section, c *incidentlib.Case, v *incidentlib.Vocab, l string)
}

// textKinds are the sections whose texts a string or a list holds.
var textKinds = []incidentlib.SectionKind{incidentlib.Prose, incidentlib.Items, incidentlib.Name}

// text is a string field: the section's texts, one a line.
func text(field func(*Incident) *string) place {
	return place{textKinds, func(inc *Incident, s *incidentlib.Section, c *incidentlib.Case, v *incidentlib.Vocab, l string) {
		*field(inc) = strings.Join(s.In(c, v, l), "\n")
	}}
}

// list is a list field: the section's texts, one an entry.
func list(field func(*Incident) *[]string) place {
	return place{textKinds, func(inc *Incident, s *incidentlib.Section, c *incidentlib.Case, v *incidentlib.Vocab, l string) {
		*field(inc) = append([]string{}, s.In(c, v, l)...)
	}}
}

// term is a string field holding the one term of a terms section.
func term(field func(*Incident) *string) place {
	return place{[]incidentlib.SectionKind{incidentlib.Terms}, func(inc *Incident, s *incidentlib.Section, c *incidentlib.Case, _ *incidentlib.Vocab, _ string) {
		if ids := s.Terms(c); len(ids) > 0 {
			*field(inc) = ids[0]
		}
	}}
}

// places are Incident's fields that sections fill, by JSON name: every
// MCP name in incidentlib.Sections is one of these or goes into More.
// TestPlacesCoverIncident checks that each writes the field it is named
// for and that with Project's own fields they are all of Incident's.
var places = map[string]place{
	"title":        text(func(inc *Incident) *string { return &inc.Title }),
	"summary":      text(func(inc *Incident) *string { return &inc.Summary }),
	"trigger":      text(func(inc *Incident) *string { return &inc.Trigger }),
	"symptoms":     text(func(inc *Incident) *string { return &inc.Symptoms }),
	"detection":    text(func(inc *Incident) *string { return &inc.Detection }),
	"lessons":      text(func(inc *Incident) *string { return &inc.Lessons }),
	"remediation":  list(func(inc *Incident) *[]string { return &inc.Remediation }),
	"action_items": list(func(inc *Incident) *[]string { return &inc.ActionItems }),
	"root_cause":   term(func(inc *Incident) *string { return &inc.RootCause }),
	"severity":     term(func(inc *Incident) *string { return &inc.Severity }),
	// Terms by vocabulary: each terms section is one entry.
	"terms": {[]incidentlib.SectionKind{incidentlib.Terms}, func(inc *Incident, s *incidentlib.Section, c *incidentlib.Case, _ *incidentlib.Vocab, _ string) {
		if inc.Terms == nil {
			inc.Terms = map[string][]string{}
		}
		inc.Terms[s.Key] = s.Terms(c)
	}},
	"timeline": {[]incidentlib.SectionKind{incidentlib.Events}, func(inc *Incident, _ *incidentlib.Section, c *incidentlib.Case, _ *incidentlib.Vocab, l string) {
		inc.Timeline = events(c.Timeline.Events, l)
	}},
	"sources": {[]incidentlib.SectionKind{incidentlib.Sources}, func(inc *Incident, _ *incidentlib.Section, c *incidentlib.Case, _ *incidentlib.Vocab, _ string) {
		var urls []string
		for _, x := range c.Sources {
			urls = append(urls, x.URL)
		}
		inc.Sources = urls
	}},
}

// checkSection says why section s cannot reach get_incident, or nil: its
// MCP name names a field that does not take its kind, or no field and it
// is neither prose nor items (which go into More). Schema refuses such a
// table; fillSections leaves such a section out.
func checkSection(s *incidentlib.Section) error {
	if s.MCP == "" {
		return nil
	}
	p, ok := places[s.MCP]
	if !ok {
		return canGoInMore(s)
	}
	if !slices.Contains(p.kinds, s.Kind) {
		return fmt.Errorf("section %s: its MCP name %s is a field of mcpcase.Incident that does not take its kind", s.Key, s.MCP)
	}
	return nil
}

// fillSections sets the sections of c in language l on inc, ranging over
// incidentlib.Sections: each section with an MCP name goes into the place
// of that name (places), or into More when Incident has no field for it.
// short keeps only the sections of the short view. A section that cannot
// go where its name sends it (checkSection) is left out.
func fillSections(inc *Incident, c *incidentlib.Case, v *incidentlib.Vocab, l string, short bool) {
	for i := range incidentlib.Sections {
		s := &incidentlib.Sections[i]
		if s.MCP == "" || short && !s.Short || checkSection(s) != nil {
			continue
		}
		if p, ok := places[s.MCP]; ok {
			p.fill(inc, s, c, v, l)
			continue
		}
		// A section without a field of its own: prose or items, by the
		// table alone (Schema gives its property).
		switch texts := s.In(c, v, l); {
		case len(texts) == 0 || s.Kind == incidentlib.Prose && strings.Join(texts, "") == "":
		case s.Kind == incidentlib.Prose:
			inc.More = append(inc.More, Field{s.MCP, strings.Join(texts, "\n")})
		default:
			inc.More = append(inc.More, Field{s.MCP, append([]string{}, texts...)})
		}
	}
}
