package search

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// OrgFilter is the filter field of organisations in Query.Filters, and the
// name of its parameter everywhere.
const OrgFilter = "org"

// ParamKind is how a parameter's value is read.
type ParamKind int

// The kinds of parameters.
const (
	KindText   ParamKind = iota // free text, taken as given
	KindEnum                    // one of Param.Enum
	KindInt                     // a whole number within Min and Max
	KindBool                    // true or false (1 or 0)
	KindTerms                   // vocabulary term ids of Param.Field, repeated or comma-separated; any of them
	KindAllOf                   // the same, all of them
	KindOrgs                    // organisations by slug or name; any of them
	KindFields                  // the answer's fields to keep, comma-separated; the face checks the names
	KindLang                    // a language: ko or en, in any case, a region ignored (en-US is en); see locale.Parse
)

// Face is a set of the places a parameter is taken.
type Face uint8

// The faces that read search parameters.
const (
	FaceAPI   Face = 1 << iota // GET /api/cases
	FacePages                  // the case list page
	FaceCLI                    // incidentlib search
	FaceMCP                    // MCP's tools and resources (their JSON input, read as a query string)
	allFaces  = FaceAPI | FacePages | FaceCLI | FaceMCP
)

// Route is a set of the reads a parameter belongs to. Every face offers
// the same reads (the API's routes, MCP's tools, the command line's
// commands), and a parameter means the same on each.
type Route uint8

// The reads that take parameters.
const (
	RouteSearch  Route = 1 << iota // a search or list: GET /api/cases, search_incidents, list_incidents, incidentlib search, the list page
	RouteCase                      // one case: GET /api/cases/{id}, get_incident, incident://, incidentlib show
	RouteSimilar                   // similar cases: GET /api/cases/{id}/similar, similar_incidents, incidentlib similar
	RouteTopic                     // one topic: GET /api/topics/{term}, get_topic, topic://, incidentlib topic
	RouteLists                     // the vocabulary and the counts: GET /api/topics, /api/vocab, /api/stats, the vocab tool, incidentlib stats
	RoutePut                       // a case written: PUT /api/cases/{id}
	allReads           = RouteSearch | RouteCase | RouteSimilar | RouteTopic | RouteLists
	// RouteNone takes no parameters (the OpenAPI document, DELETE, a review).
	RouteNone Route = 0
)

// DefaultLang is the language of every answer that has room for one
// language and was not asked for another, on every face. Answers with room
// for both ({"en", "ko"}) give both when lang is not given.
const DefaultLang = locale.KO

// LangPattern is the language rule (locale.Parse) as a JSON Schema pattern (ECMA-262),
// for the schemas that declare a lang parameter.
const LangPattern = locale.Pattern

// Param is one search parameter. Params is the one table of them: the
// API, the pages, the command line and MCP read their names, kinds,
// bounds and closed sets from it, and a test holds the OpenAPI document
// to it.
type Param struct {
	Name    string   // as the API, OpenAPI and MCP spell it
	Aliases []string // further names the pages (only) accept: the singular forms they write
	Flag    string   // the command line's flag, without dashes; "" for none
	Kind    ParamKind
	Field   string   // for KindTerms and KindAllOf: the vocabulary; KindOrgs: OrgFilter
	Enum    []string // for KindEnum
	// Min and Max bound a KindInt: a value outside them is refused with
	// the bounds (Max 0: no upper bound).
	Min, Max int
	Default  string
	Faces    Face
	// Routes are the reads that take the parameter; 0 is RouteSearch.
	Routes Route
	Doc    string
}

func (p *Param) routes() Route {
	if p.Routes == 0 {
		return RouteSearch
	}
	return p.Routes
}

// Takes reports whether the parameter is taken on face for route.
func (p *Param) Takes(face Face, route Route) bool {
	return p.Faces&face != 0 && p.routes()&route != 0
}

// Params is every search parameter, in the order the pages link them.
var Params = []Param{
	{Name: "q", Kind: KindText, Faces: allFaces, Doc: `Search text in Korean or English; "quoted phrases" must match as phrases in short queries.`},
	{Name: "lang", Flag: "lang", Kind: KindLang, Enum: []string{locale.KO, locale.EN}, Default: DefaultLang, Faces: FaceAPI | FaceCLI | FaceMCP, Routes: allReads, Doc: "Language of the answer: ko (default) or en, in any case (EN and en-US are en). A search or list answers its snippets, labels and notes in it (its items' titles stay in both languages); the other reads, whose texts come in both languages ({\"en\", \"ko\"}), keep only this one when it is given."},
	{Name: incidentlib.VocabRootCause, Flag: "root-cause", Kind: KindTerms, Field: incidentlib.VocabRootCause, Faces: allFaces, Doc: "Root cause term ids; any of them (a case has one root cause)."},
	{Name: incidentlib.VocabComponents, Aliases: []string{"component"}, Flag: "component", Kind: KindTerms, Field: incidentlib.VocabComponents, Faces: allFaces, Doc: "Component term ids; any of them."},
	{Name: "components_all", Flag: "components-all", Kind: KindAllOf, Field: incidentlib.VocabComponents, Faces: FaceAPI | FaceCLI | FaceMCP, Doc: "Component term ids a case must all carry (the all-of form of components)."},
	{Name: incidentlib.VocabSymptoms, Aliases: []string{"symptom"}, Flag: "symptom", Kind: KindTerms, Field: incidentlib.VocabSymptoms, Faces: allFaces, Doc: "Symptom term ids; any of them."},
	{Name: incidentlib.VocabContributing, Flag: "contributing", Kind: KindTerms, Field: incidentlib.VocabContributing, Faces: allFaces, Doc: "Contributing factor term ids; any of them."},
	{Name: incidentlib.VocabDomain, Flag: "domain", Kind: KindTerms, Field: incidentlib.VocabDomain, Faces: allFaces, Doc: "Domain term ids, repeated or comma-separated. Values of one filter are ORed (a case matches with any of them); different filters are ANDed."},
	{Name: incidentlib.VocabSeverity, Flag: "severity", Kind: KindTerms, Field: incidentlib.VocabSeverity, Faces: allFaces, Doc: "Severity term ids; any of them (critical,major)."},
	{Name: OrgFilter, Flag: "org", Kind: KindOrgs, Field: OrgFilter, Faces: allFaces, Doc: "Organisations, by slug or name, case-insensitive; any of them. An unknown one is refused with the nearest suggested."},
	{Name: "year_from", Flag: "year-from", Kind: KindInt, Min: 1900, Max: 2999, Faces: allFaces, Doc: "First year to include."},
	{Name: "year_to", Flag: "year-to", Kind: KindInt, Min: 1900, Max: 2999, Faces: allFaces, Doc: "Last year to include."},
	{Name: "reviewed", Kind: KindBool, Faces: FaceAPI | FacePages, Doc: "Only cases a person has (true) or has not (false) checked against their sources."},
	{Name: "facets", Kind: KindBool, Faces: FaceAPI, Doc: "true to count the results by vocabulary term (the answer's facets); without it the answer has no facets, which saves most of its size."},
	{Name: "sort", Flag: "sort", Kind: KindEnum, Enum: []string{SortRelevance, SortNewest, SortOldest}, Faces: allFaces, Doc: "relevance (default with a query), date (newest first, default without) or -date."},
	{Name: "offset", Flag: "offset", Kind: KindInt, Min: 0, Max: MaxOffset, Faces: FaceAPI | FaceCLI | FaceMCP, Routes: RouteSearch | RouteSimilar | RouteTopic, Doc: "Results to skip, for paging (0 to 10000)."},
	{Name: "limit", Flag: "limit", Kind: KindInt, Min: 1, Max: MaxLimit, Default: strconv.Itoa(DefaultLimit), Faces: FaceAPI | FaceCLI | FaceMCP, Routes: RouteSearch | RouteSimilar | RouteTopic, Doc: "Results to return, 1 to 100 (default 10); a value outside is refused."},
	{Name: "fields", Kind: KindFields, Faces: FaceAPI, Routes: RouteSearch | RouteCase, Doc: "Answer only these fields (of each result), comma-separated (id,title,url); unknown ones are refused with the accepted ones listed. Without it, every field."},
	{Name: "page", Kind: KindInt, Min: 1, Faces: FacePages, Doc: "Page of the list, from 1."},
	{Name: "private", Kind: KindBool, Faces: FaceAPI, Routes: RoutePut, Doc: "true to store the case as private: only the write token reads it (a case keeps its visibility; delete it to change it)."},
}

// ParamNamed returns the parameter called name (or one of its aliases),
// or nil.
func ParamNamed(name string) *Param {
	for i := range Params {
		if Params[i].Name == name || slices.Contains(Params[i].Aliases, name) {
			return &Params[i]
		}
	}
	return nil
}

// ParamNames lists the names the face takes for a search, in table order.
func ParamNames(face Face) []string { return RouteParamNames(face, RouteSearch) }

// RouteParamNames lists the names the face takes for route, in table order.
func RouteParamNames(face Face, route Route) []string {
	var out []string
	for i := range Params {
		if Params[i].Takes(face, route) {
			out = append(out, Params[i].Name)
		}
	}
	return out
}

// ProblemKind says what was wrong with a parameter.
type ProblemKind int

// The problems a parameter may have.
const (
	ProblemUnknown   ProblemKind = iota // no such parameter on this face
	ProblemUTF8                         // not valid UTF-8
	ProblemNotInt                       // not a whole number
	ProblemRange                        // a number outside its bounds
	ProblemNotBool                      // not true or false
	ProblemEnum                         // not one of the closed set
	ProblemYearOrder                    // year_from after year_to
)

// ParamProblem is one bad parameter. The value is left out of the query;
// the API refuses the request with the first problem, the pages show each.
type ParamProblem struct {
	Param string
	Value string
	Kind  ProblemKind
	// Numbers holds the numbers a problem names (year_from and year_to
	// for ProblemYearOrder).
	Numbers []int
	msg     string
}

func (p ParamProblem) Error() string { return p.msg }

// FilterValue is one filter value as given, in the order of the table:
// what the pages list as active filters.
type FilterValue struct {
	Param string // the table's name
	Field string // the filter field (a vocabulary or OrgFilter)
	Value string
	AllOf bool
}

// Parsed is a query string read through the table.
type Parsed struct {
	Query  Query
	Values []FilterValue
	Page   int // from the page parameter, 1 when absent
	// Facets is whether facets=true asked for the counts by term (the
	// API's; the list page always counts them).
	Facets bool
	// Private is whether private=true asked to store a case as private.
	Private bool
	// Fields are the names fields= gave, in order, unchecked (the face
	// knows its fields).
	Fields      []string
	FieldsGiven bool // fields= was given, perhaps empty
}

// Lang is the language asked for, or DefaultLang.
func (p Parsed) Lang() string {
	if p.Query.Lang == "" {
		return DefaultLang
	}
	return p.Query.Lang
}

// Limit is the limit asked for, or DefaultLimit.
func (p Parsed) Limit() int {
	if p.Query.Limit == 0 {
		return DefaultLimit
	}
	return p.Query.Limit
}

// ParseParams reads the parameters of a search through the table for one
// face: Parse for RouteSearch.
func ParseParams(v url.Values, face Face, pageSize int) (Parsed, []ParamProblem) {
	return Parse(v, face, RouteSearch, pageSize)
}

// Parse reads v through the table for one face and route: the one parser
// of parameters, for every route of the API, every MCP tool, the list
// pages and the command line. Each bad parameter is a problem and is left
// out of the query; terms and organisations are not checked here (the
// search does that, with the vocabulary's words). A number outside its
// bounds is refused with them, never clamped. pageSize turns page into
// Query.Offset; it matters on FacePages only.
func Parse(v url.Values, face Face, route Route, pageSize int) (Parsed, []ParamProblem) {
	ps := &parser{face: face, pageSize: pageSize, out: Parsed{Page: 1, Query: Query{Filters: map[string][]string{}}}}
	ps.unknown(v, route)
	for i := range Params {
		p := &Params[i]
		if !p.Takes(face, route) {
			continue
		}
		raw := ps.values(v, p)
		if slices.IndexFunc(raw, func(s string) bool { return !utf8.ValidString(s) }) >= 0 {
			ps.bad(p.Name, "", ProblemUTF8, "parameter %q is not valid UTF-8", p.Name)
			continue
		}
		if len(raw) == 0 {
			continue
		}
		switch p.Kind {
		case KindText:
			if p.Name == "q" {
				ps.out.Query.Text = strings.TrimSpace(raw[0])
			}
		case KindEnum, KindLang:
			ps.word(p, raw[0])
		case KindFields:
			ps.fields(raw)
		case KindInt:
			ps.number(p, raw[0])
		case KindBool:
			ps.boolean(p, raw[0])
		case KindTerms, KindAllOf, KindOrgs:
			ps.terms(p, raw)
		}
	}
	ps.yearOrder()
	if face == FacePages && pageSize > 0 {
		ps.out.Query.Offset, ps.out.Query.Limit = (ps.out.Page-1)*pageSize, pageSize
	}
	return ps.out, ps.probs
}

// parser holds one Parse: what it has read and the problems it found.
type parser struct {
	face     Face
	pageSize int
	out      Parsed
	probs    []ParamProblem
}

func (ps *parser) bad(p, val string, k ProblemKind, format string, args ...any) {
	ps.probs = append(ps.probs, ParamProblem{Param: p, Value: val, Kind: k, msg: fmt.Sprintf(format, args...)})
}

// unknown names each parameter the face does not take for route, with the
// ones it does.
func (ps *parser) unknown(v url.Values, route Route) {
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if p := ParamNamed(name); p == nil || !p.Takes(ps.face, route) || (p.Name != name && ps.face != FacePages) {
			takes := "no parameters"
			if names := RouteParamNames(ps.face, route); len(names) > 0 {
				takes = strings.Join(names, ", ")
			}
			ps.bad(name, "", ProblemUnknown, "unknown parameter %q; this route takes %s", cutParam(name, 40), takes)
		}
	}
}

// values are p's values as given: on the pages, the names they write
// (the aliases) come first, as the pages link them.
func (ps *parser) values(v url.Values, p *Param) []string {
	var raw []string
	if ps.face == FacePages {
		for _, a := range p.Aliases {
			raw = append(raw, v[a]...)
		}
	}
	return append(raw, v[p.Name]...)
}

// word reads one of a closed set: an enum as written, a language by the
// one language rule.
func (ps *parser) word(p *Param, one string) {
	if one == "" {
		return
	}
	q := &ps.out.Query
	if p.Kind == KindLang {
		l, err := locale.Parse(one)
		if err != nil {
			ps.bad(p.Name, one, ProblemEnum, "%s %q is not supported; use %s", p.Name, cutParam(one, 40), strings.Join(p.Enum, " or "))
			return
		}
		q.Lang = l
		return
	}
	if !slices.Contains(p.Enum, one) {
		ps.bad(p.Name, one, ProblemEnum, "%s %q is not supported; use %s", p.Name, cutParam(one, 40), strings.Join(p.Enum, ", "))
		return
	}
	if p.Name == "sort" {
		q.Sort = one
	}
}

// fields reads fields=a,b (repeatable), in order, without repeats.
func (ps *parser) fields(raw []string) {
	ps.out.FieldsGiven = true
	for _, r := range raw {
		for _, f := range strings.Split(r, ",") {
			if f = strings.TrimSpace(f); f != "" && !slices.Contains(ps.out.Fields, f) {
				ps.out.Fields = append(ps.out.Fields, f)
			}
		}
	}
}

// number reads a whole number within its bounds; one outside them is
// refused with them.
func (ps *parser) number(p *Param, one string) {
	if one == "" {
		return
	}
	n, err := strconv.Atoi(one)
	if err != nil {
		ps.bad(p.Name, one, ProblemNotInt, "%s %q is not a whole number", p.Name, cutParam(one, 20))
		return
	}
	max := p.Max
	if p.Name == "page" && ps.pageSize > 0 {
		max = MaxOffset/ps.pageSize + 1 // no multiplication: it could overflow
	}
	if n < p.Min || (max > 0 && n > max) {
		ps.bad(p.Name, one, ProblemRange, "%s %d is outside %d to %d", p.Name, n, p.Min, max)
		return
	}
	q := &ps.out.Query
	switch p.Name {
	case "year_from":
		q.YearFrom = n
	case "year_to":
		q.YearTo = n
	case "offset":
		q.Offset = n
	case "limit":
		q.Limit = n
	case "page":
		ps.out.Page = n
	}
}

// boolean reads true or false (1 or 0).
func (ps *parser) boolean(p *Param, one string) {
	var val bool
	switch one {
	case "":
		return
	case "true", "1":
		val = true
	case "false", "0":
	default:
		ps.bad(p.Name, one, ProblemNotBool, "%s must be true or false", p.Name)
		return
	}
	switch p.Name {
	case "reviewed":
		ps.out.Query.Reviewed = &val
	case "facets":
		ps.out.Facets = val
	case "private":
		ps.out.Private = val
	}
}

// terms reads a filter's values, repeated or comma-separated, without
// repeats: any of them, or all of them for KindAllOf.
func (ps *parser) terms(p *Param, raw []string) {
	q := &ps.out.Query
	seen := map[string]bool{}
	for _, r := range raw {
		for _, t := range strings.Split(r, ",") {
			if t = strings.TrimSpace(t); t == "" || seen[t] {
				continue
			}
			seen[t] = true
			ps.out.Values = append(ps.out.Values, FilterValue{Param: p.Name, Field: p.Field, Value: t, AllOf: p.Kind == KindAllOf})
			if p.Kind == KindAllOf {
				if q.AllOf == nil {
					q.AllOf = map[string][]string{}
				}
				q.AllOf[p.Field] = append(q.AllOf[p.Field], t)
			} else {
				q.Filters[p.Field] = append(q.Filters[p.Field], t)
			}
		}
	}
}

// yearOrder refuses a year_from after year_to, naming both.
func (ps *parser) yearOrder() {
	q := &ps.out.Query
	if q.YearFrom != 0 && q.YearTo != 0 && q.YearFrom > q.YearTo {
		ps.bad("year_from", strconv.Itoa(q.YearFrom), ProblemYearOrder, "year_from %d is after year_to %d", q.YearFrom, q.YearTo)
		ps.probs[len(ps.probs)-1].Numbers = []int{q.YearFrom, q.YearTo}
		q.YearFrom, q.YearTo = 0, 0
	}
}

func cutParam(s string, n int) string { return truncateRunes(strings.ToValidUTF8(s, "?"), n) }
