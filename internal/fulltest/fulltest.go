// Package fulltest marks the tests that belong to the full run only:
// those that build with the real compilers, start real browsers and
// runtimes, or run spawnbench's own binary over real processes. `go test
// -short ./...`, the inner loop, skips them; `go test ./...`, the test
// command, runs every one.
//
// This package is opinionated: a test is skipped under -short for what it
// starts, never for how long it happened to take on one machine, so the
// short run skips the same tests everywhere, and every package keeps the
// tests of its own logic in it.
//
// It also holds what those tests share, written once: the one build of
// spawnbench's binary (and of other commands) that every test package
// runs (Binary, BuildBinary), running a process for its output and exit
// status (Run, ExitCode), copying a binary (CopyFile) and a buffer a
// running process writes (LockedBuffer). It is test support, so it is
// internal: no product package imports it.
package fulltest

import "testing"

// Only skips t under -short; starts says what t starts that the short run
// does not.
func Only(t testing.TB, starts string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s: a full-run test (go test without -short runs it)", starts)
	}
}
