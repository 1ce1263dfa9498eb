// Package mcpcase is a case in one language, as the MCP tools of both
// incidentlib and kubegap answer get_incident: every text in the reader's
// language, terms by vocabulary, and a summary view that an agent reads to
// judge whether to read on.
package mcpcase

import (
	"github.com/incidentlib/incidentlib"
)

// Views of a case.
const (
	ViewFull    = "full"    // every section (the default)
	ViewSummary = "summary" // title, summary, trigger, terms and sources only
)

// Views lists the views, for input schemas.
var Views = []string{ViewFull, ViewSummary}

// Incident is one case in one language.
type Incident struct {
	ID            string              `json:"id"`
	Org           string              `json:"org"`
	Date          string              `json:"date"`
	DateKind      string              `json:"date_kind"`
	Title         string              `json:"title"`
	Summary       string              `json:"summary"`
	Trigger       string              `json:"trigger"`
	Symptoms      string              `json:"symptoms,omitempty"`
	Detection     string              `json:"detection,omitempty"`
	Remediation   []string            `json:"remediation,omitempty"`
	ActionItems   []string            `json:"action_items,omitempty"`
	Lessons       string              `json:"lessons,omitempty"`
	Impact        Impact              `json:"impact"`
	Severity      string              `json:"severity"`
	RootCause     string              `json:"root_cause"`
	Terms         map[string][]string `json:"terms" jsonschema:"vocabulary terms by vocabulary: domain, symptoms, components, contributing"`
	DetectedAfter string              `json:"detected_after,omitempty"`
	ResolvedAfter string              `json:"resolved_after,omitempty"`
	Timeline      []TimelineEvent     `json:"timeline,omitempty" jsonschema:"the times the write-up gives, in order, as it gives them"`
	Sources       []string            `json:"sources"`
	Related       []string            `json:"related"`
	Reviewed      bool                `json:"reviewed" jsonschema:"whether a person has checked the case against its sources"`
	URL           string              `json:"url,omitempty" jsonschema:"the case's page, where a site serves the library"`
	// More are the sections with an MCP name that none of the fields
	// above has (see Field); MarshalJSON writes them after the fields.
	More []Field `json:"-"`
}

// Impact is what the incident affected, in the reader's language; a fact
// the write-up does not give is "unknown" (알 수 없음 in Korean).
type Impact struct {
	Scope  string `json:"scope" jsonschema:"what the incident affected, in the answer's language; unknown (알 수 없음 in Korean) where the write-up does not say"`
	Users  string `json:"users" jsonschema:"who was affected, in the answer's language; unknown (알 수 없음 in Korean) where the write-up does not say"`
	Region string `json:"region" jsonschema:"where, in the answer's language; unknown (알 수 없음 in Korean) where the write-up does not say"`
}

// TimelineEvent is one moment of an incident's timeline.
type TimelineEvent struct {
	At   string `json:"at"`
	Text string `json:"text"`
}

// ValidView reports whether v names a view ("" is the full one).
func ValidView(v string) bool { return v == "" || v == ViewFull || v == ViewSummary }

// Project is c in language l ("en" or "ko") and view v ("" means full). url
// is the case's address, or "" where no site serves it.
func Project(c *incidentlib.Case, l, v, url string) Incident {
	related := c.Related
	if related == nil {
		related = []string{}
	}
	inc := Incident{
		ID: c.ID, Org: c.Org, Date: c.Date, DateKind: c.DateKind,
		Impact:        Impact{Scope: c.Impact.Scope.In(l), Users: c.Impact.Users.In(l), Region: c.Impact.Region.In(l)},
		DetectedAfter: deref(c.Timeline.DetectedAfter), ResolvedAfter: deref(c.Timeline.ResolvedAfter),
		Related: related, Reviewed: c.Reviewed(), URL: url,
	}
	// The sections come from the table (incidentlib.Sections); the summary
	// view keeps its short ones, what an agent needs to judge whether to
	// read on.
	fillSections(&inc, c, nil, l, v == ViewSummary)
	return inc
}

func events(evs []incidentlib.Event, l string) []TimelineEvent {
	var out []TimelineEvent
	for _, e := range evs {
		out = append(out, TimelineEvent{At: e.At, Text: e.Text.In(l)})
	}
	return out
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
