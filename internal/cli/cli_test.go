package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/incidentlib/incidentlib/internal/cli"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/library"
	"github.com/incidentlib/incidentlib/internal/search"
	"github.com/incidentlib/incidentlib/internal/store/sqlite"
)

func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

const fixtures = "../corpus/testdata"

func TestValidateRepositoryCorpus(t *testing.T) {
	code, out, errs := run(t, "", "validate", "../..")
	if code != 0 {
		t.Fatalf("validate exited %d:\n%s%s", code, out, errs)
	}
	last := strings.TrimSpace(out)
	if !strings.HasSuffix(last, "0 problems") || !strings.Contains(last, "valid cases of") {
		t.Fatalf("last line = %q", last)
	}
}

func TestValidateBrokenExitsOne(t *testing.T) {
	code, out, _ := run(t, "", "validate", filepath.Join(fixtures, "broken/unknown_field"))
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := filepath.Join(fixtures, "broken/unknown_field/cases/IL-9001.yaml") + `:3: unknown field "colour"`
	if !strings.HasPrefix(lines[0], want) {
		t.Errorf("first line = %q, want prefix %q", lines[0], want)
	}
	if lines[len(lines)-1] != "1 valid cases of 2 case files, 1 problems" {
		t.Errorf("last line = %q", lines[len(lines)-1])
	}
}

func TestValidateMissingDir(t *testing.T) {
	code, _, errs := run(t, "", "validate", "/nonexistent")
	if code != 2 || !strings.Contains(errs, "has no cases/ folder") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestShowJSONHasSeedKeys(t *testing.T) {
	code, out, errs := run(t, "", "show", "IL-9001", "--json", "--dir", filepath.Join(fixtures, "valid"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "org", "org_slug", "date", "date_kind", "title", "summary", "symptoms_text", "trigger", "detection", "lessons", "domain", "symptoms", "root_cause", "components", "contributing", "impact", "severity", "timeline", "remediation", "action_items", "sources", "docs", "related", "recurrence_of", "review", "updated_at", "url"} {
		if _, ok := m[k]; !ok {
			t.Errorf("show --json lacks %q", k)
		}
	}
	if m["url"] != "http://localhost:8080/cases/IL-9001" {
		t.Errorf("url = %v", m["url"])
	}
}

func TestShowPageSections(t *testing.T) {
	for _, tc := range []struct {
		lang string
		want []string
	}{
		{"ko", []string{"IL-9001 · Example Org · 2021-03-04 (발생일)", "아직 사람이 검토하지 않은", "심각도: –", "영향 범위: 픽스처 범위", "영향 사용자: –", "감지까지: 4분", "복구까지: –", "## 증상", "## 원인", "촉발", "## 감지", "## 조치", "## 후속 조치", "## 교훈", "## 출처"}},
		{"en", []string{"(incident date)", "Not yet reviewed", "Severity: –", "Scope: a fixture", "Users affected: –", "Time to detect: 4m", "## Symptoms", "## Cause", "Trigger", "## Lessons", "## Sources"}},
	} {
		code, out, errs := run(t, "", "show", "il-9001", "--lang", tc.lang, "--dir", filepath.Join(fixtures, "valid"))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		last := -1
		for _, w := range tc.want {
			i := strings.Index(out, w)
			if i < 0 {
				t.Errorf("%s page lacks %q:\n%s", tc.lang, w, out)
				continue
			}
			if i < last {
				t.Errorf("%s page: %q out of order", tc.lang, w)
			}
			last = i
		}
	}
	if code, _, errs := run(t, "", "show", "IL-0000", "--dir", filepath.Join(fixtures, "valid")); code != 2 || !strings.Contains(errs, `no case "IL-0000"`) {
		t.Errorf("unknown id: exit %d, %q", code, errs)
	}
}

func copyCorpus(t *testing.T, from string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "cases"), 0o755)
	data, err := os.ReadFile(filepath.Join(from, "vocab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "vocab.yaml"), data, 0o644)
	return dir
}

// TestExportImportExport checks that the JSON form loses nothing: the whole
// corpus exported, imported into an empty folder and exported again gives
// the same bytes, in every format.
func TestExportImportExport(t *testing.T) {
	for _, format := range []string{"json", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			code, first, errs := run(t, "", "export", "--format", format, "--dir", "../..")
			if code != 0 {
				t.Fatalf("export: %d %s", code, errs)
			}
			dir := copyCorpus(t, "../..")
			in := filepath.Join(t.TempDir(), "in."+format)
			os.WriteFile(in, []byte(first), 0o644)
			if code, out, errs := run(t, "", "import", in, "--dir", dir); code != 0 {
				t.Fatalf("import: %d %s %s", code, out, errs)
			}
			code, second, errs := run(t, "", "export", "--format", format, "--dir", dir)
			if code != 0 {
				t.Fatalf("second export: %d %s", code, errs)
			}
			if first != second {
				t.Fatalf("export → import → export changed the output")
			}
			code1, csv1, errs1 := run(t, "", "export", "--format", "csv", "--dir", "../..")
			code2, csv2, errs2 := run(t, "", "export", "--format", "csv", "--dir", dir)
			if code1 != 0 || code2 != 0 {
				t.Fatalf("csv export: exit %d %s, then %d %s", code1, errs1, code2, errs2)
			}
			if csv1 != csv2 || strings.Count(csv1, "\n") < 2 {
				t.Fatalf("csv differs or is empty")
			}
		})
	}
}

func TestImportRefusesBadCases(t *testing.T) {
	dir := copyCorpus(t, "../..")
	code, good, errs := run(t, "", "export", "--format", "jsonl", "--dir", filepath.Join(fixtures, "valid"))
	if code != 0 {
		t.Fatalf("export of the valid fixtures: exit %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(good), "\n")
	if len(lines) < 2 || !strings.Contains(lines[1], `"root_cause":"capacity-limit"`) {
		t.Fatalf("the valid fixtures no longer give a second case with root_cause capacity-limit:\n%s", good)
	}
	bad := strings.Replace(lines[1], `"root_cause":"capacity-limit"`, `"root_cause":"gremlins"`, 1)
	input := lines[0] + "\n" + bad + "\n" + `{"id":"IL-9005","colour":"blue"}` + "\n"
	// Empty input is refused with exit 1 and nothing written.
	if code, out, _ := run(t, "", "import", "-", "--dir", dir); code != 1 || !strings.Contains(out, "the input is empty") {
		t.Errorf("import of empty input: exit %d\n%s", code, out)
	}
	code, out, _ := run(t, input, "import", "-", "--dir", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	for _, w := range []string{`stdin:2: case IL-9002: root_cause: unknown term "gremlins"`, `stdin:3: not a case in the API shape: json: unknown field "colour"`, "nothing written"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "cases")); len(entries) != 0 {
		t.Errorf("import wrote %d files despite problems", len(entries))
	}
}

// TestFmt: --check finds a hard-wrapped file, fmt --unwrap fixes it, and a
// file whose text a comment cut short is left untouched with exit 1.
func TestFmt(t *testing.T) {
	dir := t.TempDir()
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wrapped := filepath.Join(dir, "IL-9001.yaml")
	cut := filepath.Join(dir, "IL-9002.yaml")
	copyFile(fixtures+"/broken/hard_wrap/cases/IL-9001.yaml", wrapped)
	copyFile(fixtures+"/broken/comment_cut/cases/IL-9001.yaml", cut)
	if code, out, _ := run(t, "", "fmt", "--check", "--unwrap", wrapped); code != 1 || !strings.Contains(out, wrapped) {
		t.Errorf("fmt --check on a wrapped file: exit %d\n%s", code, out)
	}
	if code, out, errs := run(t, "", "fmt", "--unwrap", wrapped); code != 0 {
		t.Fatalf("fmt --unwrap: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := run(t, "", "fmt", "--check", "--unwrap", wrapped); code != 0 {
		t.Errorf("the file is not canonical after fmt: exit %d\n%s", code, out)
	}
	b, _ := os.ReadFile(wrapped)
	if !strings.Contains(string(b), "First paragraph of a fixture, wrapped by hand.") {
		t.Errorf("the paragraph was not joined:\n%s", b)
	}
	before, _ := os.ReadFile(cut)
	code, out, _ := run(t, "", "fmt", "--unwrap", cut)
	after, _ := os.ReadFile(cut)
	if code != 1 || !strings.Contains(out, "cut short by a YAML comment") || string(before) != string(after) {
		t.Errorf("fmt on a cut file: exit %d, changed %v\n%s", code, string(before) != string(after), out)
	}
}

// TestHelpListsEveryCommand: the command list in cli.go is the one place a
// command is added; help shows each of them with its summary.
func TestHelpListsEveryCommand(t *testing.T) {
	code, out, errs := run(t, "", "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d %s", code, errs)
	}
	for _, name := range []string{"validate", "fmt", "search", "similar", "topic", "show", "stats", "export", "import", "serve"} {
		if !regexp.MustCompile(`(?m)^  ` + name + ` +\S`).MatchString(out) {
			t.Errorf("help does not list %s:\n%s", name, out)
		}
	}
}

// TestDirNeverIgnored: fmt given files and --dir refuses rather than format
// the files and ignore the folder.
func TestDirNeverIgnored(t *testing.T) {
	code, _, stderr := run(t, "", "--dir", fixtures+"/valid", "fmt", "--check", fixtures+"/valid/cases/IL-9001.yaml")
	if code != 2 || !strings.Contains(stderr, "give one or the other") {
		t.Errorf("fmt FILE --dir: exit %d, %q; want 2 and a refusal", code, stderr)
	}
}

// TestImportIntoDatabase loads cases into a SQLite file: one bad case among
// 300 writes nothing; the same 300 without it are all there afterwards, with
// the corpus seeded beside them and related ids checked against it.
func TestImportIntoDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bulk.db")
	code, one, errs := run(t, "", "show", "--json", "IL-0049")
	if code != 0 {
		t.Fatalf("show IL-0049: %d %s", code, errs)
	}
	var c map[string]any
	if err := json.Unmarshal([]byte(one), &c); err != nil {
		t.Fatal(err)
	}
	var good, bad strings.Builder
	for i := 0; i < 40; i++ {
		c["id"] = fmt.Sprintf("IL-%d", 20000+i)
		c["related"] = []string{"IL-0049"}
		b, _ := json.Marshal(c)
		good.Write(b)
		good.WriteByte('\n')
		if i == 20 {
			c["related"] = []string{"IL-99999"}
			b, _ = json.Marshal(c)
		}
		bad.Write(b)
		bad.WriteByte('\n')
	}
	code, out, _ := run(t, bad.String(), "import", "--db", db, "-")
	if code != 1 || !strings.Contains(out, "stdin:21: case IL-20020: related case IL-99999 does not exist") || !strings.Contains(out, "nothing written: 1 problems") {
		t.Fatalf("import with one bad case: exit %d\n%s", code, out)
	}
	count := func() int {
		st, err := sqlite.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		all, err := st.Cases(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, k := range all {
			if strings.HasPrefix(k.ID, "IL-20") && len(k.ID) == 8 {
				n++
			}
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("%d cases of a refused import are in the database", n)
	}
	// Several files load as one: a good first file and the bad second one
	// (the same ids, so also each case twice) leave nothing.
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(first, []byte(good.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, []byte(bad.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "", "import", "--db", db, first, second)
	if code != 1 || !strings.Contains(out, second+":21: case IL-20020: related case IL-99999 does not exist") ||
		!strings.Contains(out, second+":1: case IL-20000 appears twice in the input (first at "+first+":1)") {
		t.Fatalf("import of two files, the second with a bad case: exit %d\n%s", code, out)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d cases of a refused two-file import are in the database", n)
	}
	code, out, errs = run(t, good.String(), "import", "--db", db, "-")
	if code != 0 || !strings.Contains(out, "40 cases loaded into sqlite:"+db+" (40 new, 0 replaced)") {
		t.Fatalf("import: exit %d\n%s%s", code, out, errs)
	}
	if n := count(); n != 40 {
		t.Fatalf("%d of 40 loaded cases are in the database", n)
	}
	// The load leaves the search index beside the file, and a server's
	// start on the database loads it rather than building the index.
	if !strings.Contains(out, "search index written to "+db+".index") {
		t.Fatalf("import did not say it wrote the index:\n%s", out)
	}
	st, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	corp, err := corpus.LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	lib, _, err := library.OpenSnapshot(context.Background(), st, corp, slog.New(slog.NewTextHandler(&logs, nil)), db+".index")
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if !strings.Contains(logs.String(), "index loaded from its snapshot") {
		t.Fatalf("a start after the import built the index:\n%s", logs.String())
	}
	if res, err := lib.Public().Search(search.Query{Text: "IL-20007"}); err != nil || len(res.Hits) == 0 || res.Hits[0].Case.ID != "IL-20007" {
		t.Fatalf("the loaded index does not find an imported case: %v %v", res, err)
	}
	if code, _, errs := run(t, "", "import", "--db", db, "--database-url", "postgres://x", "-"); code != 2 || !strings.Contains(errs, "not both") {
		t.Errorf("--db with --database-url: exit %d %s", code, errs)
	}
}
