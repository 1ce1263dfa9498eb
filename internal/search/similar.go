package search

import (
	"sort"
	"strings"

	"github.com/incidentlib/incidentlib"

	"github.com/incidentlib/incidentlib/internal/locale"
)

// Weights of the structured overlap between two cases.
const (
	wRootCause    = 3.0
	wComponent    = 2.0
	wSymptom      = 1.0
	wContributing = 0.75
	wDomain       = 0.25
	// blendStructured is the share of structured overlap in the similarity;
	// the rest is text similarity.
	blendStructured = 0.65
)

// Reason says why a case is similar to another.
type Reason struct {
	SameRootCause bool                `json:"same_root_cause"`
	Shared        map[string][]string `json:"shared"`
	Curated       bool                `json:"curated,omitempty"`
	Label         incidentlib.Text    `json:"label"`
}

// Similar is a case with its similarity and the reason.
type Similar struct {
	Case   *incidentlib.Case
	Score  float64
	Reason Reason
}

// profile is the structured side of a case (or of free text).
type profile struct {
	rootCause string
	terms     map[string][]string // vocab → term ids
}

func caseProfile(c *incidentlib.Case) profile {
	p := profile{rootCause: c.RootCause, terms: map[string][]string{}}
	for _, f := range []string{incidentlib.VocabComponents, incidentlib.VocabSymptoms, incidentlib.VocabContributing, incidentlib.VocabDomain} {
		p.terms[f] = incidentlib.CaseTerms(c, f)
	}
	return p
}

var overlapWeights = map[string]float64{
	incidentlib.VocabComponents:   wComponent,
	incidentlib.VocabSymptoms:     wSymptom,
	incidentlib.VocabContributing: wContributing,
	incidentlib.VocabDomain:       wDomain,
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// overlapFields is overlapWeights' fields in one fixed order, so that
// overlapScore and overlap add the same terms in the same order.
var overlapFields = []string{incidentlib.VocabComponents, incidentlib.VocabSymptoms, incidentlib.VocabContributing, incidentlib.VocabDomain}

// overlapScore is overlap's score without its reason: it allocates nothing,
// so rank can score every candidate and word the reasons of the few it
// returns (a case page scores a few hundred candidates to show five).
func overlapScore(p profile, c *incidentlib.Case) float64 {
	score, max := 0.0, 0.0
	if p.rootCause != "" && p.rootCause != "unknown" {
		max += wRootCause
		if p.rootCause == c.RootCause {
			score += wRootCause
		}
	}
	for _, f := range overlapFields {
		w, mine := overlapWeights[f], p.terms[f]
		max += w * float64(len(mine))
		if n := countShared(mine, incidentlib.CaseTerms(c, f)); n > 0 {
			score += w * float64(n)
		}
	}
	if max == 0 {
		return 0
	}
	return score / max
}

// countShared is len(intersect(a, b)).
func countShared(a, b []string) int {
	n := 0
	for _, x := range a {
		for _, y := range b {
			if x == y {
				n++
				break
			}
		}
	}
	return n
}

// overlap scores how much of p's structure c shares, in [0, 1], and says
// what it shares.
func overlap(p profile, c *incidentlib.Case) (float64, Reason) {
	r := Reason{Shared: map[string][]string{}}
	score, max := 0.0, 0.0
	if p.rootCause != "" && p.rootCause != "unknown" {
		max += wRootCause
		if p.rootCause == c.RootCause {
			score += wRootCause
			r.SameRootCause = true
		}
	}
	for _, f := range overlapFields {
		w, mine := overlapWeights[f], p.terms[f]
		max += w * float64(len(mine))
		if shared := intersect(mine, incidentlib.CaseTerms(c, f)); len(shared) > 0 {
			score += w * float64(len(shared))
			r.Shared[f] = shared
		}
	}
	if max == 0 {
		return 0, r
	}
	return score / max, r
}

// label words a reason in both languages: "같은 원인 · 공통 Cilium".
func (ix *Index) label(r *Reason) {
	var ko, en []string
	if r.SameRootCause {
		ko, en = append(ko, locale.T(locale.KO, "reason.same_root_cause")), append(en, locale.T(locale.EN, "reason.same_root_cause"))
	}
	labels := func(f string, n int) (string, string) {
		ids := r.Shared[f]
		if len(ids) > n {
			ids = ids[:n]
		}
		var k, e []string
		for _, id := range ids {
			k = append(k, ix.vocab.Label(f, id, "ko"))
			e = append(e, ix.vocab.Label(f, id, "en"))
		}
		return strings.Join(k, ", "), strings.Join(e, ", ")
	}
	switch {
	case len(r.Shared[incidentlib.VocabComponents]) > 0:
		k, e := labels(incidentlib.VocabComponents, 2)
		ko, en = append(ko, locale.Tf(locale.KO, "reason.shared", k)), append(en, locale.Tf(locale.EN, "reason.shared", e))
	case len(r.Shared[incidentlib.VocabSymptoms]) > 0:
		k, e := labels(incidentlib.VocabSymptoms, 1)
		ko, en = append(ko, locale.Tf(locale.KO, "reason.same_symptom", k)), append(en, locale.Tf(locale.EN, "reason.same_symptom", e))
	case len(r.Shared[incidentlib.VocabContributing]) > 0:
		k, e := labels(incidentlib.VocabContributing, 1)
		ko, en = append(ko, locale.Tf(locale.KO, "reason.same_contributing", k)), append(en, locale.Tf(locale.EN, "reason.same_contributing", e))
	}
	if len(ko) == 0 {
		ko, en = []string{locale.T(locale.KO, "reason.similar_text")}, []string{locale.T(locale.EN, "reason.similar_text")}
	}
	r.Label = incidentlib.Text{KO: strings.Join(ko, " · "), EN: strings.Join(en, " · ")}
}

// similarTo returns the cases most similar to case id, each with its reason.
func (ix *Index) similarTo(id string, limit int, includePrivate bool) ([]Similar, error) {
	defer ix.admit()()
	c := ix.get(id)
	if c == nil || (c.Private && !includePrivate) {
		return nil, incidentlib.Errorf(incidentlib.ErrNotFound, "no case %s", id)
	}
	text := strings.Join([]string{c.Title.EN, c.Trigger.EN, c.Title.KO}, "\n")
	return ix.rank(caseProfile(c), text, map[string]bool{id: true}, limit, includePrivate), nil
}

// similarText returns the cases most similar to free text: a description,
// a log line, an error message. Vocabulary terms the text names count as
// structure.
func (ix *Index) similarText(text string, limit int, includePrivate bool) []Similar {
	defer ix.admit()()
	return ix.rank(ix.inferProfile(text), text, nil, limit, includePrivate)
}

// inferProfile finds the vocabulary terms whose id or label the text names.
func (ix *Index) inferProfile(text string) profile {
	p := profile{terms: map[string][]string{}}
	var notes []string
	have := map[string]bool{}
	for _, t := range ix.analyze(clean(text, &notes)) {
		have[t] = true
	}
	names := func(s string) bool {
		toks := ix.analyze(s)
		if len(toks) == 0 {
			return false
		}
		for _, t := range toks {
			if !have[t] {
				return false
			}
		}
		return true
	}
	for _, f := range []string{incidentlib.VocabComponents, incidentlib.VocabSymptoms, incidentlib.VocabContributing} {
		for _, t := range ix.vocab.Lists[f] {
			if names(strings.ReplaceAll(t.ID, "-", " ")) || names(t.Label.EN) || names(t.Label.KO) {
				p.terms[f] = append(p.terms[f], t.ID)
			}
		}
	}
	return p
}

func (ix *Index) rank(p profile, text string, exclude map[string]bool, limit int, includePrivate bool) []Similar {
	if limit <= 0 || limit > MaxLimit {
		limit = 10
	}
	ts := ix.textScores(text, includePrivate, 100)
	ix.mu.RLock()
	// Candidates: cases that share a component, symptom or contributing
	// factor, and those the text matched. Root cause and domain alone are
	// too common to pick candidates by.
	var cand bitset
	for _, f := range []string{incidentlib.VocabComponents, incidentlib.VocabSymptoms, incidentlib.VocabContributing} {
		for _, id := range p.terms[f] {
			for i, w := range ix.set(f + "/" + id) {
				for len(cand) <= i {
					cand = append(cand, 0)
				}
				cand[i] |= w
			}
		}
	}
	for id := range ts {
		if d, ok := ix.byID[id]; ok {
			cand.set(d)
		}
	}
	var out []Similar
	cand.each(func(d uint32) {
		c := ix.docs[d]
		if c == nil || exclude[c.ID] || (c.Private && !includePrivate) {
			return
		}
		score := blendStructured*overlapScore(p, c) + (1-blendStructured)*ts[c.ID]
		if score > 0.05 {
			out = append(out, Similar{Case: c, Score: score})
		}
	})
	ix.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return incidentlib.CompareIDs(out[i].Case.ID, out[j].Case.ID) < 0
	})
	if len(out) > limit {
		out = out[:limit]
	}
	for i := range out {
		_, out[i].Reason = overlap(p, out[i].Case)
		ix.label(&out[i].Reason)
	}
	return out
}

// related returns the cases to show beside case id: the curated ones first,
// then computed ones, up to limit, each with its reason.
func (ix *Index) related(id string, limit int, includePrivate bool) ([]Similar, error) {
	c := ix.get(id)
	if c == nil || (c.Private && !includePrivate) {
		return nil, incidentlib.Errorf(incidentlib.ErrNotFound, "no case %s", id)
	}
	p := caseProfile(c)
	var out []Similar
	seen := map[string]bool{id: true}
	for _, rid := range c.Related {
		r := ix.get(rid)
		if r == nil || seen[rid] || (r.Private && !includePrivate) {
			continue
		}
		seen[rid] = true
		s, reason := overlap(p, r)
		reason.Curated = true
		ix.label(&reason)
		out = append(out, Similar{Case: r, Score: s, Reason: reason})
	}
	if len(out) < limit {
		sims, _ := ix.similarTo(id, limit+len(seen), includePrivate)
		for _, s := range sims {
			if len(out) >= limit {
				break
			}
			if !seen[s.Case.ID] {
				seen[s.Case.ID] = true
				out = append(out, s)
			}
		}
	}
	return out, nil
}
