package checkindex_test

import (
	"strings"
	"testing"

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
