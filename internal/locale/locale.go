// Package locale is the catalogue of words of every face of the product:
// the web pages, the CLI, kubegap's reports. It holds every key with its
// Korean and its English words side by side (words.go), and the one function
// that reads a language from a flag, a query parameter or the environment.
//
// Case texts and kubegap's check texts are data, not words of the
// interface: they live with the cases and the checks as incidentlib.Text.
package locale

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// The languages, and the default of the web pages and the CLI.
const (
	KO      = "ko"
	EN      = "en"
	Default = KO
)

// Langs are the supported languages, the default first.
var Langs = []string{KO, EN}

// tables is the catalogue a language, built on first use.
var tables = sync.OnceValue(func() map[string]map[string]string { return split(catalogue()) })

// split is the catalogue as one table a language; an empty Korean (a
// count's .one form) is not a Korean key.
func split(ws map[string]pair) map[string]map[string]string {
	ko, en := map[string]string{}, map[string]string{}
	for k, w := range ws {
		if w.ko != "" {
			ko[k] = w.ko
		}
		en[k] = w.en
	}
	return map[string]map[string]string{KO: ko, EN: en}
}

// Pattern is Parse's rule as a JSON Schema pattern (ECMA-262): ko or en
// in any case, then perhaps a region or encoding. Schemas of a lang input
// declare it, so a host that validates refuses what Parse refuses.
const Pattern = `^([kK][oO]|[eE][nN])([-_.@].*)?$`

// Parse reads a language: ko or en, in any case, with or without a region,
// encoding or modifier as in a locale name (ko-KR, ko_KR.UTF-8, en-US,
// EN). Anything else, the empty string included, is an error that says
// what is accepted.
func Parse(s string) (string, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexAny(l, ".@"); i >= 0 {
		l = l[:i]
	}
	if i := strings.IndexAny(l, "-_"); i >= 0 {
		l = l[:i]
	}
	switch l {
	case KO, EN:
		return l, nil
	}
	if len(s) > 20 {
		s = s[:20] + "…"
	}
	return "", fmt.Errorf("lang %q is not supported; use ko or en", s)
}

// ParseOr is Parse with a default: the empty string gives def.
func ParseOr(s, def string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return def, nil
	}
	return Parse(s)
}

// T returns the words key in lang. A language other than ko or en reads
// the default's table; a missing key shows as itself, which the tests
// catch.
func T(lang, key string) string {
	m, ok := tables()[lang]
	if !ok {
		m = tables()[Default]
	}
	if s, ok := m[key]; ok {
		return s
	}
	return key
}

// Tf formats the words key in lang with args.
func Tf(lang, key string, args ...any) string { return fmt.Sprintf(T(lang, key), args...) }

// N formats a count n with the words key.one or key.other: English takes
// .one for 1 and .other for every other number; Korean has no plural and
// puts its counter (건, 개, 회) in .other, which it always takes.
func N(lang, key string, n int) string { return Nf(lang, key, n, n) }

// Nf is N for words with more numbers than the one they agree with: n
// picks the form, as in N, and args fill it.
func Nf(lang, key string, n int, args ...any) string {
	form := ".other"
	if n == 1 && lang == EN {
		form = ".one"
	}
	return fmt.Sprintf(T(lang, key+form), args...)
}

// Keys returns the keys of lang's table, sorted.
func Keys(lang string) []string {
	var ks []string
	for k := range tables()[lang] {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Has reports whether lang's table holds key.
func Has(lang, key string) bool {
	_, ok := tables()[lang][key]
	return ok
}
