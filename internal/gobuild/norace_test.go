package gobuild

// raceEnabled is set by race_test.go, which is compiled only with -race.
var raceEnabled bool
