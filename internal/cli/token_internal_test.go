package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShortTokenRefused: serve does not start with a write token that can
// be guessed, from the variable or from the file, and says how long one
// must be.
func TestShortTokenRefused(t *testing.T) {
	t.Setenv("INCIDENTLIB_TOKEN", "x")
	if _, err := readToken(); err == nil || !strings.Contains(err.Error(), "has 1 characters; give at least 16") {
		t.Errorf("a one-character INCIDENTLIB_TOKEN: %v", err)
	}
	t.Setenv("INCIDENTLIB_TOKEN", "")
	f := filepath.Join(t.TempDir(), "token")
	os.WriteFile(f, []byte("fifteen-chars-x\n"), 0o600)
	t.Setenv("INCIDENTLIB_TOKEN_FILE", f)
	if _, err := readToken(); err == nil || !strings.Contains(err.Error(), "INCIDENTLIB_TOKEN_FILE "+f+" has 15 characters") {
		t.Errorf("a 15-character token file: %v", err)
	}
	os.WriteFile(f, []byte("sixteen-chars-xx\n"), 0o600)
	if tok, err := readToken(); err != nil || tok != "sixteen-chars-xx" {
		t.Errorf("a 16-character token file: %q %v", tok, err)
	}
	t.Setenv("INCIDENTLIB_TOKEN_FILE", "")
	if tok, err := readToken(); err != nil || tok != "" {
		t.Errorf("no token: %q %v (writes off, not an error)", tok, err)
	}
}
