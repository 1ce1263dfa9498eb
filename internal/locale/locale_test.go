package locale_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/locale"
)

// noHangul are the Korean words that are rightly written without Hangul.
var noHangul = map[string]bool{
	"unknown":  true, // a dash
	"api.json": true, // a name: JSON API
}

func verbs(s string) int { return strings.Count(s, "%") - 2*strings.Count(s, "%%") }

// TestTablesHaveTheSameKeys: every key is in both tables with a text that
// is not empty and takes the same arguments; Korean texts hold Hangul.
func TestTablesHaveTheSameKeys(t *testing.T) {
	ko, en := locale.Keys(locale.KO), locale.Keys(locale.EN)
	if len(ko) < 200 || len(en) < 200 {
		t.Fatalf("%d Korean and %d English keys: the tables are not read", len(ko), len(en))
	}
	for _, k := range en {
		kk := k
		if other, ok := strings.CutSuffix(k, ".one"); ok {
			kk = other + ".other" // Korean has no singular: its .other serves
			if !locale.Has(locale.EN, kk) {
				t.Errorf("English %q has no .other form", k)
			}
		}
		if !locale.Has(locale.KO, kk) {
			t.Errorf("key %q has no Korean text", k)
		}
	}
	for _, k := range ko {
		if strings.HasSuffix(k, ".one") {
			t.Errorf("Korean %q: Korean takes only the .other form", k)
		}
		if !locale.Has(locale.EN, k) {
			t.Errorf("key %q has no English text", k)
		}
	}
	for _, k := range ko {
		kt, et := locale.T(locale.KO, k), locale.T(locale.EN, k)
		if strings.TrimSpace(kt) == "" || strings.TrimSpace(et) == "" {
			t.Errorf("key %q is empty in a language: %q / %q", k, kt, et)
		}
		if verbs(kt) != verbs(et) {
			t.Errorf("key %q: Korean takes %d arguments, English %d", k, verbs(kt), verbs(et))
		}
		if hangul := strings.ContainsFunc(kt, func(r rune) bool { return unicode.Is(unicode.Hangul, r) }); hangul == noHangul[k] {
			if hangul {
				t.Errorf("key %q is listed as without Hangul but has it: %q", k, kt)
			} else {
				t.Errorf("Korean %q has no Hangul: %q", k, kt)
			}
		}
	}
}

// keyRe finds keys in templates ({{t "k"}}, {{tf "k" …}}, (t "k")) and in Go
// (T(lang, "k"), locale.Tf(l, "k", …), locale.N(lang, "k", n),
// locale.Nf(lang, "k", n, …)).
var keyRe = regexp.MustCompile(`\{\{-?\s*(?:t|tf|n)\s+"([^"]+)"|\(t "([^"]+)"\)|\b(?:T|Tf|N|Nf)\((?:lang|l|locale\.KO|locale\.EN|"ko"|"en"), "([^"]+)"`)

// TestEveryUsedKeyExists scans the templates and the Go code of every face
// that speaks to people for the keys they use, and checks that each has a
// text in both tables; keys built at run time are listed here.
func TestEveryUsedKeyExists(t *testing.T) {
	root := "../.."
	var files []string
	for _, dir := range []string{"internal/web", "internal/web/templates", "internal/cli", "internal/kubegap/report", "internal/kubegap/checks", "internal/kubegap/cli", "internal/search", "internal/view"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if n := e.Name(); strings.HasSuffix(n, ".tmpl") || strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				files = append(files, filepath.Join(root, dir, n))
			}
		}
	}
	has := func(key string) bool {
		if locale.Has(locale.KO, key) && locale.Has(locale.EN, key) {
			return true
		}
		// A plural: N(lang, "k", n) reads k.one and k.other.
		return locale.Has(locale.KO, key+".other") && locale.Has(locale.EN, key+".one") && locale.Has(locale.EN, key+".other")
	}
	found := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range keyRe.FindAllStringSubmatch(string(b), -1) {
			key := m[1] + m[2] + m[3]
			if strings.HasSuffix(key, ".") {
				continue // a prefix completed at run time; checked below
			}
			found++
			if !has(key) {
				t.Errorf("%s: key %q is not in both tables", f, key)
			}
		}
	}
	if found < 150 {
		t.Errorf("found only %d keys; the scan is broken", found)
	}
	// Keys built at run time.
	var dynamic []string
	for _, v := range incidentlib.VocabNames {
		dynamic = append(dynamic, "vocab."+v)
	}
	for _, f := range []string{"domain", "symptoms", "root_cause", "components", "contributing", "severity", "org"} {
		dynamic = append(dynamic, "facet."+f)
	}
	for _, s := range incidentlib.Sections {
		dynamic = append(dynamic, s.Words)
	}
	for _, s := range []string{"high", "medium", "low", "unknown"} {
		dynamic = append(dynamic, "check.severity."+s)
	}
	for _, s := range []string{"relevance", "date", "-date"} {
		dynamic = append(dynamic, "sort."+s)
	}
	dynamic = append(dynamic, "date_kind.incident", "date_kind.published", "cause")
	for _, key := range dynamic {
		if !has(key) {
			t.Errorf("key %q (built at run time) is not in both tables", key)
		}
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]string{
		"ko": "ko", "en": "en", "KO": "ko", " en ": "en", "ko-KR": "ko", "ko_KR.UTF-8": "ko", "en_US.UTF-8": "en",
		"en-GB": "en", "ko_KR@euro": "ko",
	} {
		if got, err := locale.Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "fr", "C.UTF-8", "kor", "korean", "e", strings.Repeat("x", 100)} {
		got, err := locale.Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) = %q, want an error", in, got)
			continue
		}
		if !strings.Contains(err.Error(), "use ko or en") || len(err.Error()) > 80 {
			t.Errorf("Parse(%q): the error should say what is accepted, briefly: %v", in, err)
		}
	}
	if got, err := locale.ParseOr("", "en"); err != nil || got != "en" {
		t.Errorf(`ParseOr("", "en") = %q, %v`, got, err)
	}
	if _, err := locale.ParseOr("de", "en"); err == nil {
		t.Error(`ParseOr("de", "en") accepted de`)
	}
}

func TestPlurals(t *testing.T) {
	for _, tc := range []struct {
		lang string
		n    int
		want string
	}{
		{"en", 0, "0 findings"}, {"en", 1, "1 finding"}, {"en", 2, "2 findings"},
		{"ko", 1, "발견 1건"}, {"ko", 3, "발견 3건"},
	} {
		if got := locale.N(tc.lang, "report.findings", tc.n); got != tc.want {
			t.Errorf("N(%s, %d) = %q, want %q", tc.lang, tc.n, got, tc.want)
		}
	}
	// Nf: the count picks the form, the other numbers fill it too.
	for _, tc := range []struct {
		lang string
		n    int
		want string
	}{
		{"en", 1, "1 of 1 check evaluated, 0 not"}, {"en", 3, "2 of 3 checks evaluated, 1 not"},
		{"ko", 1, "검사 1개 중 1개 평가 · 평가하지 못한 검사 0개"}, {"ko", 3, "검사 3개 중 2개 평가 · 평가하지 못한 검사 1개"},
	} {
		if got := locale.Nf(tc.lang, "report.evaluated", tc.n, tc.n-tc.n/2, tc.n, tc.n/2); got != tc.want {
			t.Errorf("Nf(%s, %d) = %q, want %q", tc.lang, tc.n, got, tc.want)
		}
	}
	if got := locale.T("fr", "report.fixes"); got != locale.T(locale.Default, "report.fixes") {
		t.Errorf("an unknown language reads %q, not the default's words", got)
	}
	if got := locale.T("en", "no.such.key"); got != "no.such.key" {
		t.Errorf("a missing key shows as %q, want itself", got)
	}
}
