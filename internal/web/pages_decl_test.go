package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/search"
)

// TestPagesFromOneDeclaration: every page of sitePages answers its route in
// both languages, renders its template with its navigation item current,
// and the navigation bar and the sitemap's fixed pages are exactly the
// declared ones. Desk pages answer only with a desk.
func TestPagesFromOneDeclaration(t *testing.T) {
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := search.New(c.Vocab, c.Cases)
	if err != nil {
		t.Fatal(err)
	}
	site, err := New(ix.Public(), Options{BaseURL: "https://x.example"})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	site.Install(mux)
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		b, _ := io.ReadAll(rec.Result().Body)
		return rec.Code, string(b)
	}
	fill := strings.NewReplacer("{id}", "IL-0049", "{term}", "coredns", "{slug}", c.Cases[0].OrgSlug)
	current := regexp.MustCompile(`<a href="([^"]*)" aria-current="page">`)
	var navPaths []string
	for _, item := range navItems() {
		navPaths = append(navPaths, item.Path)
	}
	for _, p := range sitePages {
		method, path, _ := strings.Cut(p.route, " ")
		if method != http.MethodGet || strings.Contains(path, "{$}") && path != "/{$}" {
			continue
		}
		path = fill.Replace(strings.TrimSuffix(path, "{$}"))
		for _, prefix := range []string{"", "/en"} {
			target := prefix + path
			if target == "" {
				target = "/"
			}
			code, body := get(target)
			if p.desk {
				if code != http.StatusNotFound {
					t.Errorf("%s: a desk page answers %d without a desk", target, code)
				}
				continue
			}
			if code != http.StatusOK {
				t.Errorf("%s: %d", target, code)
				continue
			}
			if p.template == "" {
				continue
			}
			m := current.FindStringSubmatch(body)
			switch {
			case p.nav == "" || p.nav == "home":
				if m != nil && m[1] != prefix+"/" {
					t.Errorf("%s: the navigation marks %s current; the page declares none", target, m[1])
				}
			case m == nil:
				t.Errorf("%s: no navigation item is current; the page declares %q", target, p.nav)
			case !strings.HasSuffix(m[1], navPathOf(p.nav)):
				t.Errorf("%s: the navigation marks %s current, want %s", target, m[1], navPathOf(p.nav))
			}
			for _, np := range navPaths {
				if !strings.Contains(body, `href="`+prefix+np+`"`) {
					t.Errorf("%s: the navigation bar lacks %s", target, np)
				}
			}
		}
	}
	_, sm := get("/sitemap.xml")
	for _, p := range sitePages {
		loc := "<loc>https://x.example" + routePath(p.route) + "</loc>"
		if p.sitemap != strings.Contains(sm, loc) {
			t.Errorf("sitemap lists %s: %v, declared %v", routePath(p.route), !p.sitemap, p.sitemap)
		}
	}

	// With a desk, its pages answer, and the desk marks no item current.
	withDesk, err := New(ix.Public(), Options{BaseURL: "https://x.example", Desk: &Desk{Corrections: nopCorrections{}, Cases: ix.All(), Token: "a-long-enough-token-for-the-test"}})
	if err != nil {
		t.Fatal(err)
	}
	dmux := http.NewServeMux()
	withDesk.Install(dmux)
	rec := httptest.NewRecorder()
	dmux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/desk/login", nil))
	if rec.Code != http.StatusOK || current.MatchString(rec.Body.String()) {
		t.Errorf("/desk/login: %d, and an item is current: %v", rec.Code, current.FindString(rec.Body.String()))
	}
}

func navPathOf(nav string) string {
	for _, item := range navItems() {
		if item.Key == nav {
			return item.Path
		}
	}
	return "(no item " + nav + ")"
}

// nopCorrections is a correction store that keeps nothing: the desk's
// pages need one to answer.
type nopCorrections struct{}

func (nopCorrections) AddCorrection(context.Context, *incidentlib.Correction) (int64, error) {
	return 1, nil
}
func (nopCorrections) Corrections(context.Context, string, int) ([]incidentlib.Correction, error) {
	return nil, nil
}
func (nopCorrections) CloseCorrection(context.Context, int64, string, string) error { return nil }
