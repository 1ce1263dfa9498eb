package search

import (
	"runtime"
	"testing"
	"time"
)

// TestScoringReadsAreAdmitted: with every slot taken, a search and both
// similar-case lookups wait, and each runs once a slot is free.
func TestScoringReadsAreAdmitted(t *testing.T) {
	ix := corpusIndex(t)
	if cap(ix.gate) != runtime.GOMAXPROCS(0) {
		t.Fatalf("%d slots, want one a processor (%d)", cap(ix.gate), runtime.GOMAXPROCS(0))
	}
	for name, read := range map[string]func(){
		"Search":      func() { ix.Public().Search(Query{Text: "conntrack", Limit: 5}) },
		"SimilarTo":   func() { ix.Public().SimilarTo("IL-0049", 5) },
		"SimilarText": func() { ix.Public().SimilarText("CoreDNS conntrack", 5) },
	} {
		var release []func()
		for range cap(ix.gate) {
			release = append(release, ix.admit())
		}
		done := make(chan struct{})
		go func() { read(); close(done) }()
		select {
		case <-done:
			t.Errorf("%s ran while every slot was taken", name)
		case <-time.After(200 * time.Millisecond):
		}
		for _, r := range release {
			r()
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not run once the slots were free", name)
		}
	}
}

// TestReleaseYields: a search's release yields the processor once, after
// the slot is free (admit), and nothing else of a search yields.
func TestReleaseYields(t *testing.T) {
	ix := corpusIndex(t)
	yields, freeAtYield := 0, true
	yield = func() {
		yields++
		select {
		case ix.gate <- struct{}{}: // a slot is free: take it back
			<-ix.gate
		default:
			if cap(ix.gate) == 1 {
				freeAtYield = false
			}
		}
	}
	defer func() { yield = runtime.Gosched }()
	ix.gate = make(chan struct{}, 1)
	ix.Public().Search(Query{Text: "conntrack", Limit: 5})
	ix.Public().SimilarTo("IL-0049", 5)
	ix.Public().SimilarText("CoreDNS conntrack", 5)
	if yields != 3 {
		t.Errorf("%d yields for three scoring reads, want 3 (one a release)", yields)
	}
	if !freeAtYield {
		t.Error("a release yielded while still holding its slot")
	}
}
