package server_test

import (
	"net/url"
	"os"
	"testing"

	"go.yaml.in/yaml/v3"
)

// judgedURLs turns the judged relevance queries and the unanswerable ones
// into API search URLs in the forms clients send: plain, one language, a
// short page, and with a filter.
func judgedURLs(t testing.TB) []string {
	t.Helper()
	var qs []string
	data, err := os.ReadFile("../search/testdata/relevance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var set []struct {
		Q string `yaml:"q"`
	}
	if err := yaml.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	for _, s := range set {
		qs = append(qs, s.Q)
	}
	data, err = os.ReadFile("../search/testdata/unanswerable.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var none []string
	if err := yaml.Unmarshal(data, &none); err != nil {
		t.Fatal(err)
	}
	qs = append(qs, none...)
	if len(qs) < 50 {
		t.Fatalf("only %d judged queries", len(qs))
	}
	forms := []string{"", "&lang=en", "&lang=ko", "&limit=5", "&domain=kubernetes", "&sort=date"}
	var out []string
	for _, q := range qs {
		for _, f := range forms {
			out = append(out, "/api/cases?q="+url.QueryEscape(q)+f)
		}
	}
	return out
}
