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

// TestTrustedProxyFlag: --trusted-proxy takes addresses and networks, and
// refuses anything else with the forms it takes.
func TestTrustedProxyFlag(t *testing.T) {
	got, err := parseProxies([]string{"10.0.0.0/8", " 192.0.2.1 ", "::ffff:198.51.100.2", "2001:db8::/32", "10.1.2.3/8"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.0.2.1/32", "198.51.100.2/32", "2001:db8::/32", "10.0.0.0/8"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("value %d: %s, want %s", i, got[i], want[i])
		}
	}
	if _, err := parseProxies([]string{"proxy.internal"}); err == nil || !strings.Contains(err.Error(), `--trusted-proxy "proxy.internal" is neither an address nor a CIDR network`) {
		t.Errorf("a host name: %v", err)
	}
}
