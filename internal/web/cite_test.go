package web_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
	"github.com/incidentlib/incidentlib/internal/web"
)

var langPrefix = map[string]string{"ko": "", "en": "/en"}

// bibFields reads the fields of one BibTeX entry: key = {value}, with
// nested braces.
func bibFields(t *testing.T, entry string) (kind, key string, fields map[string]string) {
	t.Helper()
	m := regexp.MustCompile(`^@(\w+)\{([^,\s]+),\n`).FindStringSubmatch(entry)
	if m == nil {
		t.Fatalf("not a BibTeX entry: %q", entry)
	}
	kind, key, fields = m[1], m[2], map[string]string{}
	rest := entry[len(m[0]):]
	for {
		rest = strings.TrimLeft(rest, " \n,")
		if rest == "}" || rest == "" {
			break
		}
		eq := strings.Index(rest, "=")
		if eq < 0 {
			t.Fatalf("BibTeX field without =: %q", rest)
		}
		name := strings.TrimSpace(rest[:eq])
		rest = strings.TrimLeft(rest[eq+1:], " ")
		if !strings.HasPrefix(rest, "{") {
			t.Fatalf("BibTeX field %s is not braced: %q", name, rest)
		}
		depth, end := 0, -1
		for i := 0; i < len(rest) && end < 0; i++ {
			switch {
			case rest[i] == '\\':
				i++ // an escaped character never opens or closes
			case rest[i] == '{':
				depth++
			case rest[i] == '}':
				depth--
				if depth == 0 {
					end = i
				}
			}
		}
		if end < 0 {
			t.Fatalf("BibTeX field %s never closes: %q", name, rest)
		}
		if _, dup := fields[name]; dup {
			t.Errorf("BibTeX field %s twice", name)
		}
		fields[name] = rest[1:end]
		rest = rest[end+1:]
	}
	return kind, key, fields
}

// TestCiteBlock checks the cite block of a case page in both languages
// against the case's fields: plain text, BibTeX and the CSL-JSON link.
func TestCiteBlock(t *testing.T) {
	t.Parallel()
	// A case updated on a day of its own beside IL-0049 (the corpus's cases
	// were all updated on the 1st or the 30th).
	ix := withExtraCases(t, func(c *incidentlib.Case) {
		c.UpdatedAt = "2025-07-19T08:30:00Z"
		c.Review.WrittenBy = "Kim Editor"
		c.Title = incidentlib.Text{EN: "Another case", KO: "다른 사례"}
	})
	mux := newMux(t, ix, web.Options{})
	for _, tc := range []struct{ id, lang string }{{"IL-0049", "ko"}, {"IL-0049", "en"}, {"IL-9990", "ko"}, {"IL-9990", "en"}} {
		c, lang := ix.All().Case(tc.id), tc.lang
		day := c.UpdatedAt[:10]
		path := langPrefix[lang] + "/cases/" + c.ID
		r := get(t, mux, path)
		checkHTML(t, path, r, lang)
		doc := parseHTML(t, r.body)
		cite := doc.first(tagged("section", "id", "cite"))
		if cite == nil {
			t.Fatalf("%s: no cite block", path)
		}
		if h := cite.first(tagged("h2")); h == nil || h.textOf() != locale.T(lang, "cite.heading") {
			t.Errorf("%s: cite block heading %v", path, h)
		}
		pageURL := base + path
		title := c.Title.In(lang)
		text := cite.first(tagged("p", "class", "cite-text"))
		if text == nil {
			t.Fatalf("%s: no plain-text citation", path)
		}
		for _, want := range []string{c.Review.WrittenBy, c.ID + ": " + title, day, pageURL, "incidentlib"} {
			if !strings.Contains(text.textOf(), want) {
				t.Errorf("%s: the plain citation %q lacks %q", path, text.textOf(), want)
			}
		}
		pre := cite.first(tagged("pre", "class", "cite-bibtex"))
		if pre == nil {
			t.Fatalf("%s: no BibTeX", path)
		}
		kind, key, f := bibFields(t, pre.rawText())
		if kind != "misc" || key != "incidentlib-"+c.ID {
			t.Errorf("%s: BibTeX entry @%s{%s, want @misc{incidentlib-%s", path, kind, key, c.ID)
		}
		want := map[string]string{
			"author":       "{" + c.Review.WrittenBy + "}",
			"title":        "{" + c.ID + ": " + title + "}",
			"howpublished": "incidentlib",
			"year":         day[:4],
			"url":          pageURL,
			"note":         locale.Tf(lang, "cite.note", day),
		}
		for k, v := range want {
			if f[k] != v {
				t.Errorf("%s: BibTeX %s = %q, want %q", path, k, f[k], v)
			}
		}
		if len(f) != len(want) {
			t.Errorf("%s: BibTeX fields %v, want exactly %v", path, f, want)
		}
		// The date the reader read it is theirs to add, and the page says so.
		if _, ok := f["urldate"]; ok {
			t.Errorf("%s: the BibTeX fills in urldate", path)
		}
		if u := cite.first(tagged("p", "class", "cite-urldate")); u == nil || !strings.Contains(u.textOf(), "urldate") {
			t.Errorf("%s: the cite block does not say urldate is the reader's", path)
		}
		a := cite.first(func(n *node) bool { return n.Tag == "a" && strings.HasSuffix(n.Attr["href"], "cite.json") })
		if a == nil || a.Attr["href"] != path+"/cite.json" || a.Attr["download"] != c.ID+".csl.json" || a.Attr["type"] != web.CSLType {
			t.Errorf("%s: CSL-JSON link %v", path, a)
		}
	}
}

// TestCSLJSON fetches the CSL-JSON download and checks it against the case.
func TestCSLJSON(t *testing.T) {
	t.Parallel()
	// The corpus's cases were all updated on the 1st or the 30th: one more,
	// updated on another day, shows the day is the case's own.
	ix := withExtraCases(t, func(c *incidentlib.Case) {
		c.UpdatedAt = "2025-07-19T08:30:00Z"
		c.Title = incidentlib.Text{EN: "Another case", KO: "다른 사례"}
	})
	mux := newMux(t, ix, web.Options{})
	for _, id := range []string{"IL-0049", "IL-9990"} {
		c := ix.All().Case(id)
		if c == nil {
			t.Fatalf("the corpus has no %s", id)
		}
		for _, lang := range []string{"ko", "en"} {
			path := langPrefix[lang] + "/cases/" + id + "/cite.json"
			r := get(t, mux, path)
			if r.code != 200 {
				t.Fatalf("GET %s = %d", path, r.code)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/vnd.citationstyles.csl+json" {
				t.Errorf("%s: Content-Type %q", path, ct)
			}
			if cd := r.header.Get("Content-Disposition"); cd != `attachment; filename="`+id+`.csl.json"` {
				t.Errorf("%s: Content-Disposition %q", path, cd)
			}
			if r.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: no nosniff header", path)
			}
			var items []struct {
				ID, Type, Title, URL, Note, Language, Publisher, Number string
				ContainerTitle                                          string `json:"container-title"`
				Author                                                  []struct{ Literal string }
				Issued                                                  struct {
					DateParts [][]int `json:"date-parts"`
				}
			}
			dec := json.NewDecoder(strings.NewReader(r.body))
			if err := dec.Decode(&items); err != nil {
				t.Fatalf("%s is not CSL-JSON: %v", path, err)
			}
			if len(items) != 1 {
				t.Fatalf("%s: %d items, want 1", path, len(items))
			}
			it := items[0]
			day := c.UpdatedAt[:10]
			var y, m, d int
			fmt.Sscanf(day, "%d-%d-%d", &y, &m, &d)
			if it.ID != id || it.Type != "webpage" || it.Title != id+": "+c.Title.In(lang) || it.URL != base+langPrefix[lang]+"/cases/"+id ||
				it.Language != lang || it.ContainerTitle != "incidentlib" || it.Number != id {
				t.Errorf("%s: item %+v does not match the case", path, it)
			}
			if len(it.Author) != 1 || it.Author[0].Literal != c.Review.WrittenBy {
				t.Errorf("%s: author %v, want %q", path, it.Author, c.Review.WrittenBy)
			}
			if !slices.Equal(it.Issued.DateParts[0], []int{y, m, d}) || !strings.Contains(it.Note, day) {
				t.Errorf("%s: issued %v, note %q; want the case's updated_at %s", path, it.Issued.DateParts, it.Note, c.UpdatedAt)
			}
		}
	}
	for path, code := range map[string]int{"/cases/IL-9999/cite.json": 404, "/en/cases/IL-9999/cite.json": 404, "/cases/nonsense/cite.json": 404} {
		if r := get(t, mux, path); r.code != code || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s = %d %q, want %d and the error page", path, r.code, r.header.Get("Content-Type"), code)
		}
	}
	if r := do(t, mux, http.MethodHead, "/cases/IL-0049/cite.json", nil); r.code != 200 || r.body != "" {
		t.Errorf("HEAD cite.json = %d with %d bytes", r.code, len(r.body))
	}
}

// jsonLD returns the page's JSON-LD descriptions, decoded.
func jsonLD(t *testing.T, doc *node) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, s := range doc.all(tagged("script")) {
		if s.Attr["type"] != "application/ld+json" {
			t.Errorf("a script element of type %q", s.Attr["type"])
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(s.rawText()), &v); err != nil {
			t.Errorf("the JSON-LD is not JSON: %v\n%s", err, s.rawText())
			continue
		}
		out = append(out, v)
	}
	return out
}

// TestCaseHeadMetadata checks a case page's canonical link, OpenGraph tags
// and JSON-LD against the case, in both languages, with a stray query
// string that must not reach the canonical address.
func TestCaseHeadMetadata(t *testing.T) {
	t.Parallel()
	mux := newMux(t, sharedIndex(t), web.Options{})
	c := testCorpus(t).Case("IL-0049")
	for lang, ogLocale := range map[string]string{"ko": "ko_KR", "en": "en_US"} {
		path := langPrefix[lang] + "/cases/IL-0049"
		r := get(t, mux, path+"?utm_source=x&q=<b>")
		doc := parseHTML(t, r.body)
		canon := doc.all(tagged("link", "rel", "canonical"))
		if len(canon) != 1 || canon[0].Attr["href"] != base+path {
			t.Errorf("%s: canonical %v, want one to %s", path, canon, base+path)
		}
		alt := doc.first(tagged("link", "rel", "alternate", "hreflang", "en"))
		if alt == nil || alt.Attr["href"] != base+"/en/cases/IL-0049" {
			t.Errorf("%s: hreflang en %v", path, alt)
		}
		for prop, want := range map[string]string{
			"og:title":            "IL-0049 " + c.Title.In(lang),
			"og:type":             "article",
			"og:url":              base + path,
			"og:locale":           ogLocale,
			"og:site_name":        "incidentlib",
			"og:locale:alternate": map[string]string{"ko": "en_US", "en": "ko_KR"}[lang],
		} {
			if got, _ := doc.meta(prop); got != want {
				t.Errorf("%s: %s = %q, want %q", path, prop, got, want)
			}
		}
		if d, _ := doc.meta("og:description"); d == "" || !strings.HasPrefix(c.Summary.In(lang), strings.TrimSuffix(d, "…")[:20]) {
			t.Errorf("%s: og:description %q is not the summary", path, d)
		}
		lds := jsonLD(t, doc)
		if len(lds) != 1 {
			t.Fatalf("%s: %d JSON-LD blocks, want 1", path, len(lds))
		}
		ld := lds[0]
		for k, want := range map[string]string{
			"@context": "https://schema.org", "@type": "Article", "@id": base + path, "url": base + path,
			"identifier": "IL-0049", "headline": "IL-0049: " + c.Title.In(lang), "inLanguage": lang,
			"dateModified": c.UpdatedAt, "name": c.Title.In(lang),
		} {
			if ld[k] != want {
				t.Errorf("%s: JSON-LD %s = %v, want %q", path, k, ld[k], want)
			}
		}
		about, _ := ld["about"].(map[string]any)
		if about["name"] != c.Org || about["url"] != base+langPrefix[lang]+"/orgs/"+c.OrgSlug {
			t.Errorf("%s: JSON-LD about %v, want the organisation %s", path, about, c.Org)
		}
		cites, _ := ld["citation"].([]any)
		if len(cites) != len(c.Sources) || cites[0].(map[string]any)["url"] != c.Sources[0].URL {
			t.Errorf("%s: JSON-LD citation %v, want the case's sources", path, cites)
		}
	}
	// Other pages have OpenGraph tags but no JSON-LD; error pages neither.
	for path, og := range map[string]bool{"/": true, "/en/orgs": true, "/orgs/preply": true, "/no-such-page": false} {
		doc := parseHTML(t, get(t, mux, path).body)
		if typ, ok := doc.meta("og:type"); ok != og || (og && typ != "website") {
			t.Errorf("%s: og:type %q (present %v), want website: %v", path, typ, ok, og)
		}
		if n := len(jsonLD(t, doc)); n != 0 {
			t.Errorf("%s carries %d JSON-LD blocks", path, n)
		}
	}
}

// TestCitationsEscaped gives a case a title with markup, JSON and BibTeX
// specials: the JSON-LD must still be one script element whose JSON reads
// back as the title, and the BibTeX fields must stay closed.
func TestCitationsEscaped(t *testing.T) {
	t.Parallel()
	nasty := `Break </script><script>alert(1)</script> & 100% {rate} #1 $x_y ~^\ ` + "\u2028end"
	ix := withExtraCases(t, func(c *incidentlib.Case) {
		c.Title = incidentlib.Text{EN: nasty, KO: nasty}
	})
	mux := newMux(t, ix, web.Options{})
	r := get(t, mux, "/en/cases/IL-9990")
	if r.code != 200 {
		t.Fatalf("GET = %d", r.code)
	}
	checkHTML(t, "/en/cases/IL-9990", r, "en")
	if n := strings.Count(strings.ToLower(r.body), "<script"); n != 1 {
		t.Errorf("the page has %d script tags, want the one JSON-LD", n)
	}
	if strings.Contains(r.body, "\u2028") && strings.Contains(jsonLDRe.FindString(r.body), "\u2028") {
		t.Error("U+2028 is raw inside the JSON-LD")
	}
	doc := parseHTML(t, r.body)
	lds := jsonLD(t, doc)
	if len(lds) != 1 || lds[0]["name"] != nasty {
		t.Fatalf("the JSON-LD does not read back the title: %v", lds)
	}
	_, _, f := bibFields(t, doc.first(tagged("pre", "class", "cite-bibtex")).rawText())
	wantTitle := `{IL-9990: Break </script><script>alert(1)</script> \& 100\% \{rate\} \#1 \$x\_y \textasciitilde{}\textasciicircum{}\textbackslash{} end}`
	if f["title"] != wantTitle {
		t.Errorf("BibTeX title = %q\nwant          %q", f["title"], wantTitle)
	}
	if len(f) != 6 {
		t.Errorf("the title broke the entry into fields %v", f)
	}
	var items []struct{ Title string }
	if err := json.Unmarshal([]byte(get(t, mux, "/en/cases/IL-9990/cite.json").body), &items); err != nil || len(items) != 1 || items[0].Title != "IL-9990: "+strings.Join(strings.Fields(nasty), " ") {
		t.Errorf("CSL-JSON title %v (%v)", items, err)
	}
}

// neighbourLinks returns the case ids the case nav links, by class, and the
// rel of each link.
func neighbourLinks(t *testing.T, doc *node) (byDate, byID [2]string, rels map[string]string) {
	t.Helper()
	nav := doc.first(tagged("nav", "class", "case-nav"))
	if nav == nil {
		t.Fatal("the case page has no case nav")
	}
	groups := nav.all(tagged("div", "class", "case-nav-group"))
	if len(groups) != 2 {
		t.Fatalf("case nav has %d groups, want 2", len(groups))
	}
	rels = map[string]string{}
	read := func(g *node) (out [2]string) {
		for i, cls := range []string{"case-nav-prev", "case-nav-next"} {
			li := g.first(tagged("li", "class", cls))
			if li == nil {
				t.Fatalf("no %s item", cls)
			}
			if a := li.first(tagged("a")); a != nil {
				out[i] = strings.TrimPrefix(strings.TrimPrefix(a.Attr["href"], "/en"), "/cases/")
				if rel := a.Attr["rel"]; rel != "" {
					rels[rel] += out[i] + " "
				}
			}
		}
		return out
	}
	return read(groups[0]), read(groups[1]), rels
}

// TestCaseNeighbours checks previous/next by date (rel=prev/next, oldest to
// newest) and by id (no rel) against the public cases, with a private case
// in between that must be skipped.
func TestCaseNeighbours(t *testing.T) {
	t.Parallel()
	pub := testCorpus(t).Cases
	ix := withExtraCases(t, func(c *incidentlib.Case) {
		c.Private = true
		c.Date = "2020-02-28" // IL-0049's day: it would sit next to it
	})
	mux := newMux(t, ix, web.Options{})
	// The public cases oldest first, as the date links walk them.
	chrono := slices.Clone(ix.Public().Cases())
	slices.Reverse(chrono)
	ids := slices.Clone(chrono)
	slices.SortFunc(ids, func(a, b *incidentlib.Case) int { return incidentlib.CompareIDs(a.ID, b.ID) })
	if len(chrono) != len(pub) {
		t.Fatalf("%d public cases, want %d", len(chrono), len(pub))
	}
	at := func(list []*incidentlib.Case, i int) string {
		if i < 0 || i >= len(list) {
			return ""
		}
		return list[i].ID
	}
	for _, i := range []int{0, 1, len(chrono) / 2, len(chrono) - 1, slices.IndexFunc(chrono, func(c *incidentlib.Case) bool { return c.ID == "IL-0049" })} {
		c := chrono[i]
		j := slices.IndexFunc(ids, func(k *incidentlib.Case) bool { return k.ID == c.ID })
		for _, lang := range []string{"ko", "en"} {
			path := langPrefix[lang] + "/cases/" + c.ID
			doc := parseHTML(t, get(t, mux, path).body)
			byDate, byID, rels := neighbourLinks(t, doc)
			if want := [2]string{at(chrono, i-1), at(chrono, i+1)}; byDate != want {
				t.Errorf("%s by date: %q, want %q", path, byDate, want)
			}
			if want := [2]string{at(ids, j-1), at(ids, j+1)}; byID != want {
				t.Errorf("%s by id: %q, want %q", path, byID, want)
			}
			// One previous and one next, those by date.
			wantRels := map[string]string{}
			if byDate[0] != "" {
				wantRels["prev"] = byDate[0] + " "
			}
			if byDate[1] != "" {
				wantRels["next"] = byDate[1] + " "
			}
			if !maps(rels, wantRels) {
				t.Errorf("%s: rel links %q, want %q", path, rels, wantRels)
			}
			if strings.Contains(doc.textOf(), "IL-9990") {
				t.Errorf("%s shows the private case", path)
			}
			// Every link leads where it says, in the page's language.
			for _, a := range doc.first(tagged("nav", "class", "case-nav")).all(tagged("a")) {
				if !strings.HasPrefix(a.Attr["href"], langPrefix[lang]+"/cases/IL-") {
					t.Errorf("%s: case nav link %q", path, a.Attr["href"])
				}
			}
		}
	}
	// The oldest and the newest say they are the ends.
	doc := parseHTML(t, get(t, mux, "/en/cases/"+chrono[0].ID).body)
	if li := doc.first(tagged("li", "class", "case-nav-prev")); li == nil || li.textOf() != locale.T("en", "casenav.first") {
		t.Errorf("the oldest case's previous item is %v", li)
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestOrgPages checks /orgs and /orgs/{slug} in both languages against the
// corpus, the organisation's feed, the case page's link to it, and the
// 404 of an unknown one.
func TestOrgPages(t *testing.T) {
	t.Parallel()
	ix := sharedIndex(t)
	mux := newMux(t, ix, web.Options{})
	orgs := ix.Public().Orgs()
	for _, lang := range []string{"ko", "en"} {
		p := langPrefix[lang]
		r := get(t, mux, p+"/orgs")
		checkHTML(t, p+"/orgs", r, lang)
		doc := parseHTML(t, r.body)
		list := doc.first(tagged("ul", "class", "org-list"))
		if list == nil {
			t.Fatalf("%s/orgs: no organisation list", p)
		}
		items := list.all(tagged("li"))
		if len(items) != len(orgs) {
			t.Errorf("%s/orgs lists %d organisations, want %d", p, len(items), len(orgs))
		}
		got := map[string]string{}
		var names []string
		for _, li := range items {
			a := li.first(tagged("a"))
			got[a.Attr["href"]] = a.textOf() + " " + li.first(tagged("span", "class", "count")).textOf()
			names = append(names, strings.ToLower(a.textOf()))
		}
		for _, o := range orgs {
			want := o.Name + " " + locale.N(lang, "orgs.cases", o.Count)
			if g := got[p+"/orgs/"+o.Slug]; g != want {
				t.Errorf("%s/orgs: %s shows %q, want %q", p, o.Slug, g, want)
			}
		}
		if !slices.IsSorted(names) {
			t.Errorf("%s/orgs is not in name order", p)
		}

		const slug = "wellcome-collection"
		var want []*incidentlib.Case
		for _, c := range ix.Public().Cases() {
			if c.OrgSlug == slug {
				want = append(want, c)
			}
		}
		if len(want) < 2 {
			t.Fatalf("the corpus has %d cases of %s", len(want), slug)
		}
		path := p + "/orgs/" + slug
		r = get(t, mux, path)
		checkHTML(t, path, r, lang)
		doc = parseHTML(t, r.body)
		if h1 := doc.first(tagged("h1")); h1 == nil || h1.textOf() != want[0].Org {
			t.Errorf("%s: h1 %v, want %q", path, h1, want[0].Org)
		}
		if c := doc.all(tagged("link", "rel", "canonical")); len(c) != 1 || c[0].Attr["href"] != base+path {
			t.Errorf("%s: canonical %v", path, c)
		}
		feed := doc.first(func(n *node) bool {
			return n.Tag == "link" && n.Attr["type"] == "application/atom+xml" && n.Attr["href"] == path+"/feed.atom"
		})
		if feed == nil {
			t.Errorf("%s announces no feed of its own", path)
		}
		lines := doc.first(tagged("ul", "class", "org-cases")).all(tagged("li", "class", "caseline"))
		if len(lines) != len(want) {
			t.Fatalf("%s lists %d cases, want %d", path, len(lines), len(want))
		}
		for i, li := range lines {
			c := want[i]
			a := li.first(tagged("a", "class", "caseline-link"))
			if a.Attr["href"] != p+"/cases/"+c.ID || !strings.Contains(a.textOf(), c.Title.In(lang)) {
				t.Errorf("%s: line %d links %q %q, want %s (newest first)", path, i, a.Attr["href"], a.textOf(), c.ID)
			}
			meta := li.first(tagged("span", "class", "meta"))
			tm := meta.first(tagged("time"))
			if tm == nil || tm.Attr["datetime"] != c.Date || !strings.Contains(meta.textOf(), ix.Vocab().Label("root_cause", c.RootCause, lang)) {
				t.Errorf("%s: %s shows %q, want its date %s and root cause", path, c.ID, meta.textOf(), c.Date)
			}
		}
		facet := doc.first(tagged("p", "class", "facet-line"))
		if facet == nil {
			t.Fatalf("%s: no facet line", path)
		}
		// The facet line counts the root causes of exactly these cases.
		counts := map[string]int{}
		for _, c := range want {
			counts[ix.Vocab().Label("root_cause", c.RootCause, lang)]++
		}
		group := facet.first(tagged("span", "class", "facet-line-group"))
		for _, a := range group.all(tagged("a")) {
			n := 0
			// The count follows its link.
			next := a.Outer.Kids[slices.Index(a.Outer.Kids, a)+2]
			fmt.Sscan(next.textOf(), &n)
			if counts[a.textOf()] != n || n == 0 {
				t.Errorf("%s: facet line says %s %d, the cases say %d", path, a.textOf(), n, counts[a.textOf()])
			}
		}

		// The organisation's feed.
		fr := get(t, mux, path+"/feed.atom")
		var f struct {
			Title   string `xml:"title"`
			Entries []struct {
				Link struct {
					Href string `xml:"href,attr"`
				} `xml:"link"`
			} `xml:"entry"`
		}
		if err := xml.Unmarshal([]byte(fr.body), &f); err != nil || fr.header.Get("Content-Type") != "application/atom+xml; charset=utf-8" {
			t.Fatalf("%s/feed.atom: %v, %q", path, err, fr.header.Get("Content-Type"))
		}
		if len(f.Entries) != len(want) || f.Entries[0].Link.Href != base+p+"/cases/"+want[0].ID || !strings.Contains(f.Title, want[0].Org) {
			t.Errorf("%s/feed.atom: %q with %d entries, want %d from %s", path, f.Title, len(f.Entries), len(want), want[0].ID)
		}

		// Every case page links its organisation's page.
		cdoc := parseHTML(t, get(t, mux, p+"/cases/"+want[0].ID).body)
		if a := cdoc.first(tagged("a", "class", "org")); a == nil || a.Attr["href"] != path || a.textOf() != want[0].Org {
			t.Errorf("%s/cases/%s: organisation link %v, want %s", p, want[0].ID, a, path)
		}

		// An unknown organisation is the 404 page in the reader's language.
		nf := get(t, mux, p+"/orgs/no-such-org")
		if nf.code != 404 {
			t.Errorf("%s/orgs/no-such-org = %d", p, nf.code)
		}
		checkHTML(t, p+"/orgs/no-such-org", nf, lang)
		if h := parseHTML(t, nf.body).first(tagged("h1")); h == nil || h.textOf() != locale.T(lang, "error.404.title") {
			t.Errorf("%s/orgs/no-such-org: heading %v", p, h)
		}
		if r := get(t, mux, p+"/orgs/no-such-org/feed.atom"); r.code != 404 {
			t.Errorf("the feed of an unknown organisation = %d", r.code)
		}
	}
	for from, to := range map[string]string{"/orgs/Preply": "/orgs/preply", "/en/orgs/PREPLY/feed.atom": "/en/orgs/preply/feed.atom", "/orgs/": "/orgs"} {
		if r := get(t, mux, from); r.code != http.StatusMovedPermanently || r.header.Get("Location") != to {
			t.Errorf("GET %s = %d → %q, want 301 → %s", from, r.code, r.header.Get("Location"), to)
		}
	}
	// The sitemap lists the organisation pages in both languages.
	sm := get(t, mux, "/sitemap.xml").body
	for _, u := range []string{base + "/orgs<", base + "/en/orgs<", base + "/orgs/preply<", base + "/en/orgs/wellcome-collection<"} {
		if !strings.Contains(sm, "<loc>"+u) {
			t.Errorf("the sitemap lacks %s", strings.TrimSuffix(u, "<"))
		}
	}
}

// TestPrivateCasesOffOrgsAndCitations: a private case of an organisation
// with public cases, and one of an organisation with none, appear on no
// organisation page, feed, citation or neighbour link.
func TestPrivateCasesOffOrgsAndCitations(t *testing.T) {
	t.Parallel()
	ix := withExtraCases(t, func(c *incidentlib.Case) {
		c.Private = true
		c.Date = "2099-01-01"
		c.Title = incidentlib.Text{EN: "Zanzibarquux secret outage", KO: "잔지바르쿡스 비밀 장애"}
	}, func(c *incidentlib.Case) {
		c.Private = true
		c.Org, c.OrgSlug = "Quuxsecret Ltd", "quuxsecret"
	})
	mux := newMux(t, ix, web.Options{})
	newest := ix.Public().Cases()[0].ID
	for _, p := range []string{"/orgs", "/en/orgs", "/orgs/preply", "/en/orgs/preply", "/orgs/preply/feed.atom", "/cases/" + newest,
		"/en/cases/" + newest, "/cases/" + newest + "/cite.json", "/sitemap.xml", "/cases/IL-0049"} {
		r := get(t, mux, p)
		if r.code != 200 {
			t.Errorf("GET %s = %d", p, r.code)
		}
		for _, secret := range []string{"IL-9990", "IL-9991", "Zanzibarquux", "잔지바르쿡스", "Quuxsecret", "quuxsecret"} {
			if strings.Contains(r.body, secret) {
				t.Errorf("%s shows the private %s", p, secret)
			}
		}
	}
	for _, p := range []string{"/orgs/quuxsecret", "/en/orgs/quuxsecret", "/orgs/quuxsecret/feed.atom", "/cases/IL-9990/cite.json", "/en/cases/IL-9991/cite.json"} {
		if r := get(t, mux, p); r.code != 404 {
			t.Errorf("GET %s = %d, want 404", p, r.code)
		}
	}
}
