package report

import (
	"os"
	"path/filepath"
	"testing"
)

// TestArtifactURI: relative paths stay relative URI references; absolute
// paths, inside the working directory or not, are absolute file:// URIs
// (SARIF1004 otherwise); both percent-encoded, forward slashes.
func TestArtifactURI(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"testdata/a.yaml":                  "testdata/a.yaml",
		"./testdata/../b.yaml":             "b.yaml",
		"../up/c.yaml":                     "../up/c.yaml",
		"my charts/d.yaml":                 "my%20charts/d.yaml",
		filepath.Join(wd, "sub", "b.yaml"): "file://" + filepath.ToSlash(filepath.Join(wd, "sub", "b.yaml")),
		"/elsewhere/my charts/c.yaml":      "file:///elsewhere/my%20charts/c.yaml",
		filepath.Join(wd, "..", "d.yaml"):  "file://" + filepath.ToSlash(filepath.Join(filepath.Dir(wd), "d.yaml")),
	} {
		if got := artifactURI(in); got != want {
			t.Errorf("artifactURI(%q) = %q, want %q", in, got, want)
		}
	}
}
