package web

import (
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/view"
)

// pageRoute is one page of the site, declared once: the route it answers
// in both languages, its handler, the template it renders, the item of
// the navigation bar that is current on it, the words of its own item when
// it is one, and whether the sitemap lists it. Install, the templates
// parsed at start, the navigation bar and the sitemap's fixed pages all
// read sitePages; adding a page is its handler, its line here, its template and
// its words.
type pageRoute struct {
	// route is the method and path without the language prefix ("GET
	// /stats"); "" for a template only handlers render (error pages).
	route string
	// template is the page template's name (templates/NAME.tmpl); "" for a
	// route that renders none (a feed, a download).
	template string
	handler  func(*Site) handlerFunc
	// nav is the navigation item current on the page ("" for none);
	// navWords, when set, makes the page itself an item, with those words.
	nav, navWords string
	// sitemap lists the page among the sitemap's fixed pages.
	sitemap bool
	// desk pages answer only when the desk is on.
	desk bool
}

// sitePages is every page of the site, in the order the navigation bar gives
// its items.
var sitePages = []pageRoute{
	{route: "GET /{$}", template: "home", handler: func(s *Site) handlerFunc { return s.home }, nav: "home", sitemap: true},
	{route: "GET /cases", template: "cases", handler: func(s *Site) handlerFunc { return s.caseList }, nav: "cases", navWords: "nav.cases", sitemap: true},
	{route: "GET /cases/{id}", template: "case", handler: func(s *Site) handlerFunc { return s.casePage }, nav: "cases"},
	{route: "GET /cases/{id}/cite.json", handler: func(s *Site) handlerFunc { return s.citeJSON }},
	{route: "GET /topics/{term}", template: "topic", handler: func(s *Site) handlerFunc { return s.topicPage }, nav: "vocab"},
	{route: "GET /topics", template: "vocab", handler: func(s *Site) handlerFunc { return s.vocabPage }, nav: "vocab", navWords: "nav.vocab", sitemap: true},
	{route: "GET /stats", template: "stats", handler: func(s *Site) handlerFunc { return s.statsPage }, nav: "stats", navWords: "nav.stats", sitemap: true},
	{route: "GET /docs/api", template: "api", handler: func(s *Site) handlerFunc { return s.apiDocs }, nav: "api", navWords: "nav.api", sitemap: true},
	{route: "GET /feed.atom", handler: func(s *Site) handlerFunc { return s.feed }},
	{route: "GET /incidents", template: "incidents", handler: func(s *Site) handlerFunc { return s.incidentsPage }, nav: "cases", sitemap: true},
	{route: "GET /orgs", template: "orgs", handler: func(s *Site) handlerFunc { return s.orgsPage }, sitemap: true},
	{route: "GET /orgs/{slug}", template: "org", handler: func(s *Site) handlerFunc { return s.orgPage }},
	{route: "GET /orgs/{slug}/feed.atom", handler: func(s *Site) handlerFunc { return s.orgFeed }},
	{template: "notfound"},
	{template: "error"},
	{route: "GET /cases/{id}/correct", template: "correct", handler: func(s *Site) handlerFunc { return s.correctionPage }, nav: "cases", desk: true},
	{route: "POST /cases/{id}/correct", handler: func(s *Site) handlerFunc { return s.submitCorrection }, desk: true},
	{route: "GET /cases/{id}/correct/thanks", template: "correct_done", handler: func(s *Site) handlerFunc { return s.correctionThanks }, nav: "cases", desk: true},
	{route: "GET /submit", template: "submit", handler: func(s *Site) handlerFunc { return s.submitPage }, desk: true},
	{route: "POST /submit", handler: func(s *Site) handlerFunc { return s.submitIncident }, desk: true},
	{route: "GET /submit/thanks", template: "submit_done", handler: func(s *Site) handlerFunc { return s.submitThanks }, desk: true},
	{route: "GET /desk/login", template: "desk_login", handler: func(s *Site) handlerFunc { return s.deskLogin }, desk: true},
	{route: "POST /desk/login", handler: func(s *Site) handlerFunc { return s.deskSignIn }, desk: true},
	{route: "POST /desk/logout", handler: func(s *Site) handlerFunc {
		return s.signedIn(func(w http.ResponseWriter, r *http.Request, lang, _ string) error { return s.deskSignOut(w, r, lang) })
	}, desk: true},
	{route: "GET /desk", template: "desk", handler: func(s *Site) handlerFunc { return s.signedIn(s.deskHomeDone) }, desk: true},
	{route: "POST /desk/corrections/{cid}", handler: func(s *Site) handlerFunc { return s.signedIn(s.deskClose) }, desk: true},
	{route: "POST /desk/cases/{id}/review", handler: func(s *Site) handlerFunc { return s.signedIn(s.deskReview) }, desk: true},
}

// routePath is a route's path without its method ("/" for "GET /{$}").
func routePath(route string) string {
	_, p, _ := strings.Cut(route, " ")
	return strings.TrimSuffix(p, "{$}")
}

// navItem is one item of the navigation bar.
type navItem struct{ Key, Path, Words string }

// navItems are the pages that are items of the navigation bar, in order.
func navItems() []navItem {
	var out []navItem
	for _, p := range sitePages {
		if p.navWords != "" {
			out = append(out, navItem{p.nav, routePath(p.route), p.navWords})
		}
	}
	return out
}

// pageTemplates are the templates of the pages, each parsed into its own
// set with the base layout and the shared partials.
func pageTemplates() []string {
	var out []string
	for _, p := range sitePages {
		if p.template != "" && !slices.Contains(out, p.template) {
			out = append(out, p.template)
		}
	}
	return out
}

// navOf maps each template to the navigation item current on its page.
func navOf() map[string]string {
	out := map[string]string{}
	for _, p := range sitePages {
		if p.template != "" && out[p.template] == "" {
			out[p.template] = p.nav
		}
	}
	return out
}

// termCount is a vocabulary term with how many public cases carry it.
type termCount struct {
	Vocab, ID, Label string
	Count            int
}

type homeData struct {
	Cases, Orgs, Terms     int
	FirstYear, LastYear    int
	Newest                 []*incidentlib.Case
	RootCauses, Components []termCount
	Symptoms               []termCount
}

func (s *Site) home(w http.ResponseWriter, r *http.Request, lang string) error {
	cases := s.ix.Cases()
	d := homeData{Cases: len(cases)}
	orgs := map[string]bool{}
	for _, c := range cases {
		orgs[c.OrgSlug] = true
		if y := c.Year(); y > 0 {
			if d.FirstYear == 0 || y < d.FirstYear {
				d.FirstYear = y
			}
			if y > d.LastYear {
				d.LastYear = y
			}
		}
	}
	d.Orgs = len(orgs)
	counts := s.ix.TermCounts()
	for _, v := range []string{incidentlib.VocabDomain, incidentlib.VocabSymptoms, incidentlib.VocabRootCause, incidentlib.VocabComponents, incidentlib.VocabContributing} {
		for _, n := range counts[v] {
			if n > 0 {
				d.Terms++
			}
		}
	}
	d.Newest = cases[:min(8, len(cases))]
	d.RootCauses = s.topTerms(counts, incidentlib.VocabRootCause, lang, 8)
	d.Components = s.topTerms(counts, incidentlib.VocabComponents, lang, 12)
	d.Symptoms = s.topTerms(counts, incidentlib.VocabSymptoms, lang, 8)
	return s.render(w, r, lang, "home", &pageData{
		Title:       locale.T(lang, "home.title"),
		Description: locale.T(lang, "site.description"),
		Data:        d,
	})
}

// topTerms returns the n most used terms of vocab, most used first.
func (s *Site) topTerms(counts map[string]map[string]int, vocab, lang string, n int) []termCount {
	var out []termCount
	for id, c := range counts[vocab] {
		if c > 0 && id != "unknown" {
			out = append(out, termCount{vocab, id, s.vocab.Label(vocab, id, lang), c})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].ID < out[j].ID
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

type caseData struct {
	Case *incidentlib.Case
	// Layout is the case laid out for the page: head, facts and blocks.
	Layout     view.CasePage
	Checks     []CheckRef
	JSONURL    string
	SimilarURL string
	MCPURL     string
	Cite       citation
	Near       neighbours
}

func (s *Site) casePage(w http.ResponseWriter, r *http.Request, lang string) error {
	id := r.PathValue("id")
	c := s.ix.Case(id)
	if c == nil {
		// Ids are upper case; send a hand-typed il-0049 to the real page.
		if up := strings.ToUpper(id); up != id {
			if s.ix.Case(up) != nil {
				http.Redirect(w, r, langPrefix[lang]+incidentlib.CasePath(up), http.StatusMovedPermanently)
				return nil
			}
		}
		return incidentlib.Errorf(incidentlib.ErrNotFound, "no case %s", id)
	}
	related, err := s.ix.Related(c.ID, 6)
	if err != nil {
		return err
	}
	d := caseData{
		Case:       c,
		Layout:     view.CaseLayout(c, s.vocab, lang, s.ix.Case, view.RelatedOf(related, lang)),
		Checks:     s.checksFor(c.ID),
		JSONURL:    s.base + "/api/cases/" + c.ID,
		SimilarURL: s.base + "/api/cases/" + c.ID + "/similar",
		MCPURL:     s.base + "/mcp",
		Cite:       s.citation(c, lang),
		Near:       s.neighbours(c),
	}
	ld, err := s.caseJSONLD(c, lang)
	if err != nil {
		return err
	}
	return s.render(w, r, lang, "case", &pageData{
		Title:         c.ID + " " + c.Title.In(lang),
		Description:   fold(c.Summary.In(lang), 150),
		Data:          d,
		CanonicalPath: incidentlib.CasePath(c.ID),
		OGType:        "article",
		JSONLD:        ld,
	})
}

// checksFor asks the kubegap check index (internal/checkindex), if wired,
// for the checks citing id.
func (s *Site) checksFor(id string) []CheckRef {
	if s.checks == nil {
		return nil
	}
	return s.checks(id)
}

// topicPageCases is how many of a topic's cases its page lists; the case
// list, filtered to the topic, pages through the rest.
const topicPageCases = 50

type topicData struct {
	Vocab       string
	Term        *incidentlib.Term
	Cases       []*incidentlib.Case // the newest topicPageCases of them
	Total       int                 // all the topic's public cases
	CoOccurring []coGroup
	ByYear      chart
	Checks      []citedCheck
	ListURL     string // the case list filtered to this term, or ""
}

type coGroup struct {
	Vocab string
	Terms []search.FacetCount
}

// citedCheck is a kubegap check with the number of this topic's cases it
// cites.
type citedCheck struct {
	CheckRef
	Cases int
}

func (s *Site) topicPage(w http.ResponseWriter, r *http.Request, lang string) error {
	tp, err := s.ix.Topic(r.PathValue("term"), lang)
	if err != nil {
		return err
	}
	d := topicData{Vocab: tp.Vocab, Term: tp.Term, Cases: tp.Cases}
	for _, f := range search.FilterFields {
		var fc []search.FacetCount
		for _, x := range tp.CoOccurring[f] {
			if x.Term != "unknown" { // "severity unknown" says nothing about the topic
				fc = append(fc, x)
			}
		}
		if len(fc) > 0 {
			if len(fc) > 8 {
				fc = fc[:8]
			}
			d.CoOccurring = append(d.CoOccurring, coGroup{f, fc})
		}
	}
	if p := paramFor(tp.Vocab); p != "" {
		d.ListURL = langPrefix[lang] + "/cases?" + p + "=" + tp.Term.ID
	}
	d.ByYear = yearChart(tp.ByYear, lang, locale.T(lang, "topic.by_year"))
	d.ByYear.QuietCaption = true
	all := d.Cases
	d.Total = len(all)
	if len(d.Cases) > topicPageCases {
		d.Cases = d.Cases[:topicPageCases]
	}
	seen := map[string]int{}
	for _, c := range all {
		for _, ck := range s.checksFor(c.ID) {
			if i, ok := seen[ck.ID]; ok {
				d.Checks[i].Cases++
				continue
			}
			seen[ck.ID] = len(d.Checks)
			d.Checks = append(d.Checks, citedCheck{ck, 1})
		}
	}
	label := tp.Term.Label.In(lang)
	return s.render(w, r, lang, "topic", &pageData{
		Title:       label + " · " + locale.T(lang, "vocab."+tp.Vocab),
		Description: tp.Term.Description.In(lang),
		Data:        d,
	})
}

type vocabGroup struct {
	Vocab string
	Terms []termCount
}

func (s *Site) vocabPage(w http.ResponseWriter, r *http.Request, lang string) error {
	counts := s.ix.TermCounts()
	var groups []vocabGroup
	for _, v := range incidentlib.VocabNames {
		g := vocabGroup{Vocab: v}
		for _, t := range s.vocab.Lists[v] {
			g.Terms = append(g.Terms, termCount{v, t.ID, t.Label.In(lang), counts[v][t.ID]})
		}
		groups = append(groups, g)
	}
	return s.render(w, r, lang, "vocab", &pageData{
		Title:       locale.T(lang, "vocab.title"),
		Description: locale.T(lang, "vocab.intro"),
		Data:        struct{ Groups []vocabGroup }{groups},
	})
}

func (s *Site) apiDocs(w http.ResponseWriter, r *http.Request, lang string) error {
	return s.render(w, r, lang, "api", &pageData{
		Title:       locale.T(lang, "api.title"),
		Description: locale.T(lang, "api.intro"),
		Data: struct {
			API, MCP, Example string
			Tools             []Tool
		}{s.base + "/api", s.base + "/mcp", "IL-0049", s.tools},
	})
}

type errorData struct {
	Code    int
	Heading string
	Message string
}

func (s *Site) errorData(lang string, code int) *pageData {
	key := "error.500"
	switch code {
	case http.StatusNotFound:
		key = "error.404"
	case http.StatusBadRequest:
		key = "error.400"
	case http.StatusMethodNotAllowed:
		key = "error.405"
	}
	return &pageData{
		Title:   locale.T(lang, key+".title"),
		NoIndex: true,
		Data:    errorData{code, locale.T(lang, key+".title"), locale.T(lang, key+".body")},
	}
}
