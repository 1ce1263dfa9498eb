package report

import (
	"os"
	"path/filepath"
	"testing"
)

// TestArtifactURI: files under the working directory are relative URI
// references; others are absolute file:// URIs (SARIF1004 otherwise);
// both percent-encoded.
func TestArtifactURI(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"testdata/a.yaml":                     "testdata/a.yaml",
		filepath.Join(wd, "sub", "b.yaml"):    "sub/b.yaml",
		"/elsewhere/my charts/c.yaml":         "file:///elsewhere/my%20charts/c.yaml",
		filepath.Join(wd, "..", "d.yaml"):     "file://" + filepath.ToSlash(filepath.Join(filepath.Dir(wd), "d.yaml")),
		filepath.Join(wd, "..dots", "e.yaml"): "..dots/e.yaml",
	} {
		if got := artifactURI(in); got != want {
			t.Errorf("artifactURI(%q) = %q, want %q", in, got, want)
		}
	}
}
