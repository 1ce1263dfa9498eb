package web

import (
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/search"
)

// orgPath is the root-relative path of an organisation's page.
func orgPath(slug string) string { return "/orgs/" + url.PathEscape(slug) }

// orgCases are the public cases of the organisation slug, newest first.
func (s *Site) orgCases(slug string) []*incidentlib.Case {
	var out []*incidentlib.Case
	for _, c := range s.ix.Cases() {
		if c.OrgSlug == slug {
			out = append(out, c)
		}
	}
	return out
}

// sortedOrgs lists the organisations of the public cases by name, as a
// reader looks one up.
func (s *Site) sortedOrgs() []search.OrgCount {
	orgs := s.ix.Orgs()
	sort.SliceStable(orgs, func(i, j int) bool {
		a, b := strings.ToLower(orgs[i].Name), strings.ToLower(orgs[j].Name)
		if a != b {
			return a < b
		}
		return orgs[i].Slug < orgs[j].Slug
	})
	return orgs
}

type orgsData struct {
	Orgs  []search.OrgCount
	Cases int
}

func (s *Site) orgsPage(w http.ResponseWriter, r *http.Request, lang string) error {
	d := orgsData{Orgs: s.sortedOrgs()}
	for _, o := range d.Orgs {
		d.Cases += o.Count
	}
	return s.render(w, r, lang, "orgs", &pageData{
		Title:         locale.T(lang, "orgs.title"),
		Description:   locale.Tf(lang, "orgs.description", len(d.Orgs), d.Cases),
		CanonicalPath: "/orgs",
		Data:          d,
	})
}

type orgData struct {
	Name, Slug string
	Cases      []*incidentlib.Case
	RootCauses []termCount // the facet line: what the cases have in common
	Components []termCount
	FeedURL    string // root-relative, in the page's language
	ListURL    string // the case list filtered to the organisation
	FirstYear  int
	LastYear   int
}

// orgNamed returns the organisation's name and public cases, or ErrNotFound.
func (s *Site) orgNamed(slug string) (string, []*incidentlib.Case, error) {
	cases := s.orgCases(slug)
	if len(cases) == 0 {
		return "", nil, incidentlib.Errorf(incidentlib.ErrNotFound, "no organisation %q", slug)
	}
	// The newest case's spelling, as the organisation list (Orgs) gives it.
	return cases[0].Org, cases, nil
}

// orgRedirect sends a hand-typed slug in capitals to the real page.
func (s *Site) orgRedirect(w http.ResponseWriter, r *http.Request, lang, slug, suffix string) bool {
	low := strings.ToLower(slug)
	if low == slug || len(s.orgCases(low)) == 0 {
		return false
	}
	http.Redirect(w, r, langPrefix[lang]+orgPath(low)+suffix, http.StatusMovedPermanently)
	return true
}

func (s *Site) orgPage(w http.ResponseWriter, r *http.Request, lang string) error {
	slug := r.PathValue("slug")
	name, cases, err := s.orgNamed(slug)
	if err != nil {
		if s.orgRedirect(w, r, lang, slug, "") {
			return nil
		}
		return err
	}
	counts, err := s.orgTermCounts(slug, lang)
	if err != nil {
		return err
	}
	d := orgData{
		Name:       name,
		Slug:       slug,
		Cases:      cases,
		RootCauses: s.topTerms(counts, incidentlib.VocabRootCause, lang, 5),
		Components: s.topTerms(counts, incidentlib.VocabComponents, lang, 6),
		FeedURL:    langPrefix[lang] + orgPath(slug) + "/feed.atom",
		ListURL:    langPrefix[lang] + "/cases?org=" + url.QueryEscape(slug),
	}
	for _, c := range cases {
		if y := c.Year(); y > 0 {
			if d.FirstYear == 0 || y < d.FirstYear {
				d.FirstYear = y
			}
			d.LastYear = max(d.LastYear, y)
		}
	}
	return s.render(w, r, lang, "org", &pageData{
		Title:         locale.Tf(lang, "org.title", name),
		Description:   locale.Tf(lang, "org.description", name, len(cases)),
		CanonicalPath: orgPath(slug),
		Feed:          &feedLink{Title: locale.Tf(lang, "org.feed_title", name), URL: d.FeedURL},
		Data:          d,
	})
}

// orgTermCounts is, for every filter field, how many of an organisation's
// cases carry each term: the facets of a search for them, which the index
// counts.
func (s *Site) orgTermCounts(slug, lang string) (map[string]map[string]int, error) {
	res, err := s.ix.Search(search.Query{Filters: map[string][]string{search.OrgFilter: {slug}}, Lang: lang, Limit: 1})
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]int{}
	for f, fcs := range res.Facets {
		out[f] = map[string]int{}
		for _, fc := range fcs {
			out[f][fc.Term] = fc.Count
		}
	}
	return out, nil
}

// orgFeed is the Atom feed of one organisation's newest cases.
func (s *Site) orgFeed(w http.ResponseWriter, r *http.Request, lang string) error {
	slug := r.PathValue("slug")
	name, cases, err := s.orgNamed(slug)
	if err != nil {
		if s.orgRedirect(w, r, lang, slug, "/feed.atom") {
			return nil
		}
		return err
	}
	return s.writeFeed(w, r, lang, cases, locale.Tf(lang, "org.feed_title", name), orgPath(slug)+"/feed.atom", orgPath(slug))
}
