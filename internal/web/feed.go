package web

import (
	"encoding/xml"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// FeedSize is how many of the newest cases the Atom feed carries.
const FeedSize = 30

type atomFeed struct {
	XMLName  xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Lang     string      `xml:"xml:lang,attr"`
	Title    string      `xml:"title"`
	Subtitle string      `xml:"subtitle"`
	ID       string      `xml:"id"`
	Updated  string      `xml:"updated"`
	Links    []atomLink  `xml:"link"`
	Author   atomPerson  `xml:"author"`
	Entries  []atomEntry `xml:"entry"`
}

type atomLink struct {
	Rel      string `xml:"rel,attr,omitempty"`
	Href     string `xml:"href,attr"`
	Type     string `xml:"type,attr,omitempty"`
	HrefLang string `xml:"hreflang,attr,omitempty"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomEntry struct {
	Title      string         `xml:"title"`
	ID         string         `xml:"id"`
	Links      []atomLink     `xml:"link"`
	Published  string         `xml:"published,omitempty"`
	Updated    string         `xml:"updated"`
	Summary    atomText       `xml:"summary"`
	Categories []atomCategory `xml:"category"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

type atomCategory struct {
	Term  string `xml:"term,attr"`
	Label string `xml:"label,attr,omitempty"`
}

// rfc3339 turns a case date or timestamp into the form Atom requires.
func rfc3339(s string) string {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC().Format(time.RFC3339)
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.UTC().Format(time.RFC3339)
	}
	return "1970-01-01T00:00:00Z"
}

// feed is the Atom feed of the newest cases, in the page's language. Entry
// ids are the Korean case URLs in every feed, so a reader subscribed to
// several (both languages, the whole library and an organisation) sees one
// case once.
func (s *Site) feed(w http.ResponseWriter, r *http.Request, lang string) error {
	return s.writeFeed(w, r, lang, s.ix.Cases(), locale.T(lang, "feed.title"), "/feed.atom", "/")
}

// writeFeed writes the Atom feed of the newest FeedSize of cases (newest
// first, public only) with title; self and page are the root-relative
// paths, without language prefix, of the feed and of the page it follows.
func (s *Site) writeFeed(w http.ResponseWriter, r *http.Request, lang string, cases []*incidentlib.Case, title, self, page string) error {
	if len(cases) > FeedSize {
		cases = cases[:FeedSize]
	}
	prefix := langPrefix[lang]
	f := atomFeed{
		Lang:     lang,
		Title:    title,
		Subtitle: locale.T(lang, "site.description"),
		ID:       s.base + prefix + self,
		Links: []atomLink{
			{Rel: "self", Href: s.base + prefix + self, Type: "application/atom+xml"},
			{Rel: "alternate", Href: s.base + prefix + page, Type: "text/html", HrefLang: lang},
		},
		Author: atomPerson{Name: locale.T(lang, "feed.author")},
	}
	latest := ""
	for _, c := range cases {
		up := rfc3339(c.UpdatedAt)
		if up > latest {
			latest = up
		}
		e := atomEntry{
			Title:     c.ID + " " + c.Title.In(lang),
			ID:        incidentlib.CaseURL(s.base, c.ID),
			Links:     []atomLink{{Rel: "alternate", Href: s.base + prefix + incidentlib.CasePath(c.ID), Type: "text/html", HrefLang: lang}},
			Published: rfc3339(c.Date),
			Updated:   up,
			Summary:   atomText{Type: "text", Body: c.Org + " · " + c.Date + "\n\n" + plain(c.Summary.In(lang))},
		}
		e.Categories = append(e.Categories, atomCategory{Term: "root_cause:" + c.RootCause, Label: s.vocab.Label(incidentlib.VocabRootCause, c.RootCause, lang)})
		for _, id := range c.Components {
			e.Categories = append(e.Categories, atomCategory{Term: "components:" + id, Label: s.vocab.Label(incidentlib.VocabComponents, id, lang)})
		}
		f.Entries = append(f.Entries, e)
	}
	if latest == "" {
		latest = "1970-01-01T00:00:00Z"
	}
	f.Updated = latest
	return writeXML(w, r, "application/atom+xml; charset=utf-8", f)
}

func writeXML(w http.ResponseWriter, r *http.Request, ctype string, v any) error {
	out, err := xml.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "public, max-age=300")
	if r.Method == http.MethodHead {
		return nil
	}
	w.Write([]byte(xml.Header))
	w.Write(out)
	w.Write([]byte("\n"))
	return nil
}

type urlset struct {
	XMLName xml.Name     `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	XHTML   string       `xml:"xmlns:xhtml,attr"`
	URLs    []sitemapURL `xml:"url"`
}

type sitemapURL struct {
	Loc     string       `xml:"loc"`
	LastMod string       `xml:"lastmod,omitempty"`
	Alts    []xhtmlAltLn `xml:"xhtml:link"`
}

type xhtmlAltLn struct {
	Rel      string `xml:"rel,attr"`
	HrefLang string `xml:"hreflang,attr"`
	Href     string `xml:"href,attr"`
}

// sitemapPaths lists every page worth indexing, without language prefix:
// the fixed pages, every public case, every organisation that has one, and
// every topic that has a case.
func (s *Site) sitemapPaths() ([]struct{ path, lastmod string }, error) {
	type entry = struct{ path, lastmod string }
	var out []entry
	for _, p := range sitePages {
		if p.sitemap {
			out = append(out, entry{routePath(p.route), ""})
		}
	}
	cases := s.ix.Cases()
	ids := make([]*incidentlib.Case, len(cases))
	copy(ids, cases)
	slices.SortFunc(ids, func(a, b *incidentlib.Case) int { return incidentlib.CompareIDs(a.ID, b.ID) })
	for _, c := range ids {
		lm := ""
		if t, err := time.Parse(time.RFC3339, c.UpdatedAt); err == nil {
			lm = t.UTC().Format("2006-01-02")
		}
		out = append(out, entry{incidentlib.CasePath(c.ID), lm})
	}
	// Every organisation's page, last modified when its newest change was.
	orgMod := map[string]string{}
	for _, c := range cases {
		if t, err := time.Parse(time.RFC3339, c.UpdatedAt); err == nil {
			orgMod[c.OrgSlug] = max(orgMod[c.OrgSlug], t.UTC().Format("2006-01-02"))
		}
	}
	for _, o := range s.ix.Orgs() {
		out = append(out, entry{orgPath(o.Slug), orgMod[o.Slug]})
	}
	counts := s.ix.TermCounts()
	for _, v := range incidentlib.VocabNames {
		for _, id := range s.vocab.IDs(v) {
			if counts[v][id] > 0 {
				out = append(out, entry{s.topicPath(v, id), ""})
			}
		}
	}
	return out, nil
}

// sitemapMaxURLs is the most URLs one sitemap file may list (the
// protocol's limit; its other, 50 MB, is not reached at this many: an entry
// with its language alternates is under half a kilobyte). A site with more
// serves /sitemap.xml as an index of files of at most this many
// (Options.SitemapMaxURLs lowers it).
const sitemapMaxURLs = 50000

// sitemapURLs is every URL of the sitemap, each page in both languages,
// built once per generation of the index. The generation is read before
// the build: a write during it leaves an older generation beside the list,
// and the next request builds it again. The list is shared: callers only
// read it.
func (s *Site) sitemapURLs() ([]sitemapURL, error) {
	gen := s.ix.Generation()
	s.sitemapCache.Lock()
	defer s.sitemapCache.Unlock()
	if s.sitemapCache.urls != nil && s.sitemapCache.gen == gen {
		return s.sitemapCache.urls, nil
	}
	urls, err := s.buildSitemapURLs()
	if err != nil {
		return nil, err
	}
	s.sitemapCache.gen, s.sitemapCache.urls = gen, urls
	return urls, nil
}

// buildSitemapURLs is sitemapURLs from the index as it is now.
func (s *Site) buildSitemapURLs() ([]sitemapURL, error) {
	paths, err := s.sitemapPaths()
	if err != nil {
		return nil, err
	}
	var out []sitemapURL
	for _, e := range paths {
		ko, en := s.base+e.path, s.base+"/en"+e.path
		alts := []xhtmlAltLn{{"alternate", "ko", ko}, {"alternate", "en", en}, {"alternate", "x-default", ko}}
		out = append(out, sitemapURL{Loc: ko, LastMod: e.lastmod, Alts: alts}, sitemapURL{Loc: en, LastMod: e.lastmod, Alts: alts})
	}
	return out, nil
}

type sitemapIndex struct {
	XMLName  xml.Name       `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
	Sitemaps []sitemapEntry `xml:"sitemap"`
}

type sitemapEntry struct {
	Loc string `xml:"loc"`
}

// sitemap is /sitemap.xml: the URLs themselves, or, past sitemapMaxURLs,
// an index of the files /sitemaps/1.xml, /sitemaps/2.xml, … that hold them.
func (s *Site) sitemap(w http.ResponseWriter, r *http.Request, _ string) error {
	urls, err := s.sitemapURLs()
	if err != nil {
		return err
	}
	if len(urls) <= s.sitemapMax {
		return writeXML(w, r, "application/xml; charset=utf-8", urlset{XHTML: "http://www.w3.org/1999/xhtml", URLs: urls})
	}
	var ix sitemapIndex
	for n := 1; (n-1)*s.sitemapMax < len(urls); n++ {
		ix.Sitemaps = append(ix.Sitemaps, sitemapEntry{Loc: s.base + "/sitemaps/" + strconv.Itoa(n) + ".xml"})
	}
	return writeXML(w, r, "application/xml; charset=utf-8", ix)
}

// sitemapPart is /sitemaps/N.xml, the Nth file of a split sitemap; a file
// the index does not name is not found.
func (s *Site) sitemapPart(w http.ResponseWriter, r *http.Request, _ string) error {
	num, ok := strings.CutSuffix(r.PathValue("file"), ".xml")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || strconv.Itoa(n) != num {
		return incidentlib.Errorf(incidentlib.ErrNotFound, "no such sitemap")
	}
	urls, err := s.sitemapURLs()
	if err != nil {
		return err
	}
	lo := (n - 1) * s.sitemapMax
	if len(urls) <= s.sitemapMax || lo >= len(urls) {
		return incidentlib.Errorf(incidentlib.ErrNotFound, "no such sitemap")
	}
	return writeXML(w, r, "application/xml; charset=utf-8", urlset{XHTML: "http://www.w3.org/1999/xhtml", URLs: urls[lo:min(lo+s.sitemapMax, len(urls))]})
}

// robots lets crawlers read the pages but not the endless search result
// combinations; the sitemap lists what is worth indexing.
func (s *Site) robots(w http.ResponseWriter, r *http.Request, _ string) error {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	if r.Method == http.MethodHead {
		return nil
	}
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	b.WriteString("Allow: /\n")
	b.WriteString("Disallow: /cases?\n")
	b.WriteString("Disallow: /en/cases?\n")
	b.WriteString("\nSitemap: " + s.base + "/sitemap.xml\n")
	_, err := w.Write([]byte(b.String()))
	return err
}
