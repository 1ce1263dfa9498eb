// Package incidentlib holds the domain types of the incident library: the
// case, the controlled vocabulary, and the errors every face of the product
// shares. It depends on the standard library only, and it embeds the corpus
// (cases/*.yaml and vocab.yaml) and kubegap's check catalogue
// (docs/checks.md) so that binaries need no files at run time.
package incidentlib

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io/fs"
	"strings"
	"sync"
)

//go:embed vocab.yaml cases
var corpusFS embed.FS

// CorpusFS returns the embedded corpus: vocab.yaml and the cases folder.
func CorpusFS() fs.FS { return corpusFS }

//go:embed docs/checks.md
var checkCatalogue []byte

// CheckCatalogue returns docs/checks.md, kubegap's check catalogue, which
// kubegap writes from its registry. Its closing comment holds the index of
// the checks that cite each case, which incidentlib serve reads
// (internal/checkindex) without linking kubegap.
func CheckCatalogue() []byte { return checkCatalogue }

// Text is a piece of prose in both of the library's languages.
type Text struct {
	EN string `json:"en" yaml:"en"`
	KO string `json:"ko" yaml:"ko"`
}

// In returns the text in lang ("ko" or "en"), falling back to the other
// language when that one is empty.
func (t Text) In(lang string) string {
	if lang == "en" {
		if t.EN != "" {
			return t.EN
		}
		return t.KO
	}
	if t.KO != "" {
		return t.KO
	}
	return t.EN
}

// Item is one entry of a list of remediation steps or action items.
type Item struct {
	Text Text `json:"text" yaml:"text" il:"required"`
}

// Impact says what the incident affected, as the write-up states it, in
// both languages. A fact the write-up does not give is "unknown" in English
// and UnknownKO in Korean.
type Impact struct {
	Scope  Text `json:"scope" yaml:"scope" il:"required"`
	Users  Text `json:"users" yaml:"users" il:"required"`
	Region Text `json:"region" yaml:"region" il:"required"`
}

// UnknownKO is the Korean of "unknown", the value of an impact fact the
// write-up does not give.
const UnknownKO = "알 수 없음"

// IsUnknown reports whether s says that the write-up does not give a fact:
// empty, "unknown" or UnknownKO.
func IsUnknown(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || strings.EqualFold(s, "unknown") || s == UnknownKO
}

// UnmarshalJSON reads an impact whose facts are texts ({"en", "ko"}), or
// plain strings as cases stored before impact had both languages: a plain
// string is the English text.
func (im *Impact) UnmarshalJSON(b []byte) error {
	// Every fact a text, as every case is stored now: one strict decode.
	// (A store's start decodes every case; the general path below, four
	// decoders, was a tenth of it.)
	type texts Impact // without this method
	fast := json.NewDecoder(bytes.NewReader(b))
	fast.DisallowUnknownFields()
	var t texts
	if err := fast.Decode(&t); err == nil {
		*im = Impact(t)
		return nil
	}
	var raw struct {
		Scope  json.RawMessage `json:"scope"`
		Users  json.RawMessage `json:"users"`
		Region json.RawMessage `json:"region"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	var out Impact
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		t    *Text
	}{{"scope", raw.Scope, &out.Scope}, {"users", raw.Users, &out.Users}, {"region", raw.Region, &out.Region}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			continue
		}
		if f.raw[0] == '"' {
			if err := json.Unmarshal(f.raw, &f.t.EN); err != nil {
				return err
			}
			continue
		}
		d := json.NewDecoder(bytes.NewReader(f.raw))
		d.DisallowUnknownFields()
		if err := d.Decode(f.t); err != nil {
			return fmt.Errorf("impact.%s: %w (expected {\"en\": \"...\", \"ko\": \"...\"})", f.name, err)
		}
	}
	*im = out
	return nil
}

// Timeline holds the durations the write-up gives, as Go duration strings
// ("4m", "2h30m"), or nil where it gives none, and the times it gives.
type Timeline struct {
	DetectedAfter *string `json:"detected_after" yaml:"detected_after"`
	ResolvedAfter *string `json:"resolved_after" yaml:"resolved_after"`
	// Zone is the time zone of the times that carry none, once for the
	// timeline, as the write-up states it, or "unknown" where it states none.
	Zone string `json:"zone,omitempty" yaml:"zone,omitempty"`
	// Events are the moments the write-up dates, in order.
	Events []Event `json:"events,omitempty" yaml:"events,omitempty"`
}

// Event is one moment of a timeline. At is the time as the write-up gives it,
// with its timezone when the write-up names one ("22:13 EET", "2020-02-28 22:13 UTC").
type Event struct {
	At   string `json:"at" yaml:"at" il:"required"`
	Text Text   `json:"text" yaml:"text" il:"required"`
}

// Source is a public write-up a case is based on.
type Source struct {
	URL string `json:"url" yaml:"url" il:"required"`
	// Title is the write-up's own title; Publisher who published it, where known.
	Title     string  `json:"title" yaml:"title" il:"required"`
	Publisher string  `json:"publisher,omitempty" yaml:"publisher,omitempty"`
	Kind      string  `json:"kind" yaml:"kind" il:"required"`
	License   string  `json:"license" yaml:"license" il:"required"`
	Archived  *string `json:"archived" yaml:"archived"`
}

// Review records who wrote a case and who reviewed it. A case is unreviewed
// while ReviewedAt is nil.
type Review struct {
	WrittenBy  string  `json:"written_by" yaml:"written_by" il:"required"`
	ReviewedAt *string `json:"reviewed_at" yaml:"reviewed_at"`
	ReviewedBy *string `json:"reviewed_by" yaml:"reviewed_by"`
}

// Case is one incident, structured. Its JSON form is the shape the API serves.
type Case struct {
	ID           string   `json:"id" yaml:"id" il:"required"`
	Org          string   `json:"org" yaml:"org" il:"required"`
	OrgSlug      string   `json:"org_slug" yaml:"org_slug" il:"required"`
	Date         string   `json:"date" yaml:"date" il:"required"`
	DateKind     string   `json:"date_kind" yaml:"date_kind" il:"required"`
	Domain       []string `json:"domain" yaml:"domain" il:"required"`
	RootCause    string   `json:"root_cause" yaml:"root_cause" il:"required"`
	Symptoms     []string `json:"symptoms" yaml:"symptoms" il:"required"`
	Components   []string `json:"components" yaml:"components" il:"required"`
	Contributing []string `json:"contributing" yaml:"contributing"`
	Severity     string   `json:"severity" yaml:"severity" il:"required"`
	Title        Text     `json:"title" yaml:"title" il:"required"`
	Summary      Text     `json:"summary" yaml:"summary" il:"required"`
	Trigger      Text     `json:"trigger" yaml:"trigger" il:"required"`
	SymptomsText Text     `json:"symptoms_text" yaml:"symptoms_text" il:"required"`
	Detection    Text     `json:"detection" yaml:"detection" il:"required"`
	Lessons      Text     `json:"lessons" yaml:"lessons" il:"required"`
	Impact       Impact   `json:"impact" yaml:"impact" il:"required"`
	Timeline     Timeline `json:"timeline" yaml:"timeline"`
	Remediation  []Item   `json:"remediation" yaml:"remediation"`
	ActionItems  []Item   `json:"action_items" yaml:"action_items"`
	Sources      []Source `json:"sources" yaml:"sources" il:"required"`
	Docs         []string `json:"docs" yaml:"docs"`
	Related      []string `json:"related" yaml:"related"`
	RecurrenceOf *string  `json:"recurrence_of" yaml:"recurrence_of"`
	Review       Review   `json:"review" yaml:"review" il:"required"`
	UpdatedAt    string   `json:"updated_at" yaml:"updated_at" il:"required"`
	// URL is the case's canonical web address. It is derived from the
	// configured base URL and never stored in a case file.
	URL string `json:"url" yaml:"-"`
	// Private cases are visible only to the holder of the write token.
	Private bool `json:"-" yaml:"-"`
	// Digest is a checksum of the case as its store holds it (Digest of
	// the stored bytes), set by a store that can give one, else 0. The
	// search index's snapshot checks with it that a case is the one it
	// indexed.
	Digest uint32 `json:"-" yaml:"-"`
}

// Digest is the checksum of a case's stored bytes (CRC-32C) that stores
// put in Case.Digest.
func Digest(data []byte) uint32 { return crc32.Checksum(data, castagnoli()) }

// castagnoli is CRC-32C's table, made on first use rather than at the start
// of every command (kubegap never digests a case).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Reviewed reports whether a person has reviewed the case.
func (c *Case) Reviewed() bool { return c.Review.ReviewedAt != nil && *c.Review.ReviewedAt != "" }

// Year returns the year of the case's date, or 0 when the date is malformed.
func (c *Case) Year() int {
	if len(c.Date) < 4 {
		return 0
	}
	y := 0
	for _, r := range c.Date[:4] {
		if r < '0' || r > '9' {
			return 0
		}
		y = y*10 + int(r-'0')
	}
	return y
}

// Normalize replaces nil slices with empty ones so that the JSON form always
// carries lists, never null.
func (c *Case) Normalize() {
	for _, p := range []*[]string{&c.Domain, &c.Symptoms, &c.Components, &c.Contributing, &c.Docs, &c.Related} {
		if *p == nil {
			*p = []string{}
		}
	}
	if c.Remediation == nil {
		c.Remediation = []Item{}
	}
	if c.ActionItems == nil {
		c.ActionItems = []Item{}
	}
	if c.Sources == nil {
		c.Sources = []Source{}
	}
}

// Term is one controlled vocabulary term. Every term is also a topic.
type Term struct {
	ID          string `json:"id" yaml:"id" il:"required"`
	Label       Text   `json:"label" yaml:"label" il:"required"`
	Description Text   `json:"description" yaml:"description" il:"required"`
	// Reserved marks a term that no case uses yet but that is kept on purpose.
	Reserved bool `json:"reserved,omitempty" yaml:"reserved"`
	// Aliases are the words people paste for the term: Kubernetes states,
	// error strings, abbreviations (OOMKilled, CrashLoopBackOff, HPA). A
	// query holding one also finds the term's cases.
	Aliases []string `json:"aliases,omitempty" yaml:"aliases,omitempty"`
}

// Vocabulary names, in the order pages and facets show them.
const (
	VocabDomain       = "domain"
	VocabSymptoms     = "symptoms"
	VocabRootCause    = "root_cause"
	VocabComponents   = "components"
	VocabContributing = "contributing"
	VocabSeverity     = "severity"
	VocabSourceKind   = "source_kind"
)

// VocabNames lists every vocabulary in display order.
var VocabNames = []string{VocabDomain, VocabSymptoms, VocabRootCause, VocabComponents, VocabContributing, VocabSeverity, VocabSourceKind}

// Vocab is the set of controlled vocabularies, keyed by vocabulary name.
type Vocab struct {
	Lists map[string][]Term
	index map[string]map[string]*Term
}

// NewVocab builds a Vocab from its lists.
func NewVocab(lists map[string][]Term) *Vocab {
	v := &Vocab{Lists: lists, index: map[string]map[string]*Term{}}
	for name, terms := range lists {
		m := map[string]*Term{}
		for i := range terms {
			m[terms[i].ID] = &terms[i]
		}
		v.index[name] = m
	}
	return v
}

// Term returns the term id of vocabulary name, or nil when there is none.
func (v *Vocab) Term(name, id string) *Term {
	if v == nil {
		return nil
	}
	return v.index[name][id]
}

// Has reports whether vocabulary name holds the term id.
func (v *Vocab) Has(name, id string) bool { return v.Term(name, id) != nil }

// IDs returns the term ids of vocabulary name in file order.
func (v *Vocab) IDs(name string) []string {
	var ids []string
	for _, t := range v.Lists[name] {
		ids = append(ids, t.ID)
	}
	return ids
}

// Label returns the label of a term in lang, or the id itself when the term
// is unknown.
func (v *Vocab) Label(name, id, lang string) string {
	if t := v.Term(name, id); t != nil {
		return t.Label.In(lang)
	}
	return id
}

// CaseTerms returns the terms a case uses in vocabulary name.
func CaseTerms(c *Case, name string) []string {
	switch name {
	case VocabDomain:
		return c.Domain
	case VocabSymptoms:
		return c.Symptoms
	case VocabRootCause:
		return []string{c.RootCause}
	case VocabComponents:
		return c.Components
	case VocabContributing:
		return c.Contributing
	case VocabSeverity:
		return []string{c.Severity}
	case VocabSourceKind:
		var ks []string
		for _, s := range c.Sources {
			ks = append(ks, s.Kind)
		}
		return ks
	}
	return nil
}
