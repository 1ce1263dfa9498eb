package corpus_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
)

func embeddedVocab(t testing.TB) *incidentlib.Vocab {
	t.Helper()
	data, err := os.ReadFile("../../vocab.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v, probs := corpus.ParseVocab("vocab.yaml", data)
	if probs != nil {
		t.Fatalf("vocab.yaml: %v", probs)
	}
	return v
}

func loadDir(t *testing.T, dir string) *corpus.Result {
	t.Helper()
	res, err := corpus.Load(os.DirFS(dir), incidentlib.CorpusFS())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestValidFixture(t *testing.T) {
	res := loadDir(t, "testdata/valid")
	if len(res.Problems) > 0 {
		t.Fatalf("problems in the valid fixture:\n%v", res.Problems)
	}
	if got := len(res.Corpus.Cases); got != 2 {
		t.Fatalf("valid cases = %d, want 2", got)
	}
}

// TestBrokenFiles holds one broken file per rule of validate. Each must give
// its problem at the right file and line, and only the problems expected.
func TestBrokenFiles(t *testing.T) {
	tests := []struct {
		dir  string
		file string
		line int
		want []string // substrings, one per expected problem in this file
	}{
		{"unknown_field", "IL-9001.yaml", 3, []string{`unknown field "colour" in the case; expected one of: id, org`}},
		{"missing_required", "IL-9001.yaml", 1, []string{`missing required field "trigger"`}},
		{"wrong_type", "IL-9001.yaml", 6, []string{`domain is the value "kubernetes"; expected a list`}},
		{"wrong_type_text", "IL-9001.yaml", 12, []string{`title is the value "just a string"; expected a mapping with keys en, ko`}},
		{"id_format", "IL-9001.yaml", 1, []string{`id "IL-91" is not valid; expected IL- and four digits`, `does not match the file name`}},
		{"id_duplicate", "IL-9001.yaml", 1, []string{`id IL-9001 is already used by cases/IL-9001-copy.yaml`}},
		{"filename_mismatch", "IL-9001.yaml", 1, []string{`id "IL-9003" does not match the file name "IL-9001.yaml"; name the file IL-9003.yaml`}},
		{"unknown_term", "IL-9001.yaml", 9, []string{`components: unknown term "flux-capacitor"; expected a term of vocab.yaml components`}},
		{"bad_date", "IL-9001.yaml", 4, []string{`date "2021-02-30" is not a valid date; expected YYYY-MM-DD (or YYYY-MM`}},
		{"bad_date_kind", "IL-9001.yaml", 5, []string{`date_kind "happened" is not valid; expected incident or published`}},
		{"bad_updated_at", "IL-9001.yaml", 62, []string{`updated_at "yesterday" is not an RFC 3339 time`}},
		{"bad_duration", "IL-9001.yaml", 41, []string{`timeline.detected_after "four minutes" is not a duration`}},
		{"bad_url", "IL-9001.yaml", 49, []string{`sources[0].url "example.com/postmortem" is not an absolute http(s) URL`}},
		{"bad_docs_url", "IL-9001.yaml", 55, []string{`docs[0] "ftp://example.com/a" is not an absolute http(s) URL`}},
		{"related_missing", "IL-9001.yaml", 56, []string{`related case IL-9999 does not exist`}},
		{"related_self", "IL-9001.yaml", 56, []string{`related lists the case itself (IL-9001)`}},
		{"recurrence_missing", "IL-9001.yaml", 57, []string{`recurrence_of names IL-9998, which does not exist`}},
		{"missing_korean", "IL-9001.yaml", 31, []string{`detection has no Korean text`}},
		{"missing_english", "IL-9001.yaml", 34, []string{`lessons has no English text`}},
		{"no_sources", "IL-9001.yaml", 48, []string{`a case needs at least one source`}},
		{"unknown_language", "IL-9001.yaml", 27, []string{`unknown field "fr" in trigger; expected one of: en, ko`}},
		{"malformed_yaml", "IL-9001.yaml", 25, []string{`malformed YAML: mapping values are not allowed in this context`}},
		{"tab_indent", "IL-9001.yaml", 37, []string{`a tab is used for indentation; indent with spaces`}},
		{"review_half", "IL-9001.yaml", 59, []string{`review.reviewed_at and review.reviewed_by go together`}},
		{"duplicate_key", "IL-9001.yaml", 12, []string{`field "severity" appears twice`}},
		{"bom", "IL-9001.yaml", 1, []string{`byte-order mark`}},
		{"empty", "IL-9001.yaml", 1, []string{`the file is empty`}},
		{"invalid_utf8", "IL-9001.yaml", 2, []string{`not valid UTF-8`}},
		{"comment_cut", "IL-9001.yaml", 25, []string{`trigger.en is cut short by a YAML comment: in a plain value " #" starts a comment, so only "A deploy (ticket" is kept`}},
		{"hard_wrap", "IL-9001.yaml", 16, []string{`summary.en breaks a line inside a paragraph (its line 2)`}},
		{"self_reference", "IL-9001.yaml", 31, []string{`detection.en speaks of how the case was written ("available to us")`}},
		{"no_hangul", "IL-9001.yaml", 35, []string{`lessons.ko has no Hangul`}},
		{"source_title_unknown", "IL-9001.yaml", 50, []string{`sources[0].title is "unknown"; give the write-up's own title`}},
		{"source_no_title", "IL-9001.yaml", 49, []string{`missing required field "title" in sources[0]`}},
		{"alias", "IL-9001.yaml", 12, []string{`title uses a YAML anchor or alias`, `trigger uses a YAML anchor or alias`}},
		{"impact_no_korean", "IL-9001.yaml", 37, []string{`impact.scope has no Korean text; every text needs both en and ko`}},
		{"impact_plain_string", "IL-9001.yaml", 37, []string{`impact.scope is the value "a fixture"; expected a mapping with keys en, ko (the impact facts are texts in both languages: write en: and ko: under impact.scope`}},
		{"impact_unknown_mismatch", "IL-9001.yaml", 38, []string{`impact.users.en is unknown but impact.users.ko is "모든 사용자"; where the write-up does not say, write 알 수 없음 in Korean`}},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.dir] = true
		t.Run(tt.dir, func(t *testing.T) {
			t.Parallel()
			res := loadDir(t, filepath.Join("testdata/broken", tt.dir))
			var got []corpus.Problem
			for _, p := range res.Problems {
				if p.File == "cases/"+tt.file {
					got = append(got, p)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems in %s, want %d:\n%v", len(got), tt.file, len(tt.want), corpus.Problems(got))
			}
			if got[0].Line != tt.line {
				t.Errorf("first problem at line %d, want %d: %s", got[0].Line, tt.line, got[0])
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i].Msg, w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i].Msg, w)
				}
			}
			if res.Corpus.Case("IL-9001") != nil && tt.dir != "id_duplicate" {
				t.Errorf("the broken case was accepted into the corpus")
			}
		})
	}
	t.Run("crlf", func(t *testing.T) {
		res := loadDir(t, "testdata/broken/crlf")
		if len(res.Problems) == 0 || res.Problems[0].Line != 1 || !strings.Contains(res.Problems[0].Msg, "CRLF") {
			t.Fatalf("want a CRLF problem at line 1, got %v", res.Problems)
		}
	})
	t.Run("two_problems_both_listed", func(t *testing.T) {
		res := loadDir(t, "testdata/broken/two_problems")
		want := []string{`cases/IL-9001.yaml:2: unknown field "weather"`, `cases/IL-9001.yaml:12: severity: unknown term "apocalyptic"`}
		if len(res.Problems) != 2 {
			t.Fatalf("got %v, want two problems", res.Problems)
		}
		for i, w := range want {
			if !strings.HasPrefix(res.Problems[i].String(), w) {
				t.Errorf("problem %d = %s, want prefix %s", i, res.Problems[i], w)
			}
		}
	})
	seen["crlf"], seen["two_problems"] = true, true
	dirs, _ := os.ReadDir("testdata/broken")
	for _, d := range dirs {
		if !seen[d.Name()] {
			t.Errorf("testdata/broken/%s has no test", d.Name())
		}
	}
}

func TestHugeField(t *testing.T) {
	base, err := os.ReadFile("testdata/valid/cases/IL-9001.yaml")
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("a", 10<<20)
	big := bytes.Replace(base, []byte("A fixture trigger."), []byte(huge), 1)
	_, _, probs := corpus.ParseCase("cases/IL-9001.yaml", big, embeddedVocab(t))
	if len(probs) != 1 || probs[0].Line != 1 || !strings.Contains(probs[0].Msg, "at most 1048576 bytes") {
		t.Fatalf("10 MB field: got %v", probs)
	}
	// Just under the file limit but over the field limit.
	field := strings.Repeat("b", corpus.MaxTextLen+1)
	med := bytes.Replace(base, []byte("A fixture trigger."), []byte(field), 1)
	_, _, probs = corpus.ParseCase("cases/IL-9001.yaml", med, embeddedVocab(t))
	if len(probs) != 1 || probs[0].Line != 25 || !strings.Contains(probs[0].Msg, "trigger.en is 65537 bytes long") {
		t.Fatalf("long field: got %v", probs)
	}
}

// keyPaths lists every key path of a JSON value: "title.en", "sources[].url".
func keyPaths(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			keyPaths(val, p, out)
		}
	case []any:
		for _, e := range x {
			keyPaths(e, prefix+"[]", out)
		}
	}
}

// TestCaseKeysMatchSeed marshals a case and compares its key paths with the
// JSON of the seed case page (seeds/002), recorded in testdata/seed002-keys.txt.
func TestCaseKeysMatchSeed(t *testing.T) {
	res := loadDir(t, "testdata/valid")
	c := *res.Corpus.Case("IL-9001")
	c.URL = "http://localhost:8080/cases/IL-9001"
	c.Remediation = []incidentlib.Item{{Text: incidentlib.Text{EN: "x", KO: "y"}}}
	c.ActionItems = c.Remediation
	arch := "https://web.archive.org/x"
	c.Sources[0].Archived = &arch
	c.Sources[0].Publisher = "Example Org"
	c.Timeline.Events = []incidentlib.Event{{At: "22:13 EET", Text: incidentlib.Text{EN: "x", KO: "y"}}}
	data, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(data, &v)
	got := map[string]bool{}
	keyPaths(v, "", got)
	wantData, err := os.ReadFile("testdata/seed002-keys.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, l := range strings.Fields(string(wantData)) {
		want[l] = true
	}
	// When the shared seeds are beside the repository, check the recorded
	// list against the seed itself; CI has them and requires the check.
	t.Run("recorded_keys_are_the_seeds", func(t *testing.T) {
		dir := os.Getenv("INCIDENTLIB_SEEDS")
		if dir == "" {
			dir = "../../../shared/seeds" // ../shared beside the repository
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "002_*.txt"))
		if len(matches) != 1 {
			msg := fmt.Sprintf("want one seed 002_*.txt in %s, found %d; set INCIDENTLIB_SEEDS to the seeds folder", dir, len(matches))
			if os.Getenv("INCIDENTLIB_REQUIRE_SEEDS") == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
		raw, err := os.ReadFile(matches[0])
		if err != nil {
			t.Fatal(err)
		}
		var seed any
		if err := json.Unmarshal(raw, &seed); err != nil {
			t.Fatalf("seed 002 is not JSON: %v", err)
		}
		fromSeed := map[string]bool{}
		keyPaths(seed, "", fromSeed)
		if diff := cmp.Diff(sorted(fromSeed), sorted(want)); diff != "" {
			t.Errorf("testdata/seed002-keys.txt differs from the seed (-seed +recorded):\n%s", diff)
		}
	})
	// The case format extends the seed with the keys docs/CASE-FORMAT.md
	// lists under "Keys beyond the seed" (a key and the keys under it);
	// every other key is the seed's.
	ext := extensionKeys(t)
	for k := range got {
		for _, e := range ext {
			if k == e || strings.HasPrefix(k, e+".") || strings.HasPrefix(k, e+"[]") {
				want[k] = true
			}
		}
	}
	for _, e := range ext {
		if !got[e] && !want[e] {
			t.Errorf("docs/CASE-FORMAT.md lists %s beyond the seed, but no case has it", e)
		}
	}
	if diff := cmp.Diff(sorted(want), sorted(got)); diff != "" {
		t.Errorf("case JSON keys differ from seeds/002 and its documented extensions (-want +case):\n%s", diff)
	}
}

// extensionKeys are the keys docs/CASE-FORMAT.md lists in its section
// "Keys beyond the seed", each the first code span of a list item.
func extensionKeys(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/CASE-FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n## Keys beyond the seed\n")
	if !ok {
		t.Fatal(`docs/CASE-FORMAT.md has no section "## Keys beyond the seed"`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var keys []string
	for _, line := range strings.Split(sec, "\n") {
		if rest, ok := strings.CutPrefix(line, "- `"); ok {
			if k, _, ok := strings.Cut(rest, "`"); ok {
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 {
		t.Fatal("docs/CASE-FORMAT.md lists no keys beyond the seed")
	}
	return keys
}

func sorted(m map[string]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// TestMarshalRoundTrip writes every case of the corpus as YAML and reads it
// back: the case must come back unchanged and without problems.
func TestMarshalRoundTrip(t *testing.T) {
	res, err := corpus.Load(incidentlib.CorpusFS(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := append([]*incidentlib.Case{}, res.Corpus.Cases...)
	fix := loadDir(t, "testdata/valid")
	cases = append(cases, fix.Corpus.Cases...)
	tricky := *fix.Corpus.Case("IL-9001")
	tricky.Summary.EN = "  leading spaces and: colons\n\n- a dash line\ttab  \n- trailing spaces   "
	tricky.Title.KO = "\"따옴표\" 와 #해시 : 콜론이 있었다"
	cases = append(cases, &tricky)
	for _, c := range cases {
		y, err := corpus.MarshalCase(c)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		got, _, probs := corpus.ParseCase("cases/"+c.ID+".yaml", y, res.Corpus.Vocab)
		for _, p := range probs {
			if !strings.Contains(p.Msg, "related") {
				t.Errorf("%s: %s\n%s", c.ID, p, y)
			}
		}
		want := *c
		want.Summary.EN = strings.TrimSpace(want.Summary.EN)
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("%s changed in a YAML round trip (-want +got):\n%s", c.ID, diff)
		}
	}
}

func TestVocabProblems(t *testing.T) {
	fsys := fstest.MapFS{
		"vocab.yaml": {Data: []byte("domain:\n  - id: Bad_Id\n    label: {en: X}\n    description: {en: x, ko: y}\n")},
		"cases":      {Mode: os.ModeDir},
	}
	res, err := corpus.Load(fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, p := range res.Problems {
		msgs = append(msgs, p.String())
	}
	joined := strings.Join(msgs, "\n")
	for _, w := range []string{`vocab.yaml:1: missing required field "components"`, `vocab.yaml:2: term id "Bad_Id" is not valid`, `vocab.yaml:3: domain[0].label has no Korean text`} {
		if !strings.Contains(joined, w) {
			t.Errorf("want %q in:\n%s", w, joined)
		}
	}
}

// TestIDsPastNineThousand holds ids with more than four digits to the same
// rules as four, and every order to their numbers: the cases, and the
// problems validate prints (IL-9999 before IL-10000, not byte order).
func TestIDsPastNineThousand(t *testing.T) {
	base, err := os.ReadFile("testdata/valid/cases/IL-9001.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	put := func(id, related string) {
		data := strings.ReplaceAll(string(base), "IL-9001", id)
		data = strings.Replace(data, "related: [IL-9002]", "related: ["+related+"]", 1)
		data = strings.Replace(data, "https://example.com/postmortem", "https://example.com/postmortem#"+id, 1)
		fsys["cases/"+id+".yaml"] = &fstest.MapFile{Data: []byte(data)}
	}
	for _, id := range []string{"IL-10000", "IL-9999", "IL-123456", "IL-0100"} {
		put(id, "")
	}
	// Two with a problem each, and one id with a leading zero past four digits.
	put("IL-10001", "IL-9003")
	put("IL-9998", "IL-9003")
	put("IL-00049", "")
	res, err := corpus.Load(fsys, incidentlib.CorpusFS())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range res.Corpus.Cases {
		ids = append(ids, c.ID)
	}
	if want := []string{"IL-0100", "IL-9999", "IL-10000", "IL-123456"}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("cases in order %v, want %v", ids, want)
	}
	var files []string
	for _, p := range res.Problems {
		if len(files) == 0 || files[len(files)-1] != p.File {
			files = append(files, p.File)
		}
	}
	if want := []string{"cases/IL-9998.yaml", "cases/IL-10001.yaml", "cases/IL-00049.yaml"}; fmt.Sprint(files) != fmt.Sprint(want) {
		t.Errorf("problems in file order %v, want %v:\n%v", files, want, res.Problems)
	}
	if !strings.Contains(fmt.Sprint(res.Problems), `id "IL-00049" is not valid`) {
		t.Errorf("IL-00049 (a leading zero past four digits) is not refused:\n%v", res.Problems)
	}
}

// TestCaseFilesInOrder: every case file is read (the files are parsed
// side by side) and counted, a file in cases/ that is not a case is
// reported, hidden files and folders are passed over, and the problems
// come in the files' order (ids by number).
func TestCaseFilesInOrder(t *testing.T) {
	fsys := fstest.MapFS{
		"cases/.hidden.yaml":  {Data: []byte("not: read")},
		"cases/notes.txt":     {Data: []byte("x")},
		"cases/sub/x.yaml":    {Data: []byte("not: read")},
		"cases/IL-9003.yaml":  {Data: []byte("id: [")},
		"cases/IL-9004.yaml":  {Data: []byte("id: IL-9004\n")},
		"cases/IL-10000.yaml": {Data: []byte("id: [")},
	}
	res, err := corpus.Load(fsys, incidentlib.CorpusFS())
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 3 {
		t.Errorf("%d case files read, want 3", res.Files)
	}
	var files []string
	for _, p := range res.Problems {
		if len(files) == 0 || files[len(files)-1] != p.File {
			files = append(files, p.File)
		}
	}
	if want := []string{"cases/IL-9003.yaml", "cases/IL-9004.yaml", "cases/IL-10000.yaml", "cases/notes.txt"}; strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("problems by file %q, want %q:\n%v", files, want, res.Problems)
	}
}
