package cli_test

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/locale"
)

func embeddedCase(t *testing.T, id string) (*corpus.Corpus, *incidentlib.Case) {
	t.Helper()
	c, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	k := c.Case(id)
	if k == nil || len(k.Timeline.Events) == 0 || len(k.Remediation) == 0 {
		t.Fatalf("%s should exist with timeline events and remediation", id)
	}
	return c, k
}

// TestShowHasEverySection checks that `show` prints every section of the
// table that has a place of its own and a text in IL-0049, in table order,
// with its text. (An optional section the case leaves empty has no
// heading: view's TestCaseLayoutHasEverySection checks the layout that
// `show` prints with every section filled.)
func TestShowHasEverySection(t *testing.T) {
	c, k := embeddedCase(t, "IL-0049")
	for _, lang := range []string{"ko", "en"} {
		code, out, errs := run(t, "", "show", k.ID, "--lang", lang, "--dir", "../..")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		last, n := -1, 0
		for _, s := range incidentlib.Sections {
			heading := "\n## " + locale.T(lang, s.Words) + "\n"
			switch s.Layout {
			case incidentlib.LayoutCause:
				heading = "\n## " + locale.T(lang, "cause") + "\n"
			case incidentlib.LayoutProse, incidentlib.LayoutItems, incidentlib.LayoutTimeline, incidentlib.LayoutSources:
			default:
				continue
			}
			if s.Layout == incidentlib.LayoutProse && s.Chips == "" && s.Text(k).EN == "" && s.Text(k).KO == "" {
				if strings.Contains(out, heading) {
					t.Errorf("%s: show prints the heading of %s, which IL-0049 leaves empty", lang, s.Key)
				}
				continue
			}
			n++
			i := strings.Index(out, heading)
			if i < 0 {
				t.Errorf("%s: show lacks the heading of %s (%q)", lang, s.Key, heading)
				continue
			}
			if i < last {
				t.Errorf("%s: %s is out of the table's order", lang, s.Key)
			}
			last = i
			for _, text := range s.In(k, c.Vocab, lang) {
				first, _, _ := strings.Cut(text, "\n")
				if !strings.Contains(out[i:], first) {
					t.Errorf("%s: show lacks the text of %s: %q", lang, s.Key, first)
				}
			}
		}
		if n < 8 {
			t.Errorf("only %d sections with a place of their own", n)
		}
	}
}

// TestCSVHasEverySection checks that CSV export gives a column for every
// section the table marks, with the case's value.
func TestCSVHasEverySection(t *testing.T) {
	c, k := embeddedCase(t, "IL-0049")
	code, out, errs := run(t, "", "export", "--format", "csv", "--dir", "../..")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var row []string
	for _, r := range rows[1:] {
		if r[0] == k.ID {
			row = r
		}
	}
	if row == nil {
		t.Fatalf("no row for %s", k.ID)
	}
	n := 0
	for _, s := range incidentlib.Sections {
		if !s.CSV {
			continue
		}
		want := map[string]string{}
		switch s.Kind {
		case incidentlib.Prose:
			want[s.Key+"_en"], want[s.Key+"_ko"] = s.Text(k).EN, s.Text(k).KO
		case incidentlib.Terms:
			want[s.Key] = strings.Join(s.Terms(k), ";")
		default:
			want[s.Key] = strings.Join(s.In(k, c.Vocab, "en"), ";")
		}
		for name, v := range want {
			n++
			i, ok := col[name]
			if !ok {
				t.Errorf("CSV has no column %s for section %s", name, s.Key)
				continue
			}
			if row[i] != v {
				t.Errorf("CSV %s = %q, want %q", name, row[i], v)
			}
		}
	}
	if n == 0 {
		t.Fatal("no section is exported")
	}
}
