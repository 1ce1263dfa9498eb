package incidentlib_test

import (
	"testing"

	"github.com/incidentlib/incidentlib"
)

func TestBaseURLFor(t *testing.T) {
	for addr, want := range map[string]string{
		incidentlib.DefaultAddr: incidentlib.DefaultBaseURL,
		"localhost:8080":        "http://localhost:8080",
		":9000":                 "http://localhost:9000",
		"0.0.0.0:80":            "http://localhost:80",
		"[::1]:8081":            "http://localhost:8081",
		"[::]:8081":             "http://localhost:8081",
		"10.1.2.3:8080":         "http://10.1.2.3:8080",
		"[2001:db8::1]:443":     "http://[2001:db8::1]:443",
		"incidents.example:80":  "http://incidents.example:80",
	} {
		if got := incidentlib.BaseURLFor(addr); got != want {
			t.Errorf("BaseURLFor(%q) = %q, want %q", addr, got, want)
		}
	}
}

func TestCaseURL(t *testing.T) {
	for base, want := range map[string]string{
		"https://incidents.example":   "https://incidents.example/cases/IL-0049",
		"https://incidents.example/":  "https://incidents.example/cases/IL-0049",
		"https://x.example/library//": "https://x.example/library/cases/IL-0049",
	} {
		if got := incidentlib.CaseURL(base, "IL-0049"); got != want {
			t.Errorf("CaseURL(%q) = %q, want %q", base, got, want)
		}
	}
}
