package env_test

import (
	"strings"
	"testing"
	"time"

	"spawnbench/engine/env"
)

// The bun and deno hosts: the raw workers with each runtime's Web Workers
// (the default) and with node:worker_threads, and the JavaScript
// wasi-threads host (on both wasi payloads), each in the small cells of
// spawnCases, with real Bun and real Deno. A test skips, naming the
// install command, when the runtime is not installed (.ci/setup installs
// both).

var jsRuntimeCases = []struct{ kind, fields string }{
	{"manual-bun", ""},
	{"manual-bun", `, workers: "worker_threads"`},
	{"manual-deno", ""},
	{"manual-deno", `, workers: "worker_threads"`},
	{"wasi-threads-bun", ""},
	{"wasi-threads-deno", ""},
	{"wasi-libc-bun", ""},
	{"wasi-libc-deno", ""},
}

// checkSpawnsWithin is checkSpawns with the host's declared clock step as
// the slack of the bracket 0 <= spawn_ns <= joined_ns, as the runner's
// coherence check allows: a worker's reading is on its own copy of the
// clock. create_ns and joined_ns are the parent's readings, held exactly.
func checkSpawnsWithin(t testing.TB, out env.Outcome, n int, step int64) {
	t.Helper()
	rows := parseSpawns(t, out.Stdout)
	if len(rows) != n {
		t.Fatalf("%d spawn lines, want %d:\n%s", len(rows), n, out.Stdout)
	}
	for i, r := range rows {
		spawn, create, joined := r[0], r[1], r[2]
		if spawn < -step || spawn > joined+step || create < 0 || create > joined || joined <= 0 {
			t.Errorf("spawn %d: spawn_ns %d, create_ns %d, joined_ns %d: want -%d <= spawn <= joined + %d, 0 <= create <= joined, joined > 0",
				i, spawn, create, joined, step, step)
		}
		if time.Duration(joined) > out.Wall {
			t.Errorf("spawn %d: joined_ns %d is longer than the whole run (%v)", i, joined, out.Wall)
		}
	}
}

func TestBunAndDenoSpawnCoherently(t *testing.T) {
	t.Parallel()
	for _, c := range jsRuntimeCases {
		t.Run(c.kind+strings.ReplaceAll(c.fields, " ", ""), func(t *testing.T) {
			e := envFromSpec(t, c.kind, c.kind, c.fields)
			dir := webBuild(t, c.kind, e)
			step := e.Facts().ClockStepNS
			if step <= 0 || step > 10_000 {
				t.Fatalf("host %s declares a clock step of %d ns", e.Host(), step)
			}
			for _, sc := range spawnCases {
				checkSpawnsWithin(t, webRun(t, e, dir, sc.bench, sc.n), sc.n, step)
			}
			checkCalibration(t, webRun(t, e, dir, env.Calibration, 1000), 1000)
		})
	}
}

// TestBunAndDenoRejectABadArgument: the Web Worker script (manual/web.mjs)
// reports a usage error as node.mjs does, exit 2.
func TestBunAndDenoRejectABadArgument(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"manual-bun", "manual-deno"} {
		e := envFromSpec(t, kind, kind, "")
		dir := webBuild(t, kind, e)
		out, err := webRunWithin(t, e, dir, env.Sequential, 0, 60*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if out.ExitCode != 2 || !strings.Contains(string(out.Stderr), "usage") {
			t.Errorf("%s: n = 0 gave exit %d, stderr %q; want exit 2 and the usage", kind, out.ExitCode, out.Stderr)
		}
	}
}

// TestBunAndDenoNameTheirVersions: envs shows the pinned releases when
// they are installed, and the install command either way.
func TestBunAndDenoNameTheirVersions(t *testing.T) {
	t.Parallel()
	for kind, want := range map[string]string{"manual-bun": "Bun " + env.BunVersion, "manual-deno": "deno " + env.DenoVersion} {
		tc := envFromSpec(t, kind, kind, "").Toolchain(t.Context())
		if !strings.Contains(tc.Install, ".ci/setup") {
			t.Errorf("%s: install hint %q", kind, tc.Install)
		}
		if !tc.Present {
			t.Skipf("%s: %s; install with: %s", kind, tc.Problem, tc.Install)
		}
		if !strings.HasPrefix(tc.Version, want) {
			t.Errorf("%s: version %q, want %q (the release .ci/setup pins)", kind, tc.Version, want)
		}
	}
}
