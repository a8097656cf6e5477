package env_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/proc"
	"spawnbench/internal/fulltest"
)

// The Wasmer CLI (bin/wasmer, which .ci/setup --with-wasmer builds) on
// the wasi-freestanding payload's own build; the wasi-libc payload's is in
// wasilibc_test.go. Each test skips, naming the install, without it.

func newWasmer(t testing.TB) (*env.Environment, string) {
	t.Helper()
	fulltest.Only(t, "builds with clang and runs Wasmer")
	e := envFromSpec(t, "wasmer", "wasmer", "")
	// The Wasmtime CLIs' and WAMR's build: the same payload with the same
	// settings, so one build serves all three.
	return e, webBuild(t, "wasmtime-cli", e)
}

// TestWasmerSpawnsCoherently runs a few processes of each mode at n = 1
// and 5, and parallel n = 100, past the CPUs' count: every spawn's child
// reads the clock between its parent's readings (one clock origin for all
// threads), and the calibration sees its sleep.
func TestWasmerSpawnsCoherently(t *testing.T) {
	t.Parallel()
	e, dir := newWasmer(t)
	for _, b := range []env.Benchmark{env.Sequential, env.Parallel} {
		for _, n := range []int{1, 5} {
			for range 2 {
				checkSpawns(t, webRun(t, e, dir, b, n), n)
			}
		}
	}
	checkSpawns(t, webRun(t, e, dir, env.Parallel, 100), 100)
	checkCalibration(t, webRun(t, e, dir, env.Calibration, 1000), 1000)
}

// TestWasmerRunsInParallel: processes of one environment started at once
// share nothing through Wasmer's cache (each has its own WASMER_DIR), and
// each runs to the end.
func TestWasmerRunsInParallel(t *testing.T) {
	t.Parallel()
	e, dir := newWasmer(t)
	const processes = 3
	outs := make(chan env.Outcome, processes)
	errs := make(chan error, processes)
	for range processes {
		go func() {
			out, err := webRunWithin(t, e, dir, env.Sequential, 5, 90*time.Second)
			errs <- err
			outs <- out
		}()
	}
	for range processes {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		out := <-outs
		if out.ExitCode != 0 || out.TimedOut {
			t.Fatalf("exit %d, timed out %v, stderr:\n%s", out.ExitCode, out.TimedOut, out.Stderr)
		}
		checkSpawns(t, out, 5)
	}
}

// wasmerGuest assembles wat as the module of the sequential benchmark in a
// build directory of its own, for the guests that misbehave.
func wasmerGuest(t *testing.T, wat string) string {
	t.Helper()
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		t.Skip("wat2wasm is not installed; install with: apt-get install -y wabt")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "guest.wat")
	if err := os.WriteFile(src, []byte(`(module
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (import "env" "memory" (memory 1 1 shared))
  (export "memory" (memory 0))
`+wat+")"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := proc.Output(context.Background(), "", "wat2wasm", "--enable-threads", src, "-o", filepath.Join(dir, "sequential.wasm")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A guest that traps, in its main thread or in a spawned one, is a failed
// process: a non-zero exit with Wasmer's reason in its stderr, and
// nothing of Wasmer's among the protocol's lines on stdout.
func TestWasmerTrapIsAFailedProcessWithItsReason(t *testing.T) {
	t.Parallel()
	e, _ := newWasmer(t)
	for _, c := range []struct{ name, wat, want string }{
		{"main", `(func (export "_start") unreachable)
  (func (export "wasi_thread_start") (param i32 i32))`, "unreachable"},
		{"thread", `(func (export "_start")
    (drop (call $spawn (i32.const 0)))
    (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1))))
  (func (export "wasi_thread_start") (param i32 i32) unreachable)`, "failed with runtime error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := wasmerGuest(t, c.wat)
			out, err := webRunWithin(t, e, dir, env.Sequential, 1, 60*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if out.ExitCode == 0 || out.TimedOut || !strings.Contains(string(out.Stderr), c.want) || len(out.Stdout) != 0 {
				t.Errorf("a trap in the %s thread: exit %d, timed out %v, stderr %q; want a non-zero exit and %q",
					c.name, out.ExitCode, out.TimedOut, out.Stderr, c.want)
			}
		})
	}
}

// A guest that hangs is stopped at its deadline, the whole process tree
// with it, and says so.
func TestWasmerHangIsStoppedAtItsDeadline(t *testing.T) {
	t.Parallel()
	e, _ := newWasmer(t)
	dir := wasmerGuest(t, `(func (export "_start")
    (drop (call $spawn (i32.const 0)))
    (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1))))
  (func (export "wasi_thread_start") (param i32 i32)
    (drop (memory.atomic.wait32 (i32.const 4) (i32.const 0) (i64.const -1))))`)
	start := time.Now()
	out, err := webRunWithin(t, e, dir, env.Sequential, 1, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !out.TimedOut || time.Since(start) > time.Minute {
		t.Errorf("a hanging guest: timed out %v after %v, exit %d, stderr %q", out.TimedOut, time.Since(start), out.ExitCode, out.Stderr)
	}
}

func TestWasmerShowsItsVersion(t *testing.T) {
	t.Parallel()
	e, _ := newWasmer(t)
	tc := e.Toolchain(context.Background())
	if i := strings.Index(tc.Version, "; wasmer "+env.WasmerVersion); !tc.Present || i < 0 || !strings.Contains(tc.Version[:i], "clang") ||
		!strings.Contains(tc.Version[i:], "(runtimes: Cranelift)") {
		t.Errorf("version %q, want the compiler's, then wasmer %s (runtimes: Cranelift)", tc.Version, env.WasmerVersion)
	}
}

func TestWasmerMissingNamesTheInstall(t *testing.T) {
	t.Parallel()
	e := envFromSpec(t, "w", "wasmer", `, wasmer: "wasmer-not-installed"`)
	tc := e.Toolchain(context.Background())
	if tc.Present || !strings.Contains(tc.Problem, "wasmer-not-installed") || !strings.Contains(tc.Install, "bash .ci/setup --with-wasmer") {
		t.Errorf("a missing wasmer gave present %v, problem %q, install %q", tc.Present, tc.Problem, tc.Install)
	}
}
