package env_test

import (
	"context"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"

	"spawnbench/engine/env"
)

// The JavaScript wasi-threads host (@emnapi/wasi-threads) on the
// wasi-threads build, in Node.js and in headless browsers. The spawn cases
// hold every worker's clock to one origin: 0 <= spawn_ns <= joined_ns
// fails when a worker's monotonic clock counts from its own start.

var jsHostKinds = []string{"wasi-threads-node", "wasi-threads-chromium"}

func newJSHost(t testing.TB, kind, fields string) (*env.Environment, string) {
	t.Helper()
	fulltest.Only(t, "starts a JavaScript runtime")
	e := envFromSpec(t, kind, kind, fields)
	return e, webBuild(t, kind+fields, e)
}

func TestJSHostSpawnsCoherently(t *testing.T) {
	t.Parallel()
	for _, kind := range jsHostKinds {
		t.Run(kind, func(t *testing.T) {
			e, dir := newJSHost(t, kind, "")
			for _, c := range spawnCases {
				checkSpawns(t, webRun(t, e, dir, c.bench, c.n), c.n)
			}
			checkCalibration(t, webRun(t, e, dir, env.Calibration, 1000), 1000)
		})
	}
}

// TestJSHostPoolSpawnsCoherently runs the host's own pool, the
// "-pool" variant, at one small cell.
func TestJSHostPoolSpawnsCoherently(t *testing.T) {
	t.Parallel()
	e, dir := newJSHost(t, "wasi-threads-node", `, reuse_worker: true, pool_size: 4`)
	checkSpawns(t, webRun(t, e, dir, env.Sequential, 10), 10)
}

func TestJSHostShowsItsPackages(t *testing.T) {
	t.Parallel()
	for _, kind := range jsHostKinds {
		tc := envFromSpec(t, kind, kind, "").Toolchain(context.Background())
		if !tc.Present {
			t.Fatalf("%s: %s (install: %s)", kind, tc.Problem, tc.Install)
		}
		for _, want := range []string{"@emnapi/wasi-threads 2.2.0", "@tybys/wasm-util 0.10.5", "clang"} {
			if !strings.Contains(tc.Version, want) {
				t.Errorf("%s: version %q lacks %q", kind, tc.Version, want)
			}
		}
	}
}
