package search

// Exhaustive returns q scored over every document that holds a query term,
// as a pruned search must answer it.
func Exhaustive(q Query) Query {
	q.exhaustive = true
	return q
}

// PrunedSearches is how many searches of ix were scored for closeness
// alone.
func (ix *Index) PrunedSearches() int64 { return ix.prunedN.Load() }

// SkippedSearches is how many pruned searches of ix left a term's list out
// of the candidates.
func (ix *Index) SkippedSearches() int64 { return ix.skippedN.Load() }

// PostingWrites is how many postings the writes to ix changed.
func (ix *Index) PostingWrites() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.postingWrites
}
