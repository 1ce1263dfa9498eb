package incidentlib

import (
	"regexp"
	"slices"
	"testing"
)

func TestValidIDMatchesPattern(t *testing.T) {
	re := regexp.MustCompile(IDPattern)
	for id, want := range map[string]bool{
		"IL-0049": true, "IL-0000": true, "IL-9999": true, "IL-10000": true, "IL-12345": true,
		"IL-123456789012345678": true,
		"IL-049":                false, "IL-00049": false, "IL-012345": false, "il-0049": false, "IL-": false,
		"IL-00a9": false, "IL-0049 ": false, "XIL-0049": false, "IL--049": false, "": false,
		"IL-1234567890123456789": false, // past 18 digits
	} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
		// The schema pattern says the same, but for the length bound.
		if len(id) <= 3+maxIDDigits && re.MatchString(id) != want {
			t.Errorf("IDPattern on %q = %v, want %v", id, !want, want)
		}
	}
}

func TestCompareIDsByNumber(t *testing.T) {
	ids := []string{"IL-10000", "notanid", "IL-0049", "IL-9999", "IL-100000", "IL-0100", "IL-12345", "IL-00049"}
	slices.SortFunc(ids, CompareIDs)
	want := []string{"IL-0049", "IL-0100", "IL-9999", "IL-10000", "IL-12345", "IL-100000", "IL-00049", "notanid"}
	if !slices.Equal(ids, want) {
		t.Fatalf("sorted %q, want %q", ids, want)
	}
	files := []string{"cases/IL-10000.yaml", "vocab.yaml", "cases/IL-9999.yaml", "cases/IL-0049.yaml"}
	slices.SortFunc(files, CompareCaseFiles)
	wantFiles := []string{"cases/IL-0049.yaml", "cases/IL-9999.yaml", "cases/IL-10000.yaml", "vocab.yaml"}
	if !slices.Equal(files, wantFiles) {
		t.Fatalf("sorted %q, want %q", files, wantFiles)
	}
}
