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

// Flags returns the configuration-selecting flags the running binary was
// built with, to pass to "go build": -race, and -gcflags, -asmflags, -tags
// and -trimpath as they were given (CI builds its race configuration with
// -gcflags=all=-dwarf=false; a build without it would compile every
// dependency again).
func Flags() []string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	var flags []string
	for _, s := range bi.Settings {
		switch s.Key {
		case "-race", "-trimpath":
			if s.Value == "true" {
				flags = append(flags, s.Key)
			}
		case "-gcflags", "-asmflags", "-tags":
			if s.Value != "" {
				flags = append(flags, s.Key+"="+s.Value)
			}
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
