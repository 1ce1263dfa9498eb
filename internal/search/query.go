package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib"
)

// Limits on what one search asks for.
const (
	DefaultLimit  = 10
	MaxLimit      = 100
	MaxQueryBytes = 2000 // longer queries are cut; pasted evidence rarely needs more
	MaxQueryTerms = 64
	MaxOffset     = 10000
)

// Sort orders.
const (
	SortRelevance = "relevance"
	SortNewest    = "date"
	SortOldest    = "-date"
)

// Query is one search: free text and filters.
type Query struct {
	Text string
	// Lang is the reader's language for snippets and labels: ko or en.
	Lang string
	// Filters maps a field of FilterFields, or "org", to terms: a result
	// carries at least one term of each field given (values of one field are
	// ORed, fields are ANDed).
	Filters map[string][]string
	// AllOf maps a field to terms every result must carry all of, for the
	// multi-valued fields where that makes sense (components_all).
	AllOf            map[string][]string
	YearFrom, YearTo int
	Reviewed         *bool
	Sort             string
	Offset, Limit    int
	// private lets private cases into the results. Only a View sets it
	// (the View of every case is the write token's), so a caller holding the
	// public View cannot ask for them.
	private bool
	// NoFacets skips facet counting when the caller does not show them.
	NoFacets bool
	// exhaustive scores every document that holds a query term, as the
	// pruned run must answer (a test sets it, export_test.go).
	exhaustive bool
}

// Hit is one result.
type Hit struct {
	Case  *incidentlib.Case
	Score float64
	// Snippet is HTML: escaped text with matches in <mark>. It holds no
	// quote, backslash, control character, U+2028 or U+2029, so JSON
	// holds it as it is (view.SearchResponse.AppendJSON relies on it).
	Snippet string
	// SnippetFrom names the field the snippet was cut from: summary,
	// symptoms, trigger or title.
	SnippetFrom string
	// Match is the share of the query's distinct terms the case holds, in
	// [0, 1]; it compares across queries, unlike Score. 0 without a query.
	Match float64
	// Confidence is how closely the case matches by the query's evidence,
	// in [0, 1] (docs/ARCHITECTURE.md gives the formula): the share of the
	// evidence of the query's units (its terms, weighted by the square of
	// their rarity, and the vocabulary terms it names by an alias) that
	// the case holds. 0 without a query.
	Confidence float64
}

// FacetCount is how many results carry one term.
type FacetCount struct {
	Term  string `json:"term"`
	Label string `json:"label"`
	Count int    `json:"count"`

	// head is the JSON of the count up to its number, kept in the facet
	// table of the index for each term and language (AppendJSON).
	head []byte
}

// AppendJSON appends f as encoding/json writes it with HTML escaping off.
// A count from a search writes the head its index keeps; any other is
// encoded by encoding/json.
func (f FacetCount) AppendJSON(b []byte) []byte {
	if f.head == nil {
		f.head = facetHead(f.Term, f.Label)
	}
	b = append(b, f.head...)
	b = strconv.AppendInt(b, int64(f.Count), 10)
	return append(b, '}')
}

// facetHead is the JSON of a count of term and label up to its number:
// {"term":…,"label":…,"count":
func facetHead(term, label string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(FacetCount{Term: term, Label: label})
	return bytes.TrimSuffix(buf.Bytes(), []byte("0}\n"))
}

// Result is a page of hits with the total and the facet counts over the
// whole result set.
//
// The results of a text query are the cases holding at least a quarter as
// much of the query's weight as the best one holds (each term weighs
// log(1+N/df), so a rare word weighs most), which includes every close
// match (half of the query's weight), and any case the query names by its
// id. Total and the facets count them exactly; Close counts the close
// ones. A case sharing only a common word with a query whose best match
// holds its rare words is not a result.
type Result struct {
	Hits   []Hit
	Total  int
	Offset int
	Limit  int
	Facets map[string][]FacetCount
	// Notes says how the query was adjusted: a limit clamped, a query cut.
	Notes []string
	// Terms is the number of distinct terms the query was read as; Close
	// counts the results holding at least half of their weight (none when
	// the results are only the nearest). Long is set for a query of
	// LongQueryTerms or more terms (a pasted log line).
	Terms, Close int
	Long         bool
	// Confidence is the best hit's (the first by relevance), and Weak is
	// set when it is below WeakConfidence: then Notes holds the
	// weak-match note (WeakNote), and every face shows it.
	Confidence float64
	Weak       bool
	// Cut is set when the query was longer than MaxQueryBytes and only its
	// start was read (Notes says so too).
	Cut bool
}

// LongQueryTerms is where a query counts as long: pasted text rather than a
// few words typed.
const LongQueryTerms = 6

// clean makes any input safe to analyse: valid UTF-8, no control
// characters, bounded length.
func clean(s string, notes *[]string) string {
	s = strings.ToValidUTF8(s, " ")
	// A paste keeps its lines (readPaste reads it line by line); every
	// other control character is a space.
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\r':
			return -1
		case unicode.IsControl(r):
			return ' '
		}
		return r
	}, s)
	if len(s) > MaxQueryBytes {
		cut := MaxQueryBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
		*notes = append(*notes, fmt.Sprintf("the query was cut to its first %d bytes", MaxQueryBytes))
	}
	return strings.TrimSpace(s)
}

// parsedQuery is the text split into quoted phrases and loose words.
type parsedQuery struct {
	phrases []string
	words   string
}

// parse splits text into "quoted phrases" and the rest. An unbalanced quote
// is ignored rather than treated as an error.
func parse(text string) parsedQuery {
	var pq parsedQuery
	var rest strings.Builder
	for {
		i := strings.IndexAny(text, "\"“”")
		if i < 0 {
			rest.WriteString(text)
			break
		}
		_, w := utf8.DecodeRuneInString(text[i:])
		j := strings.IndexAny(text[i+w:], "\"“”")
		if j < 0 {
			rest.WriteString(text[:i])
			rest.WriteByte(' ')
			rest.WriteString(text[i+w:])
			break
		}
		rest.WriteString(text[:i])
		rest.WriteByte(' ')
		if p := strings.TrimSpace(text[i+w : i+w+j]); p != "" {
			pq.phrases = append(pq.phrases, p)
		}
		_, w2 := utf8.DecodeRuneInString(text[i+w+j:])
		text = text[i+w+j+w2:]
	}
	pq.words = strings.TrimSpace(rest.String())
	return pq
}

// analyze returns the distinct analysed terms of s, in order.
func (ix *Index) analyze(s string) []string {
	seen := map[string]bool{}
	var out []string
	ix.fast.each(s, nil, func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}

// normalize checks q's sort, filters and years, fills in the defaults of
// language, sort and paging, and turns org names into slugs. It returns a
// note for each value it changed; a value it cannot use is an ErrInvalid.
func (ix *Index) normalize(q *Query) ([]string, error) {
	var notes []string
	if q.Lang != "en" {
		q.Lang = "ko"
	}
	switch q.Sort {
	case "", SortRelevance:
		q.Sort = SortRelevance
	case SortNewest, SortOldest:
	default:
		return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "sort %q is not supported; use relevance, date (newest first) or -date (oldest first)", q.Sort)
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultLimit
	case q.Limit < 0:
		notes = append(notes, fmt.Sprintf("limit %d is not positive; used %d", q.Limit, DefaultLimit))
		q.Limit = DefaultLimit
	case q.Limit > MaxLimit:
		notes = append(notes, fmt.Sprintf("limit %d is above the maximum; used %d", q.Limit, MaxLimit))
		q.Limit = MaxLimit
	}
	if q.Offset < 0 {
		notes = append(notes, fmt.Sprintf("offset %d is negative; used 0", q.Offset))
		q.Offset = 0
	}
	if q.Offset > MaxOffset {
		notes = append(notes, fmt.Sprintf("offset %d is above the maximum; used %d", q.Offset, MaxOffset))
		q.Offset = MaxOffset
	}
	for field, terms := range q.AllOf {
		if field != incidentlib.VocabComponents && field != incidentlib.VocabSymptoms && field != incidentlib.VocabContributing && field != incidentlib.VocabDomain {
			return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "an all-of filter on %q is not supported; it exists for domain, symptoms, components and contributing", field)
		}
		for _, t := range terms {
			if !ix.vocab.Has(field, t) {
				return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "unknown %s term %q; valid terms: %s", field, t, strings.Join(ix.vocab.IDs(field), ", "))
			}
		}
	}
	if orgs := q.Filters[OrgFilter]; len(orgs) > 0 {
		// An organisation by its slug or its name, in any case: "Datadog",
		// "datadog" and "DATADOG" are one filter.
		slugs, err := ix.orgSlugs(orgs, q.private)
		if err != nil {
			return nil, err
		}
		q.Filters[OrgFilter] = slugs
	}
	for field, terms := range q.Filters {
		if field == OrgFilter {
			continue
		}
		known := false
		for _, f := range FilterFields {
			known = known || f == field
		}
		if !known {
			return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "unknown filter %q; filters are %s, org, year_from, year_to and reviewed", field, strings.Join(FilterFields, ", "))
		}
		for _, t := range terms {
			if !ix.vocab.Has(field, t) {
				return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "unknown %s term %q; valid terms: %s", field, t, strings.Join(ix.vocab.IDs(field), ", "))
			}
		}
	}
	if q.YearFrom != 0 && q.YearTo != 0 && q.YearFrom > q.YearTo {
		return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "year_from %d is after year_to %d", q.YearFrom, q.YearTo)
	}
	return notes, nil
}

// caseIDLike reports whether a word of a query is a case id: IL- and
// four digits, or more without a leading zero (incidentlib.ValidID), so
// that IL-12345 is found as IL-0049 is.
func caseIDLike(s string) bool { return incidentlib.ValidID(s) }

// orgSlugs resolves organisations given by slug or name, case-insensitively.
// An unknown one is an error that names the nearest organisations. Only
// the organisations of cases the caller may see count, so the answer tells
// nothing of a private case.
func (ix *Index) orgSlugs(given []string, includePrivate bool) ([]string, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	visible := ix.public
	if includePrivate {
		visible = ix.live
	}
	// The index keeps every organisation's name by slug; an organisation
	// counts when a case the caller may see carries it. The slow path (the
	// list of suggestions) runs only for a name that matches nothing.
	visibleSlug := func(slug string) bool { return ix.set("org/"+slug).andCount(visible) > 0 }
	lookup := func(key string) (string, bool) {
		if visibleSlug(key) {
			return key, true
		}
		if slug, ok := ix.orgByName[key]; ok && visibleSlug(slug) {
			return slug, true
		}
		return "", false
	}
	var out []string
	for _, g := range given {
		key := strings.ToLower(strings.TrimSpace(g))
		if slug, ok := lookup(key); ok {
			out = append(out, slug)
			continue
		}
		if slug, ok := lookup(strings.ReplaceAll(key, " ", "-")); ok {
			out = append(out, slug)
			continue
		}
		var near []string
		for _, slug := range ix.orgByName {
			if !slices.Contains(near, slug) && visibleSlug(slug) && (strings.Contains(slug, key) || strings.Contains(key, slug) || (len(key) >= 3 && strings.HasPrefix(slug, key[:3]))) {
				near = append(near, slug)
			}
		}
		sort.Strings(near)
		if len(near) > 8 {
			near = near[:8]
		}
		hint := "the vocab tool and /api/stats list the organisations"
		if len(near) > 0 {
			hint = "did you mean " + strings.Join(near, ", ") + "?"
		}
		return nil, incidentlib.Errorf(incidentlib.ErrInvalid, "no organisation %q in the library; give a slug or a name (%s)", truncateRunes(g, 60), hint)
	}
	return out, nil
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
