package search

// SetPruning turns pruned on or off (it is on outside the tests) and
// returns the setting it replaced.
func SetPruning(on bool) bool {
	was := pruning
	pruning = on
	return was
}

// PrunedSearches is how many searches of ix pruned answered.
func (ix *Index) PrunedSearches() int64 { return ix.prunedN.Load() }
