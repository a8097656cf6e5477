package env_test

import (
	"spawnbench/internal/fulltest"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/protocol"
)

// The manual kinds: raw workers measured by manual/spawn.mjs, in Node.js
// (manual-node) and in headless Chromium (manual).

func newManualNode(t testing.TB) (*env.Environment, string) {
	t.Helper()
	fulltest.Only(t, "starts Node.js")
	e := webEnv(t, "manual-node", "")
	return e, webBuild(t, "manual-node", e)
}

// newManual is the test binary's shared manual environment (sharedEnv).
func newManual(t testing.TB) (*env.Environment, string) {
	t.Helper()
	fulltest.Only(t, "starts Chromium")
	e := sharedEnv(t, "manual")
	return e, webBuild(t, "manual", e)
}

func TestManualNodeSpawnsCoherently(t *testing.T) {
	t.Parallel()
	e, dir := newManualNode(t)
	checkSpawns(t, webRun(t, e, dir, env.Sequential, 5), 5)
	checkSpawns(t, webRun(t, e, dir, env.Parallel, 5), 5)
}

// TestManualChromiumSpawnsCoherently also holds the page to cross-origin
// isolation: manual/index.html exits 1 without it, since its clock would
// then be coarsened to 100 us.
func TestManualChromiumSpawnsCoherently(t *testing.T) {
	t.Parallel()
	e, dir := newManual(t)
	checkSpawns(t, webRun(t, e, dir, env.Sequential, 5), 5)
	checkSpawns(t, webRun(t, e, dir, env.Parallel, 5), 5)
}

func TestManualCalibrationSeesTheSleepAndTheClockStep(t *testing.T) {
	t.Parallel()
	for _, mk := range []func(testing.TB) (*env.Environment, string){newManualNode, newManual} {
		e, dir := mk(t)
		out := webRun(t, e, dir, env.Calibration, 1000)
		checkCalibration(t, out, 1000)
		c := protocol.NewCollector(1)
		_, _ = c.Write(out.Stdout)
		c.Close()
		if f := c.Clock(); f == nil || f.StepNS <= 0 || f.ReadNS < 0 {
			t.Errorf("%s: calibration does not report the clock's step and read cost (%+v):\n%s", e.Kind(), f, out.Stdout)
		}
	}
}

func TestManualRejectsABadArgument(t *testing.T) {
	t.Parallel()
	for _, mk := range []func(testing.TB) (*env.Environment, string){newManualNode, newManual} {
		e, dir := mk(t)
		out, err := webRunWithin(t, e, dir, env.Sequential, 0, 60*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if out.ExitCode != 2 || !strings.Contains(string(out.Stderr), "usage") {
			t.Errorf("%s: n = 0 gave exit %d, stderr %q; want exit 2 and the usage", e.Kind(), out.ExitCode, out.Stderr)
		}
	}
}
