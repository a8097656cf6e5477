package env_test

import (
	"testing"

	"spawnbench/engine/env"
)

// The Firefox kinds at small n, in headless Firefox ESR: the same builds
// and pages as their Chromium twins. Each run is a fresh browser, so the
// spawn cases hold Firefox's clock to one origin for the page and all its
// workers, and the calibration to its sleep.
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
				checkSpawns(t, webRun(t, e, dir, s.bench, s.n), s.n)
			}
			checkCalibration(t, webRun(t, e, dir, env.Calibration, 1000), 1000)
		})
	}
}
