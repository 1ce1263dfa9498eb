package web

import (
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// CSLType is the media type of the CSL-JSON citation download
// (/cases/{id}/cite.json).
const CSLType = "application/vnd.citationstyles.csl+json"

// citePath is the root-relative path of a case's CSL-JSON download, without
// language prefix.
func citePath(id string) string { return incidentlib.CasePath(id) + "/cite.json" }

// citation is the "cite this case" block: one case page's address in its
// language, as plain text and BibTeX, and where its CSL-JSON is.
type citation struct {
	Text    string
	BibTeX  string
	CSLURL  string // root-relative, in the page's language
	CSLName string // the file name the download suggests
}

// pageURL is the absolute address of a case page in lang.
func (s *Site) pageURL(lang, id string) string {
	return s.base + langPrefix[lang] + incidentlib.CasePath(id)
}

// updatedDay is the day part of a case's updated_at, or the value as it is
// when it is not a timestamp.
func updatedDay(c *incidentlib.Case) string {
	if t, err := time.Parse(time.RFC3339, c.UpdatedAt); err == nil {
		return t.UTC().Format("2006-01-02")
	}
	if len(c.UpdatedAt) >= 10 {
		return c.UpdatedAt[:10]
	}
	return c.UpdatedAt
}

// citeAuthor is who the citation names as author: the case's writers.
func citeAuthor(c *incidentlib.Case) string {
	if a := strings.TrimSpace(c.Review.WrittenBy); a != "" {
		return a
	}
	return "incidentlib"
}

// citeTitle is the cited title: the case's id and its title in lang.
func citeTitle(c *incidentlib.Case, lang string) string {
	return c.ID + ": " + strings.Join(strings.Fields(c.Title.In(lang)), " ")
}

func (s *Site) citation(c *incidentlib.Case, lang string) citation {
	u := s.pageURL(lang, c.ID)
	day := updatedDay(c)
	year := ""
	if len(day) >= 4 {
		year = day[:4]
	}
	var b strings.Builder
	b.WriteString("@misc{incidentlib-" + c.ID + ",\n")
	field := func(name, value string) {
		b.WriteString("  " + name + strings.Repeat(" ", 12-len(name)) + " = {" + value + "},\n")
	}
	// Double braces keep a corporate author one name and the title's case.
	field("author", "{"+bibEscape(citeAuthor(c))+"}")
	field("title", "{"+bibEscape(citeTitle(c, lang))+"}")
	field("howpublished", "incidentlib")
	if year != "" {
		field("year", year)
	}
	field("url", bibURL(u))
	field("note", bibEscape(locale.Tf(lang, "cite.note", day)))
	out := strings.TrimSuffix(b.String(), ",\n") + "\n}"
	return citation{
		Text:    locale.Tf(lang, "cite.text", citeAuthor(c), citeTitle(c, lang), day, u),
		BibTeX:  out,
		CSLURL:  langPrefix[lang] + citePath(c.ID),
		CSLName: c.ID + ".csl.json",
	}
}

// bibEscape makes text safe inside a braced BibTeX field: the characters
// LaTeX gives a meaning are written as commands, so a title can neither
// close the field nor start a comment or a macro.
var bibEscape = strings.NewReplacer(
	`\`, `\textbackslash{}`, "{", `\{`, "}", `\}`, "%", `\%`, "&", `\&`,
	"$", `\$`, "#", `\#`, "_", `\_`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`,
).Replace

// bibURL keeps a URL as it is for the url field (which BibLaTeX reads
// verbatim) but for the braces and the percent sign, which would end the
// field or start a comment.
var bibURL = strings.NewReplacer("{", "%7B", "}", "%7D", "%", `\%`).Replace

// cslItem is one CSL-JSON item (https://citationstyles.org), the form
// reference managers import.
type cslItem struct {
	ID             string    `json:"id"`
	Type           string    `json:"type"`
	Title          string    `json:"title"`
	Author         []cslName `json:"author"`
	ContainerTitle string    `json:"container-title"`
	Publisher      string    `json:"publisher"`
	Number         string    `json:"number"`
	URL            string    `json:"URL"`
	Issued         *cslDate  `json:"issued,omitempty"`
	Language       string    `json:"language"`
	Note           string    `json:"note"`
}

type cslName struct {
	Literal string `json:"literal"`
}

type cslDate struct {
	DateParts [][]int `json:"date-parts"`
}

func (s *Site) cslItem(c *incidentlib.Case, lang string) cslItem {
	day := updatedDay(c)
	it := cslItem{
		ID:             c.ID,
		Type:           "webpage",
		Title:          citeTitle(c, lang),
		Author:         []cslName{{citeAuthor(c)}},
		ContainerTitle: "incidentlib",
		Publisher:      "incidentlib",
		Number:         c.ID,
		URL:            s.pageURL(lang, c.ID),
		Language:       lang,
		Note:           locale.Tf(lang, "cite.note", day),
	}
	if t, err := time.Parse("2006-01-02", day); err == nil {
		it.Issued = &cslDate{[][]int{{t.Year(), int(t.Month()), t.Day()}}}
	}
	return it
}

// citeJSON serves a case's CSL-JSON: a list of one item, as a download.
func (s *Site) citeJSON(w http.ResponseWriter, r *http.Request, lang string) error {
	c, err := s.publicCase(r)
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent([]cslItem{s.cslItem(c, lang)}, "", "  ")
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", CSLType)
	h.Set("Content-Disposition", `attachment; filename="`+c.ID+`.csl.json"`)
	h.Set("Content-Language", lang)
	h.Set("Cache-Control", "public, max-age=60, must-revalidate")
	h.Set("Content-Length", strconv.Itoa(len(out)+1))
	if r.Method == http.MethodHead {
		return nil
	}
	w.Write(append(out, '\n'))
	return nil
}

// caseLD is the schema.org description of a case page, as JSON-LD.
type caseLD struct {
	Context      string     `json:"@context"`
	Type         string     `json:"@type"`
	ID           string     `json:"@id"`
	URL          string     `json:"url"`
	Identifier   string     `json:"identifier"`
	Headline     string     `json:"headline"`
	Name         string     `json:"name"`
	Description  string     `json:"description"`
	InLanguage   string     `json:"inLanguage"`
	DateModified string     `json:"dateModified"`
	Author       ldThing    `json:"author"`
	Publisher    ldThing    `json:"publisher"`
	IsPartOf     ldThing    `json:"isPartOf"`
	About        ldThing    `json:"about"`
	Keywords     []string   `json:"keywords,omitempty"`
	Citation     []ldSource `json:"citation,omitempty"`
}

type ldThing struct {
	Type string `json:"@type"`
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type ldSource struct {
	Type      string `json:"@type"`
	Name      string `json:"name,omitempty"`
	URL       string `json:"url"`
	Publisher string `json:"publisher,omitempty"`
}

// caseJSONLD describes c for search engines. Everything in it is on the
// page already. encoding/json writes <, > and & as \u escapes, so the text
// can never close the script element that holds it.
func (s *Site) caseJSONLD(c *incidentlib.Case, lang string) (template.JS, error) {
	home := s.base + langPrefix[lang] + "/"
	u := s.pageURL(lang, c.ID)
	ld := caseLD{
		Context:      "https://schema.org",
		Type:         "Article",
		ID:           u,
		URL:          u,
		Identifier:   c.ID,
		Headline:     citeTitle(c, lang),
		Name:         c.Title.In(lang),
		Description:  fold(c.Summary.In(lang), 300),
		InLanguage:   lang,
		DateModified: c.UpdatedAt,
		Author:       ldThing{Type: "Organization", Name: citeAuthor(c)},
		Publisher:    ldThing{Type: "Organization", Name: "incidentlib", URL: home},
		IsPartOf:     ldThing{Type: "WebSite", Name: "incidentlib", URL: home},
		About:        ldThing{Type: "Organization", Name: c.Org, URL: s.base + langPrefix[lang] + orgPath(c.OrgSlug)},
	}
	ld.Keywords = append(ld.Keywords, s.vocab.Label(incidentlib.VocabRootCause, c.RootCause, lang))
	for _, id := range c.Components {
		ld.Keywords = append(ld.Keywords, s.vocab.Label(incidentlib.VocabComponents, id, lang))
	}
	for _, src := range c.Sources {
		ld.Citation = append(ld.Citation, ldSource{Type: "CreativeWork", Name: src.Title, URL: src.URL, Publisher: src.Publisher})
	}
	b, err := json.Marshal(ld)
	if err != nil {
		return "", err
	}
	return template.JS(b), nil
}

// neighbours are the cases next to one case in the two orders a reader
// can step through. The date order is the one the case list reads in, so
// it carries rel="prev" and rel="next": prev is the case that happened
// just before (on the same day, the lower id), next the one just after.
// The id order, in which cases were added, is offered without rel.
type neighbours struct {
	Earlier, Later  *incidentlib.Case // by date
	LowerID, Higher *incidentlib.Case // by id
}

func (s *Site) neighbours(c *incidentlib.Case) neighbours {
	var n neighbours
	cases := s.ix.Cases() // newest first; the same day by id, descending
	for i, k := range cases {
		if k.ID == c.ID {
			if i+1 < len(cases) {
				n.Earlier = cases[i+1]
			}
			if i > 0 {
				n.Later = cases[i-1]
			}
		}
		if d := incidentlib.CompareIDs(k.ID, c.ID); d < 0 {
			if n.LowerID == nil || incidentlib.CompareIDs(k.ID, n.LowerID.ID) > 0 {
				n.LowerID = k
			}
		} else if d > 0 {
			if n.Higher == nil || incidentlib.CompareIDs(k.ID, n.Higher.ID) < 0 {
				n.Higher = k
			}
		}
	}
	return n
}
