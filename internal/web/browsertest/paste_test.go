package browsertest

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/incidentlib/incidentlib/internal/locale"
)

// TestPasteALog types a two-line kubelet log into the search box, in both
// languages at desktop and phone widths, as a reader pasting it would: Enter
// starts a second line rather than sending the form, the box grows with
// its text, the button sends both lines, and the list page gives them back
// line for line, finds the PLEG case first and does not call the match
// weak. A paste no case answers then gets the weak-match note in the
// page's language. axe checks the box and the answers.
func TestPasteALog(t *testing.T) {
	e := needBrowser(t, true)
	ts, _ := startSite(t)
	p := &problems{}
	ctx := browser(t, e, p)
	line1 := `E1202 05:40:21.123456    2188 kubelet.go:2185] "Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m12.416s ago"`
	line2 := `I1202 05:40:22.002341    2188 kubelet_node_status.go:552] "Recording event message for node" event="NodeNotReady"`
	unanswered := "Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke \"com.acme.billing.Invoice.getTotal()\" because \"invoice\" is null\n    at com.acme.billing.InvoiceService.render(InvoiceService.java:88)"
	for _, lang := range []string{"ko", "en"} {
		prefix := map[string]string{"ko": "", "en": "/en"}[lang]
		for _, w := range widths {
			where := func(s string) string { return fmt.Sprintf("%s at %s px (%s)", s, w.name, lang) }
			setWidth(t, ctx, w.width, w.height, w.mobile)
			navigate(t, ctx, ts.URL+prefix+"/")
			empty := eval[float64](t, ctx, `document.querySelector('#q').getBoundingClientRect().height`)
			run(t, ctx, "type the paste", chromedp.SendKeys(chromedp.CSS("#q"), line1+"\n"+line2, chromedp.NodeVisible))
			if path := eval[string](t, ctx, `location.pathname`); path != prefix+"/" {
				t.Fatalf("%s: Enter in the box went to %s; it should start a line", where("home"), path)
			}
			if v := eval[string](t, ctx, `document.querySelector('#q').value`); v != line1+"\n"+line2 {
				t.Errorf("%s: the box holds %q, want the two lines", where("home"), v)
			}
			if full := eval[float64](t, ctx, `document.querySelector('#q').getBoundingClientRect().height`); full <= empty {
				t.Errorf("%s: the box is %.0f px high with two long lines, %.0f px empty; it should grow", where("home"), full, empty)
			}
			if o := eval[int](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); o > 0 {
				t.Errorf("%s: the page is %d px wider than the screen", where("home with a paste"), o)
			}
			if w.name == "1280" { // the results page below is checked at both widths
				axeClean(t, ctx, e, where("home with a paste"))
			}
			clickThrough(t, ctx, "form.search button[type=submit]")

			loc := run(t, ctx, "location", chromedp.Location())
			u, err := url.Parse(loc)
			if err != nil || u.Path != prefix+"/cases" {
				t.Fatalf("%s: the search went to %s", where("home"), loc)
			}
			// A form sends a textarea's lines with CR LF.
			if q := u.Query().Get("q"); q != line1+"\r\n"+line2 {
				t.Errorf("%s: the search sent q=%q, want the two lines", where("home"), q)
			}
			if v := eval[string](t, ctx, `document.querySelector('#q').value`); v != line1+"\n"+line2 {
				t.Errorf("%s: the list's box holds %q, want the two lines", where("results"), v)
			}
			if id := run(t, ctx, "first result", chromedp.Text(chromedp.CSS(".card-title .case-id"))); id != "IL-0425" {
				t.Errorf("%s: the first result is %s, want IL-0425", where("results"), id)
			}
			if n := eval[int](t, ctx, `document.querySelectorAll('.weak-note').length`); n != 0 {
				t.Errorf("%s: a paste whose case comes first is called weak", where("results"))
			}
			if o := eval[int](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); o > 0 {
				t.Errorf("%s: the page is %d px wider than the screen", where("results"), o)
			}
			axeClean(t, ctx, e, where("results"))
			if w.name == "1280" { // both widths, then back to 1280
				viewShots(t, ctx, e, "paste-"+lang)
			}

			// A paste the library cannot answer, sent from the list's box.
			run(t, ctx, "replace the paste", chromedp.SetValue(chromedp.CSS("#q"), unanswered))
			clickThrough(t, ctx, "form.search-list .search-row button")
			note := run(t, ctx, "weak note", chromedp.Text(chromedp.CSS(".weak-note")))
			if want := locale.T(lang, "list.no_close"); strings.TrimSpace(note) != want {
				t.Errorf("%s: the note is %q, want %q", where("unanswered paste"), note, want)
			}
			if v := eval[string](t, ctx, `document.querySelector('#q').value`); v != unanswered {
				t.Errorf("%s: the box holds %q, want the paste's two lines", where("unanswered paste"), v)
			}
			if w.name != "1280" {
				axeClean(t, ctx, e, where("unanswered paste"))
			}
			checkClean(t, p, where("paste"))
		}
	}
}
