package web

import (
	"embed"
	"fmt"
	"html"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// pageParts are the template files a page uses beyond base, partials and
// its own.
var pageParts = map[string][]string{"case": {"case_cite.tmpl"}}

// pageData is what every page template gets: the layout's fields plus the
// page's own data in Data.
type pageData struct {
	Lang        string
	Title       string // the <title>, without the site name
	Description string // the meta description
	Nav         string // which main menu item is current
	Data        any
	// CanonicalPath, when set, is the page's own path without language
	// prefix: the canonical and language links use it, and not the request's
	// path and query, which may carry what the page ignores.
	CanonicalPath string
	OGType        string      // og:type; "" is website
	JSONLD        template.JS // a schema.org description, or ""
	Feed          *feedLink   // the page's own Atom feed, besides the site's

	// Filled by fillCommon.
	Base       string // absolute base URL
	Canonical  string // absolute URL of this page
	AltKO      string // absolute URL of this page in Korean
	AltEN      string // absolute URL of this page in English
	SwitchURL  string // this page in the other language, root-relative
	SwitchLang string
	NoIndex    bool
}

// maxLinkQuery is the longest query string the language and canonical links
// carry; search.MaxQueryBytes of text with its filters fits.
const maxLinkQuery = 4 << 10

// fillCommon derives the language links from the request path, so every
// page gets them without its handler thinking about them.
func (s *Site) fillCommon(r *http.Request, lang string, p *pageData) {
	p.Lang = lang
	p.Base = s.base
	rest := stripLang(r.URL.Path)
	q := ""
	// A query string beyond any real search (a paste gone wrong, a probe)
	// is not repeated in the page's links: each would copy it whole.
	if r.URL.RawQuery != "" && len(r.URL.RawQuery) <= maxLinkQuery {
		q = "?" + r.URL.RawQuery
	}
	if p.CanonicalPath != "" {
		rest, q = p.CanonicalPath, ""
	}
	p.AltKO = s.base + rest + q
	p.AltEN = s.base + "/en" + rest + q
	if lang == "en" {
		p.Canonical, p.SwitchLang = p.AltEN, "ko"
		p.SwitchURL = strings.TrimPrefix(p.AltKO, s.base)
	} else {
		p.Canonical, p.SwitchLang = p.AltKO, "en"
		p.SwitchURL = strings.TrimPrefix(p.AltEN, s.base)
	}
}

// stripLang returns path without its /en prefix.
func stripLang(path string) string {
	if path == "/en" || path == "/en/" {
		return "/"
	}
	if strings.HasPrefix(path, "/en/") {
		return path[3:]
	}
	return path
}

func (s *Site) parseTemplates() (map[string]map[string]*template.Template, error) {
	out := map[string]map[string]*template.Template{}
	for _, page := range pageTemplates() {
		out[page] = map[string]*template.Template{}
		for _, lang := range []string{"ko", "en"} {
			files := []string{"templates/base.tmpl", "templates/partials.tmpl", "templates/" + page + ".tmpl"}
			for _, part := range pageParts[page] {
				files = append(files, "templates/"+part)
			}
			t, err := template.New(page).Funcs(s.funcs(lang)).ParseFS(templateFS, files...)
			if err != nil {
				return nil, fmt.Errorf("web: parse %s templates: %w", page, err)
			}
			out[page][lang] = t
		}
	}
	return out, nil
}

// funcs are the template functions, bound to one language so templates
// never pass the language around.
func (s *Site) funcs(lang string) template.FuncMap {
	prefix := langPrefix[lang]
	return template.FuncMap{
		"t":        func(key string) string { return locale.T(lang, key) },
		"navItems": navItems,
		"tf":       func(key string, args ...any) string { return locale.Tf(lang, key, args...) },
		// n words a count: "1 case", "2 cases", "사례 2건".
		"n": func(key string, n int) string { return locale.N(lang, key, n) },
		"path": func(p string) string {
			if p == "/" && prefix != "" {
				return prefix + "/"
			}
			return prefix + p
		},
		"asset": s.assets.url,
		"text":  func(t incidentlib.Text) string { return t.In(lang) },
		// q is a string for an element's content: on a Korean page, a
		// quotation in Latin script inside it (an error message in a
		// title) is marked lang="en". textq is q of a Text. Attributes
		// and the page's <title> take the plain string.
		"q": func(v string) template.HTML {
			if lang == locale.KO {
				return template.HTML(markQuotedEnglish(v))
			}
			return template.HTML(html.EscapeString(v))
		},
		"textq": func(t incidentlib.Text) template.HTML {
			if lang == locale.KO {
				return template.HTML(markQuotedEnglish(t.In(lang)))
			}
			return template.HTML(html.EscapeString(t.In(lang)))
		},
		// prose sets a text in the page's language as Markdown.
		"prose": func(text string) template.HTML { return prose(text) },
		"label": func(vocab, id string) string { return s.vocab.Label(vocab, id, lang) },
		"topic": func(vocab, id string) string { return prefix + s.topicPath(vocab, id) },
		"caseURL": func(id string) string {
			return prefix + incidentlib.CasePath(id)
		},
		"orgURL":    func(slug string) string { return prefix + orgPath(slug) },
		"vocabName": func(v string) string { return locale.T(lang, "vocab."+v) },
		"day": func(ts string) string {
			if len(ts) >= 10 {
				return ts[:10]
			}
			return ts
		},
		"corrections": func() bool { return s.desk != nil },
		// host names the site a source lives on, beside its title.
		"host": func(raw string) string {
			if u, err := url.Parse(raw); err == nil && u.Host != "" {
				return strings.TrimPrefix(u.Host, "www.")
			}
			return raw
		},
		"fold": fold,
		// snippet is a search snippet; on a Korean page a quotation in
		// Latin script inside it is marked lang="en", as q does.
		"snippet": func(v string) template.HTML {
			h := snippetHTML(v)
			if lang == locale.KO && h == template.HTML(v) {
				return template.HTML(markSnippetQuotes(v))
			}
			return h
		},
		// searchURL is the list's one address for a search.
		"searchURL": func(q string) string { return listURL(lang, q) },
		"str": func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		},
		"dict": func(kv ...any) (map[string]any, error) {
			if len(kv)%2 != 0 {
				return nil, fmt.Errorf("dict needs key and value pairs")
			}
			m := map[string]any{}
			for i := 0; i < len(kv); i += 2 {
				k, ok := kv[i].(string)
				if !ok {
					return nil, fmt.Errorf("dict key %v is not a string", kv[i])
				}
				m[k] = kv[i+1]
			}
			return m, nil
		},
		// langName names a language in itself (한국어, English).
		"langName":   func(l string) string { return locale.T(l, "lang.name") },
		"fieldLabel": func(f string) string { return locale.T(lang, "facet."+f) },
		// readerLink is a reader's source as a link when it is an http(s)
		// address, else "" (the desk shows it as text).
		"readerLink": func(src string) string {
			if u, err := url.Parse(strings.TrimSpace(src)); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(src, " \t\n") {
				return u.String()
			}
			return ""
		},
		// otherLang is the language of a text the corpus keeps in one
		// language only (a write-up's own title), when it is not the
		// page's: "ko" for a text with Hangul, else "en"; "" for the
		// page's own, so that only text in the other language is marked.
		"otherLang": func(text string) string {
			l := locale.EN
			if hasHangul(text) {
				l = locale.KO
			}
			if l == lang {
				return ""
			}
			return l
		},
		// atLang is the language of a timeline time on a Korean page: "en"
		// where it holds English words (Three months before the incident,
		// 5:45 AM (Pacific Time)), "" for a time and a zone alone (22:13
		// EET), which read the same in both.
		"atLang": func(at string) string {
			if lang == locale.KO && !hasHangul(at) && lowerWord.MatchString(at) {
				return locale.EN
			}
			return ""
		},
		// checkSeverity names a kubegap severity in the page's language;
		// one this site does not know shows as kubegap wrote it.
		"checkSeverity": func(sev string) string {
			if locale.Has(lang, "check.severity."+sev) {
				return locale.T(lang, "check.severity."+sev)
			}
			return sev
		},
	}
}

// topicPath is the root-relative path of a term's topic page. A bare id is
// enough when it resolves to the same vocabulary; otherwise the vocabulary
// is named, so that links never land on a same-named term elsewhere.
func (s *Site) topicPath(vocab, id string) string {
	if v, t := s.ix.FindTerm(id); t != nil && v == vocab {
		return "/topics/" + url.PathEscape(id)
	}
	return "/topics/" + url.PathEscape(vocab+":"+id)
}

// feedLink is an Atom feed a page announces in its head.
type feedLink struct {
	Title, URL string
}

// lowerWord is a word of two or more lower-case Latin letters.
var lowerWord = regexp.MustCompile(`[a-z]{2,}`)
