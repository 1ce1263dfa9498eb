package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSearchFlagsFromTable: search's flags are the parameter table's, read
// by its parser: filters reach the search, bad values name their flag.
func TestSearchFlagsFromTable(t *testing.T) {
	code, out, errs := run(t, "", "search", "--json", "--component", "coredns", "--severity", "critical,major", "--year-from", "2018", "--limit", "50", "--dir", "../..")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Total int
		Items []struct{ ID string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Total == 0 || len(res.Items) != min(res.Total, 50) {
		t.Fatalf("total %d, %d items", res.Total, len(res.Items))
	}
	// Each result carries the filters, checked with show.
	for _, it := range res.Items[:min(3, len(res.Items))] {
		_, c, _ := run(t, "", "show", it.ID, "--json", "--dir", "../..")
		var k struct {
			Date       string
			Severity   string
			Components []string
		}
		json.Unmarshal([]byte(c), &k)
		if !strings.Contains(strings.Join(k.Components, ","), "coredns") || (k.Severity != "critical" && k.Severity != "major") || k.Date < "2018" {
			t.Errorf("%s does not hold the filters: %+v", it.ID, k)
		}
	}
	for _, tc := range []struct{ flag, value, want string }{
		{"--year-from", "abc", "--year-from"},
		{"--lang", "fr", "--lang"},
		{"--sort", "best", "--sort"},
	} {
		code, _, errs := run(t, "", "search", tc.flag, tc.value, "dns", "--dir", "../..")
		if code != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, tc.value) {
			t.Errorf("search %s %s: exit %d, %q; want exit 2 naming %s", tc.flag, tc.value, code, errs, tc.want)
		}
	}
}
