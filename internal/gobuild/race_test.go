//go:build race

package gobuild

func init() { raceEnabled = true }
