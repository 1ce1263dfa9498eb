// Package gobuild gives tests that build one of the project's commands the
// build flags of the test binary that runs them.
//
// A test binary built with -race that runs "go build" without it compiles
// every dependency a second time, in the other configuration: on a cold
// cache that is minutes of CI. With the same flags, the build reuses the
// packages the test binary was compiled from, and the command under test
// runs with the race detector too.
package gobuild

import "runtime/debug"

// Flags returns the configuration-selecting flags (today only -race) that
// the running binary was built with, to pass to "go build".
func Flags() []string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	var flags []string
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			flags = append(flags, "-race")
		}
	}
	return flags
}

// Args returns the arguments of "go build" for output file out and
// package pkg, with Flags in between.
func Args(out, pkg string) []string {
	args := append([]string{"build"}, Flags()...)
	return append(args, "-o", out, pkg)
}
