package search

import "github.com/incidentlib/incidentlib"

// A View is the index as one audience reads it: the public, or the holder
// of the write token, who also sees private cases. The audience is fixed
// when the View is made (Index.Public, Index.All) and no method of a View
// takes it again, so a face built on the public View cannot reach a
// private case, nor anything derived from one: a hit, a score (the term
// statistics a public search ranks by are counted over public cases
// alone), a total, a facet count, a topic's years, an organisation or the
// number of cases. Faces hold a View, never the Index.
type View struct {
	ix      *Index
	private bool
}

// Public is the View of the public cases: what anyone may read.
func (ix *Index) Public() *View { return &View{ix: ix} }

// All is the View of every case, private ones included: what the write
// token's holder reads.
func (ix *Index) All() *View { return &View{ix: ix, private: true} }

// Private reports whether the View shows private cases.
func (v *View) Private() bool { return v.private }

// Search runs q over the View's cases. Invalid filters or sort give an
// error of kind ErrInvalid whose message lists what is valid.
func (v *View) Search(q Query) (*Result, error) {
	q.private = v.private
	return v.ix.search(q)
}

// Case returns the case id, or nil when there is none or the View may not
// show it: for the public View a private case does not exist.
func (v *View) Case(id string) *incidentlib.Case {
	c := v.ix.get(id)
	if c == nil || (c.Private && !v.private) {
		return nil
	}
	return c
}

// Cases lists the View's cases, newest first.
func (v *View) Cases() []*incidentlib.Case { return v.ix.cases(v.private) }

// SimilarTo lists the cases most similar to case id, each with its reason.
func (v *View) SimilarTo(id string, limit int) ([]Similar, error) {
	return v.ix.similarTo(id, limit, v.private)
}

// SimilarText lists the cases most similar to free text.
func (v *View) SimilarText(text string, limit int) []Similar {
	return v.ix.similarText(text, limit, v.private)
}

// Related lists a case's curated and computed relations.
func (v *View) Related(id string, limit int) ([]Similar, error) {
	return v.ix.related(id, limit, v.private)
}

// Topic describes a vocabulary term over the View's cases.
func (v *View) Topic(ref, lang string) (*Topic, error) { return v.ix.topic(ref, lang, v.private) }

// Orgs lists the organisations of the View's cases with their counts.
func (v *View) Orgs() []OrgCount { return v.ix.orgs(v.private) }

// Len counts the View's cases.
func (v *View) Len() int {
	if v.private {
		return v.ix.lenAll()
	}
	return v.ix.lenPublic()
}

// FindTerm resolves a term reference to its vocabulary and term (the
// vocabulary is public).
func (v *View) FindTerm(ref string) (string, *incidentlib.Term) { return v.ix.FindTerm(ref) }

// Vocab is the controlled vocabulary.
// Generation counts the index's changes, private ones included. It is a
// key for caches of what the view shows, and must never be shown itself: a
// public reader would learn from it that private cases changed.
func (v *View) Generation() uint64 { return v.ix.Generation() }

func (v *View) Vocab() *incidentlib.Vocab { return v.ix.vocab }

// TermCounts counts, for every vocabulary and every term, the View's cases
// that carry the term: each vocabulary's terms are all there, a term no
// case carries with 0. The filter fields' counts are read from the term
// sets the index keeps, restricted to the View's documents; source kinds,
// which the index does not keep, are counted over the View's cases.
func (v *View) TermCounts() map[string]map[string]int {
	ix := v.ix
	out := make(map[string]map[string]int, len(incidentlib.VocabNames))
	for _, name := range incidentlib.VocabNames {
		out[name] = map[string]int{}
		for _, t := range ix.vocab.Lists[name] {
			out[name][t.ID] = 0
		}
	}
	ix.mu.RLock()
	visible := ix.public
	if v.private {
		visible = ix.live
	}
	for _, f := range FilterFields {
		for id := range out[f] {
			out[f][id] = visible.andCount(ix.set(f + "/" + id))
		}
	}
	ix.mu.RUnlock()
	kinds := out[incidentlib.VocabSourceKind]
	for _, c := range v.Cases() {
		seen := map[string]bool{}
		for _, s := range c.Sources {
			if !seen[s.Kind] {
				seen[s.Kind] = true
				kinds[s.Kind]++
			}
		}
	}
	return out
}
