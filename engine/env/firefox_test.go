package env_test

import (
	"testing"
	"time"

	"spawnbench/engine/env"
)

// firefoxClockStep is Firefox's timer step in a cross-origin-isolated
// page here. timeOrigin and now() are rounded apart, so a worker's
// timeOrigin + now() can read a step later than its parent's at the same
// instant (engine/browser.FirefoxPrefs): Emscripten's reused workers
// answer within a few steps, and about 1 spawn in 300 had its first
// reading one step after its parent's join reading.
const firefoxClockStep = 20 * time.Microsecond

// checkFirefoxSpawns is checkSpawns with one clock step of slack above
// joined_ns, and none below 0 or beyond the run's wall time.
func checkFirefoxSpawns(t *testing.T, out env.Outcome, n int) {
	t.Helper()
	rows := parseSpawns(t, out.Stdout)
	if len(rows) != n {
		t.Fatalf("%d spawn lines, want %d:\n%s", len(rows), n, out.Stdout)
	}
	for i, r := range rows {
		spawn, create, joined := r[0], r[1], r[2]
		if spawn < 0 || spawn > joined+int64(firefoxClockStep) || create < 0 || create > joined || joined <= 0 ||
			time.Duration(joined) > out.Wall {
			t.Errorf("spawn %d: spawn_ns %d, create_ns %d, joined_ns %d (wall %v): want 0 <= spawn <= joined + %v, 0 <= create <= joined <= wall",
				i, spawn, create, joined, out.Wall, firefoxClockStep)
		}
	}
}

// The Firefox kinds at small n, in headless Firefox ESR: the same builds
// and pages as their Chromium twins. Each run is a fresh browser, so the
// spawn cases hold Firefox's clock to one origin for the page and all its
// workers (to within one of its steps), and the calibration to its sleep.
func TestFirefoxKindsSpawnCoherently(t *testing.T) {
	// Each kind's build is its Chromium twin's, so the test binary builds
	// it once for both.
	for _, c := range []struct{ kind, twin string }{
		{"emscripten-firefox", "emscripten-chromium"},
		{"manual-firefox", "manual"},
		{"wasi-threads-firefox", "wasi-threads-chromium"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			e := envFromSpec(t, c.kind, c.kind, "")
			dir := webBuild(t, c.twin, e)
			for _, s := range spawnCases {
				checkFirefoxSpawns(t, webRun(t, e, dir, s.bench, s.n), s.n)
			}
			checkCalibration(t, webRun(t, e, dir, env.Calibration, 1000), 1000)
		})
	}
}
