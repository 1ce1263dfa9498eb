package checkindex_test

import (
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/checkindex"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

// TestBuiltInCitesCorpusCases holds every case the index cites to the
// corpus: a case page links each check back to its cases.
func TestBuiltInCitesCorpusCases(t *testing.T) {
	ix, err := checkindex.BuiltIn()
	if err != nil {
		t.Fatal(err)
	}
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, k := range c.Cases {
		have[k.ID] = true
	}
	all := ix.All()
	if len(all) == 0 {
		t.Fatal("the built-in index holds no check")
	}
	for _, ck := range all {
		for _, id := range ck.Cases {
			if !have[id] {
				t.Errorf("%s cites %s, which is not in the corpus", ck.ID, id)
			}
			found := false
			for _, x := range ix.ForCase(id) {
				found = found || x.ID == ck.ID
			}
			if !found {
				t.Errorf("ForCase(%s) leaves out %s, which cites it", id, ck.ID)
			}
		}
	}
	if got := ix.ForCase("IL-9999"); got != nil {
		t.Errorf("ForCase(IL-9999) = %v, want nil", got)
	}
}

func TestParseRefusesBadIndex(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"not_json":   {`{`, "regenerate it"},
		"no_id":      {`[{"severity":"low","title":{"en":"a","ko":"가"},"cases":["IL-0001"]}]`, "has no id"},
		"no_korean":  {`[{"id":"a","severity":"low","title":{"en":"a"},"cases":["IL-0001"]}]`, "English or Korean title"},
		"no_case":    {`[{"id":"a","severity":"low","title":{"en":"a","ko":"가"}}]`, "cites no case"},
		"unsorted":   {`[{"id":"b","title":{"en":"b","ko":"나"},"cases":["IL-0001"]},{"id":"a","title":{"en":"a","ko":"가"},"cases":["IL-0001"]}]`, "sorted by id"},
		"duplicated": {`[{"id":"a","title":{"en":"a","ko":"가"},"cases":["IL-0001"]},{"id":"a","title":{"en":"a","ko":"가"},"cases":["IL-0001"]}]`, "sorted by id"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := checkindex.Parse([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse(%s) = %v, want an error saying %q", tc.in, err, tc.want)
			}
		})
	}
}

// TestFromCatalogue reads the index from the catalogue's closing comment,
// and refuses a catalogue without one or with one left open.
func TestFromCatalogue(t *testing.T) {
	body, err := checkindex.Format([]checkindex.Check{
		{ID: "a", Severity: "low", Title: incidentlib.Text{EN: "A", KO: "가"}, Cases: []string{"IL-0001"}},
		{ID: "b", Severity: "high", Title: incidentlib.Text{EN: "B", KO: "나"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	md := "# checks\n\ntext\n\n" + checkindex.Open + "\n" + string(body) + "\n" + checkindex.Close + "\n"
	ix, err := checkindex.FromCatalogue([]byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if all := ix.All(); len(all) != 1 || all[0].ID != "a" || ix.ForCase("IL-0001")[0].Title.KO != "가" {
		t.Errorf("index %+v: want check a alone (b cites no case)", all)
	}
	for name, tc := range map[string]struct{ in, want string }{
		"no comment": {"# checks\n", "holds no index comment"},
		"open":       {checkindex.Open + "\n" + string(body) + "\n", "is not closed"},
		"bad json":   {checkindex.Open + "\n[{\n" + checkindex.Close + "\n", "regenerate it"},
	} {
		if _, err := checkindex.FromCatalogue([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
	}
	// A title holding the comment's end is escaped (JSON writes > as
	// \u003e), so the comment stays whole and reads back.
	b, err := checkindex.Format([]checkindex.Check{{ID: "a", Title: incidentlib.Text{EN: "ends -->", KO: "가"}, Cases: []string{"IL-0001"}}})
	if err != nil || strings.Contains(string(b), checkindex.Close) {
		t.Fatalf("Format: %s, %v", b, err)
	}
	ix, err = checkindex.FromCatalogue([]byte(checkindex.Open + "\n" + string(b) + "\n" + checkindex.Close + "\n"))
	if err != nil || ix.All()[0].Title.EN != "ends -->" {
		t.Errorf("read back: %+v, %v", ix, err)
	}
}
