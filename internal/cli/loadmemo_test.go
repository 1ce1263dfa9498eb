package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLoadSeesEveryChange: a folder read once is read again when a case
// file is edited (even to the same size), added or removed, or the
// vocabulary changes; unchanged, it answers the same.
func TestLoadSeesEveryChange(t *testing.T) {
	dir := copyCorpus(t, "../..")
	src, err := os.ReadFile(filepath.Join(fixtures, "valid/cases/IL-9001.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"IL-9001", "IL-9002"} {
		b, err := os.ReadFile(filepath.Join(fixtures, "valid/cases", id+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "cases", id+".yaml"), b, 0o644)
	}
	show := func() string {
		t.Helper()
		code, out, errs := run(t, "", "show", "IL-9001", "--lang", "en", "--dir", dir)
		if code != 0 {
			t.Fatalf("show: exit %d %s", code, errs)
		}
		return out
	}
	before := show()
	if again := show(); again != before {
		t.Fatalf("unchanged folder, another answer: %q then %q", before, again)
	}
	// The same size, another title.
	edited := strings.Replace(string(src), "title:\n  en: A test", "title:\n  en: X test", 1)
	if len(edited) != len(src) {
		t.Fatalf("the edit changed the size: %d, want %d", len(edited), len(src))
	}
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(filepath.Join(dir, "cases/IL-9001.yaml"), []byte(edited), 0o644)
	if got := show(); !strings.Contains(before, "A test fixture case") || !strings.Contains(got, "X test fixture case") {
		t.Fatalf("after an edit of the same size:\n%s\nwas\n%s", got, before)
	}
	os.Remove(filepath.Join(dir, "cases/IL-9002.yaml"))
	if code, _, errs := run(t, "", "show", "IL-9002", "--dir", dir); code != 2 || !strings.Contains(errs, "IL-9002") {
		t.Fatalf("show of a removed case: exit %d %s", code, errs)
	}
	os.WriteFile(filepath.Join(dir, "vocab.yaml"), []byte("not: [a vocabulary\n"), 0o644)
	if code, _, errs := run(t, "", "show", "IL-9001", "--dir", dir); code == 0 {
		t.Fatalf("show with a broken vocabulary: exit 0 %s", errs)
	}
}
