package checks_test

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/corpus"
	"github.com/incidentlib/incidentlib/internal/kubegap"
	"github.com/incidentlib/incidentlib/internal/kubegap/checks"
	"github.com/incidentlib/incidentlib/internal/kubegap/fixture"
)

// uncited are the checks that no case of the corpus grounds: none of the
// cases states their mechanism in its own text. TestCitationsNotEmpty
// holds every other check to at least one citation, and these to none, so
// that the list goes when a case for them is cited.
// Every check is grounded today: no-disruption-budget, which no case
// grounded (IL-0342 lost every pod when all nodes were replaced at once,
// but never says that a budget would have held them), was withdrawn.
var uncited = map[string]bool{}

// embedded is the embedded corpus, loaded once for the package's tests.
var embedded = sync.OnceValues(corpus.LoadEmbedded)

// caseTexts returns every English and every Korean text of k: title,
// summary, trigger, symptoms, detection, lessons, impact, timeline events,
// remediation and action items, whatever struct they sit in.
func caseTexts(k *incidentlib.Case) (en, ko []string) {
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		case reflect.Struct:
			if t, ok := v.Interface().(incidentlib.Text); ok {
				en, ko = append(en, t.EN), append(ko, t.KO)
				return
			}
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		}
	}
	walk(reflect.ValueOf(k))
	return en, ko
}

// normal collapses every run of white space to one space.
func normal(s string) string { return strings.Join(strings.Fields(s), " ") }

// quotedIn reports whether q occurs, white space aside, within one of texts.
func quotedIn(texts []string, q string) bool {
	q = normal(q)
	if q == "" {
		return false
	}
	for _, t := range texts {
		if strings.Contains(normal(t), q) {
			return true
		}
	}
	return false
}

// TestCitationsQuoteTheirCases holds each citation's quote to its case: the
// English quote must occur in one of the case's English texts and the
// Korean one in one of its Korean texts, so that an edit of the case that
// removes the sentence fails here.
func TestCitationsQuoteTheirCases(t *testing.T) {
	c, err := embedded()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ck := range checks.All() {
		for _, ct := range ck.Citations {
			k := c.Case(ct.Case)
			if k == nil {
				t.Errorf("%s cites %s, which is not in the corpus", ck.ID, ct.Case)
				continue
			}
			en, ko := caseTexts(k)
			if !quotedIn(en, ct.Quote) {
				t.Errorf("%s: the quote of %s is not in the case's English text (quote the case verbatim, or cite another case): %q", ck.ID, ct.Case, ct.Quote)
			}
			if ct.QuoteKO == "" {
				t.Errorf("%s: the citation of %s has no Korean quote; every case has a Korean text", ck.ID, ct.Case)
			} else if !quotedIn(ko, ct.QuoteKO) {
				t.Errorf("%s: the Korean quote of %s is not in the case's Korean text: %q", ck.ID, ct.Case, ct.QuoteKO)
			}
			n++
		}
	}
	if n < 40 {
		t.Errorf("only %d citations checked", n)
	}
}

// TestQuotedIn: the matcher finds a quote across line breaks and refuses
// one a word of which the case does not have.
func TestQuotedIn(t *testing.T) {
	texts := []string{"First sentence.\n\nThe kubelet  killed\nthe pod.", "Other text."}
	for q, want := range map[string]bool{
		"The kubelet killed the pod.": true,
		"killed the pod":              true,
		"The kubelet evicted the pod": false,
		"sentence. The kubelet":       true,
		"text. First":                 false, // across two texts
		"":                            false,
	} {
		if got := quotedIn(texts, q); got != want {
			t.Errorf("quotedIn(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestCitationsNotEmpty: every check cites at least one case, except those
// named in uncited, which cite none.
func TestCitationsNotEmpty(t *testing.T) {
	ids := map[string]bool{}
	for _, ck := range checks.All() {
		ids[ck.ID] = true
		switch {
		case uncited[ck.ID] && len(ck.Citations) > 0:
			t.Errorf("%s cites %d cases: take it out of uncited", ck.ID, len(ck.Citations))
		case !uncited[ck.ID] && len(ck.Citations) == 0:
			t.Errorf("%s cites no case: cite the cases that state its mechanism, with their quotes", ck.ID)
		}
		for _, ct := range ck.Citations {
			if strings.TrimSpace(ct.Case) == "" || strings.TrimSpace(ct.Quote) == "" {
				t.Errorf("%s: a citation without a case or a quote: %+v", ck.ID, ct)
			}
		}
	}
	for id := range uncited {
		if !ids[id] {
			t.Errorf("uncited names %s, which is not a check", id)
		}
	}
}

// TestCasesFollowCitations: a check's Cases, which findings, the catalogue
// and the site's index carry, are its citations' cases in order, and every
// finding carries the citations behind them.
func TestCasesFollowCitations(t *testing.T) {
	for _, ck := range checks.All() {
		var want []string
		for _, ct := range ck.Citations {
			want = append(want, ct.Case)
		}
		if !slices.Equal(ck.Cases, want) {
			t.Errorf("%s: Cases %v, citations %v", ck.ID, ck.Cases, want)
		}
	}
	for _, f := range fixtureFindings(t) {
		ck := checks.Get(f.Check)
		if !slices.Equal(f.Cases, ck.Cases) || !reflect.DeepEqual(f.Citations, ck.Citations) {
			t.Errorf("%s on %s: cases %v and citations %d, want %v and %d", f.Check, f.Object, f.Cases, len(f.Citations), ck.Cases, len(ck.Citations))
		}
	}
}

// fixtureFindings evaluates each check on its first failing fixture.
func fixtureFindings(t *testing.T) []checks.Finding {
	t.Helper()
	var out []checks.Finding
	for _, ck := range checks.All() {
		cs := []*checks.Check{ck}
		inv, _, err := kubegap.ReadFiles([]string{fixture.Path(t, "testdata", ck.ID, "fail.yaml")}, nil, cs)
		if err != nil {
			t.Fatal(err)
		}
		fs := kubegap.Evaluate(inv, cs, nil, true).Findings
		if len(fs) == 0 {
			t.Errorf("%s: no finding on its fail.yaml", ck.ID)
		}
		out = append(out, fs...)
	}
	return out
}
