package corpus

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/lazyre"
)

// Editorial rules, checked on every case (docs/CASE-FORMAT.md, "What
// validate refuses in prose" and "Time zones"):
//
//   - a timeline time of day carries its zone ("14:05 UTC"), or the timeline
//     states one zone for all its times (timeline.zone), or says "unknown"
//     there when the write-up gives none;
//   - Korean text writes times in Korean form ("오후 10시 25분(PDT)"), never
//     with AM/PM;
//   - no evidential hedge ("apparently", "것으로 보인다"): state what the
//     write-up states, as it states it;
//   - no machine-translation, AI-summary or invented-postmortem site as a
//     source or link;
//   - a source URL shared by several cases carries the #anchor of each case's
//     own entry (checked across cases, in Load);
//   - the Korean title is one sentence ending in -다, the seed pages' style.

// ZoneUnknown is the timeline.zone of a timeline whose write-up gives its
// times without a time zone.
const ZoneUnknown = "unknown"

var (
	// clockTime matches a time of day: 14:05, 8.52, 09:02 PM, 4am, 11:21a.
	clockTime = lazyre.New(`(?:^|[^\d.:,A-SU-Za-z])(?:(?:[01]?\d|2[0-3])[:.h][0-5]\d(?:[^\d.,]|[.,]\D|[.,]?$)|\d{1,2}\s*(?i:[ap]\.?m)\b\.?)`)
	// zoneToken matches a stated time zone: an abbreviation, UTC or GMT with
	// or without an offset, a numeric offset or Z after a time, an IANA name,
	// or a named zone ("Pacific Time", "Beijing Time").
	zoneToken = lazyre.New(`\b(?:UTC|GMT|UT|PST8PDT|EST5EDT|CST6CDT|MST7MDT|PST|PDT|PT|EST|EDT|ET|CST|CDT|CT|MST|MDT|MT|AKST|AKDT|HST|AEST|AEDT|ACST|ACDT|AWST|NZST|NZDT|BST|IST|CET|CEST|EET|EEST|WET|WEST|MSK|JST|KST|SGT|HKT|ICT|WIB|PHT|BRT|ART|SAST)\b` +
		`|\d(?::\d\d)?(?:\.\d+)?\s?(?:[+-]\d\d:?\d\d|Z)\b` +
		`|\b(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|US|Etc)/[A-Z][A-Za-z_+-]+` +
		`|(?i:\b(?:pacific|eastern|central|mountain|alaska|hawaii|atlantic|beijing|china|japan|korea|india|singapore|moscow|british|greenwich)(?:\s+(?:standard|daylight|summer))?(?:\s+time)?\b)`)
	// koreanAMPM matches a time written in English form inside Korean text.
	koreanAMPM = lazyre.New(`(?i)(\d{1,2}(?::\d\d)?\s*(?:a\.m\.|p\.m\.|am|pm))(?:[^a-z]|$)`)
	// hedgeEN and hedgeKO match evidential hedges: words by which a text
	// says that a fact only seems so, or is hearsay, instead of saying what
	// the write-up states.
	hedgeEN = lazyre.New(`(?i)\b(apparently|seemingly|reportedly|presumably|supposedly|allegedly)\b`)
	// In Korean the refused forms are the evidentials of the case's own
	// voice (것으로 보인다, 보이며, 보이고); the past 것으로 보였다 and 듯하다
	// tell what the people in the incident saw, like "appeared to" and
	// "seemed to", which are allowed in English too.
	hedgeKO = lazyre.New(`것으로 보(?:인다|이며|이고)`)
)

// The words without which koreanAMPM, hedgeEN and hedgeKO cannot match: a
// text lacking them is not run through the expression.
var (
	ampmWords   = []string{"am", "pm", "a.m.", "p.m."}
	hedgeWords  = []string{"apparently", "seemingly", "reportedly", "presumably", "supposedly", "allegedly"}
	hedgeKOStem = "것으로 보"
)

// findAMPM returns the time in English form that koreanAMPM finds in s
// (whose lower case is low), or "".
func findAMPM(s, low string) string {
	if !mayHold(s, low, ampmWords...) || !strings.ContainsAny(s, "0123456789") {
		return ""
	}
	if m := koreanAMPM().FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// findHedgeEN returns the hedge hedgeEN finds in s (whose lower case is
// low), or "".
func findHedgeEN(s, low string) string {
	if !mayHold(s, low, hedgeWords...) {
		return ""
	}
	return hedgeEN().FindString(s)
}

// findHedgeKO returns the hedge hedgeKO finds in s, or "".
func findHedgeKO(s string) string {
	if !strings.Contains(s, hedgeKOStem) {
		return ""
	}
	return hedgeKO().FindString(s)
}

// mayHold reports whether s, whose lower case is low, may hold one of
// words (lower-case ASCII) as a case-insensitive regular expression
// ((?i)) sees it. Go's (?i) folds ASCII letters together with two runes
// outside ASCII: K (U+212A, the Kelvin sign, which strings.ToLower turns
// into k) and ſ (U+017F, the long s, which it leaves as it is). A text
// that holds ſ may therefore match without its lower case holding the
// word, and is always a maybe.
func mayHold(s, low string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(low, w) {
			return true
		}
	}
	return strings.ContainsRune(s, 'ſ')
}

// bannedSites are hosts that are never a source or a link: sites that
// publish machine translations or AI summaries of other people's
// write-ups, and sites of invented postmortems. A name without a dot
// matches that label under any top-level domain.
var bannedSites = []struct{ host, why string }{
	{"failysis.com", "an AI-summary site"},
	{"postmortems.app", "an AI-summary site"},
	{"rosettalens.com", "a machine-translation site"},
	{"compliancevault.tech", "a site of invented postmortems"},
	{"cloudopsdigest.site", "a site of invented postmortems"},
	{"infrapraxis.wiki", "a site of invented postmortems"},
	{"devseatit.com", "a site of invented postmortems"},
	{"prodrescueai.com", "a site of invented postmortems"},
	{"certcontrol.pro", "a site of invented postmortems"},
	{"techexecinsight", "a site of invented postmortems"},
	{"engineered.at", "an AI-summary site"},
	{"aftermath.sh", "an AI-summary site"},
	{"knowasiak.com", "a site of machine-reworded copies"},
	{"plushcap.com", "an aggregator's copy of other sites' posts"},
}

// bannedSite returns the banned site s names (a URL or a text that holds
// one), and why it is banned.
func bannedSite(s string) (string, string) {
	return bannedSiteLower(strings.ToLower(s))
}

// bannedSiteLower is bannedSite of a text already lower-cased.
func bannedSiteLower(low string) (string, string) {
	for _, b := range bannedSites {
		if strings.Contains(low, b.host) {
			return b.host, b.why
		}
	}
	return "", ""
}

// koreanSentence reports whether a Korean title is one sentence in the
// plain form: one line ending in 다 (a full stop after it allowed).
func koreanSentence(t string) bool {
	return !strings.Contains(t, "\n") && strings.HasSuffix(strings.TrimSuffix(t, "."), "다")
}

// needsZone reports whether at gives a time of day without a time zone.
func needsZone(at string) bool {
	return clockTime().MatchString(at) && !zoneToken().MatchString(at)
}

// validZone reports whether z is a timeline.zone: unknown, or a zone that
// zoneToken recognises.
func validZone(z string) bool {
	return z == ZoneUnknown || zoneToken().MatchString(z)
}

// checkEditorial applies the editorial rules that need only the case.
func checkEditorial(file string, pos positions, c *incidentlib.Case) []Problem {
	return editorialProblems(file, pos, c, pendingEditorial)
}

// editorialProblems is checkEditorial passing over the cases pending lists.
func editorialProblems(file string, pos positions, c *incidentlib.Case, pending map[string]map[string]bool) []Problem {
	var probs []Problem
	add := func(check, p, format string, args ...any) {
		if !pending[check][c.ID] {
			probs = append(probs, Problem{file, pos.line(p), fmt.Sprintf(format, args...)})
		}
	}
	tl := c.Timeline
	if z := strings.TrimSpace(tl.Zone); tl.Zone != "" && !validZone(z) {
		add("zone", "timeline.zone", "timeline.zone %q is not a time zone; give the zone the write-up states (UTC, PDT, UTC+9, Europe/London, Pacific Time), or %q where it states none", tl.Zone, ZoneUnknown)
	}
	if tl.Zone == "" {
		first, n := -1, 0
		for i, e := range tl.Events {
			if needsZone(e.At) {
				if first < 0 {
					first = i
				}
				n++
			}
		}
		if first >= 0 {
			p := fmt.Sprintf("timeline.events[%d].at", first)
			add("zone", p, "%s %q gives a time of day with no time zone (%d such times), and the timeline states none; write the zone on the times as the write-up gives it (14:05 UTC), or once as timeline.zone (zone: UTC), or zone: %s where the write-up states none", p, tl.Events[first].At, n, ZoneUnknown)
		}
	}
	if t := strings.TrimSpace(c.Title.KO); t != "" && !koreanSentence(t) {
		add("title", "title.ko", "title.ko %q is not one sentence ending in -다; write the Korean title as the seed pages do, one sentence in the plain past (…가 멈췄다, …에 실패했다)", t)
	}
	cp := *c
	walkTexts("", reflect.ValueOf(&cp).Elem(), func(p string, t *incidentlib.Text) {
		// The regular expressions run only on a text that may hold a
		// match (see mayHold): on the corpus, most texts hold none, and
		// lower-casing and a substring search cost far less than the
		// expressions, which every start of serve and kubegap ran on
		// every text.
		lowEN, lowKO := strings.ToLower(t.EN), strings.ToLower(t.KO)
		if m := findAMPM(t.KO, lowKO); m != "" {
			add("ampm", join(p, "ko"), "%s writes a time in English form (%q); in Korean write it as 오전/오후 and 시·분, with the zone after it: 오후 10시 25분(PDT)", join(p, "ko"), m)
		}
		if m := findHedgeEN(t.EN, lowEN); m != "" {
			add("hedge", join(p, "en"), "%s hedges with %q; state the fact as the write-up states it (with its own words of doubt, such as \"likely\", where it has them), or leave it out", join(p, "en"), m)
		}
		if m := findHedgeKO(t.KO); m != "" {
			add("hedge", join(p, "ko"), "%s hedges with %q; state the fact as the write-up states it (with its own words of doubt, such as \"가능성이 크다\", where it has them), or leave it out", join(p, "ko"), m)
		}
		for _, s := range []struct{ p, low string }{{join(p, "en"), lowEN}, {join(p, "ko"), lowKO}} {
			if host, why := bannedSiteLower(s.low); host != "" {
				add("site", s.p, "%s names %s, %s; it is never a source or a link: cite the organisation's own write-up", s.p, host, why)
			}
		}
	})
	links := []struct{ p, v string }{}
	for i, s := range c.Sources {
		p := fmt.Sprintf("sources[%d]", i)
		links = append(links, struct{ p, v string }{p + ".url", s.URL}, struct{ p, v string }{p + ".title", s.Title}, struct{ p, v string }{p + ".publisher", s.Publisher})
		if s.Archived != nil {
			links = append(links, struct{ p, v string }{p + ".archived", *s.Archived})
		}
	}
	for i, d := range c.Docs {
		links = append(links, struct{ p, v string }{fmt.Sprintf("docs[%d]", i), d})
	}
	for _, l := range links {
		if host, why := bannedSite(l.v); host != "" {
			add("site", l.p, "%s names %s, %s; it is never a source or a link: cite the organisation's own write-up", l.p, host, why)
		}
	}
	return probs
}

// sharedSources records, across cases, which cases cite each page.
type sharedSources map[string][]string // page → ids of the cases citing it

// pageKey names the page a URL points at, ignoring the scheme, the case of
// the host, a trailing slash and the fragment; anchored tells whether the
// URL has a fragment. The key is "" for a URL that does not parse.
func pageKey(raw string) (key string, anchored bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "", false
	}
	return strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/") + "?" + u.RawQuery, u.Fragment != ""
}

func (s sharedSources) add(c *incidentlib.Case) {
	seen := map[string]bool{}
	for _, src := range c.Sources {
		if k, _ := pageKey(src.URL); k != "" && !seen[k] {
			seen[k] = true
			s[k] = append(s[k], c.ID)
		}
	}
}

// check reports each source of c that points without an anchor at a page
// other cases cite too.
func (s sharedSources) check(file string, pos positions, c *incidentlib.Case) []Problem {
	return s.problems(file, pos, c, pendingEditorial)
}

func (s sharedSources) problems(file string, pos positions, c *incidentlib.Case, pending map[string]map[string]bool) []Problem {
	var probs []Problem
	for i, src := range c.Sources {
		k, anchored := pageKey(src.URL)
		if k == "" || anchored || len(s[k]) < 2 || pending["shared"][c.ID] {
			continue
		}
		var others []string
		for _, id := range s[k] {
			if id != c.ID {
				others = append(others, id)
			}
		}
		if len(others) == 0 {
			continue
		}
		p := fmt.Sprintf("sources[%d].url", i)
		probs = append(probs, Problem{file, pos.line(p), fmt.Sprintf("%s %q has no #anchor, and the page is a source of %s too; point each case at its own entry (the page's #id for it, or a text fragment #:~:text=… where the page has no ids)", p, src.URL, strings.Join(others, ", "))})
	}
	return probs
}

// pendingEditorial lists, for each editorial check (zone, ampm, hedge,
// site, shared), the cases of the corpus not yet brought under it. The
// check passes them over; TestPendingEditorialStillFail fails for a listed
// case that passes the check, so that the list only shrinks.
// An entry reads "zone": {"IL-0723": true}.
var pendingEditorial = map[string]map[string]bool{}
