package env_test

import (
	"context"
	"strings"
	"testing"

	"spawnbench/engine/env"
	"spawnbench/internal/fulltest"
)

// The environments of the sid root (engine/env/root.go), for real: each
// payload built with sid's emcc where it is Emscripten and run in sid's
// Node.js 24, and each host of the root once (Chromium the system's, sid's
// Firefox 159 by its raw workers), a few processes each: one of each case,
// the first spawn, five sequential and two parallel, the later ones a
// browser's next pages. The root's other pairings (Emscripten 6 and
// wasi-threads in Firefox 159) are a payload and a host tested here each,
// paired as the system's are (TestFirefoxKindsSpawnCoherently): a start
// of sid's Firefox, seconds of a CPU, would add nothing of the root.
// Skipped, with the fix, where .ci/setup has not made the root.
func TestSidRootEnvironmentsSpawn(t *testing.T) {
	t.Parallel()
	fulltest.Only(t, "builds with sid's emcc and starts sid's Node.js and Firefox")
	for _, c := range []struct{ name, kind, fields, build string }{
		{"emscripten-6", "emscripten", `, root: "sid"`, "emscripten-6"},
		{"emscripten-6-pool", "emscripten", `, root: "sid", pthread_pool_size: 16`, "emscripten-6-pool"},
		{"emscripten-6-chromium", "emscripten-chromium", `, root: "sid"`, "emscripten-6"},
		{"manual-node-24", "manual-node", `, root: "sid"`, "manual"},
		{"wasi-threads-node-24", "wasi-threads-node", `, root: "sid"`, "wasi-threads"},
		{"manual-firefox-159", "manual-firefox", `, root: "sid"`, "manual"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := envFromSpec(t, c.name, c.kind, c.fields)
			tc := e.Toolchain(context.Background())
			if !tc.Present {
				t.Skipf("not ready: %s; fix: %s", tc.Problem, tc.Install)
			}
			// The provenance names the root's packages.
			if !strings.Contains(tc.Version, "[sid root sid-") {
				t.Errorf("toolchain version %q does not name the sid root's packages", tc.Version)
			}
			if strings.HasPrefix(c.kind, "emscripten") && !strings.Contains(tc.Version, ") 6.") {
				t.Errorf("emcc of the sid root is not Emscripten 6: %q", tc.Version)
			}
			dir := webBuild(t, c.build, e)
			check := func(out env.Outcome, n int) { checkSpawns(t, out, n) }
			if e.Host() == "firefox" {
				check = func(out env.Outcome, n int) { checkFirefoxSpawns(t, out, n) }
			}
			for _, s := range []struct {
				bench env.Benchmark
				n     int
			}{{env.Sequential, 1}, {env.Sequential, 5}, {env.Parallel, 2}} {
				check(webRun(t, e, dir, s.bench, s.n), s.n)
			}
		})
	}
}

// TestSidEnvironmentWithoutItsRootIsNotReady: where the root is missing,
// an environment that needs it is not ready, with .ci/setup as the fix,
// never a run that fails.
func TestSidEnvironmentWithoutItsRootIsNotReady(t *testing.T) {
	t.Setenv("SPAWNBENCH_ROOTS", t.TempDir())
	for _, kind := range []string{"emscripten", "emscripten-chromium", "manual-node", "manual-firefox"} {
		e := envFromSpec(t, kind, kind, `, root: "sid"`)
		tc := e.Toolchain(context.Background())
		if tc.Present || !strings.Contains(tc.Problem, "the sid root is not made") || !strings.HasPrefix(tc.Install, ".ci/setup") {
			t.Errorf("%s without the sid root: %+v; want not ready, with .ci/setup as the fix", kind, tc)
		}
	}
}
