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
