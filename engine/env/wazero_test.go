package env_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"spawnbench/engine/env"
	"spawnbench/engine/protocol"
)

// wazero (spawnbench wazero, engine/wazerohost) on the wasi-freestanding
// payload's own build, which the wasi-threads fixture makes with the same
// settings, and with the fixture's freshly built spawnbench.

// TestWazeroRunsBothModesForReal runs sequential and parallel at n = 1, 5
// and 100, a few processes each, on the compiler and the interpreter:
// every process exits 0 and prints n coherent spawns (the child's reading
// between its parent's before the spawn and after the join, so every
// instance reads one clock with one origin, not wazero's fake one), and
// the host gives every spawn its two CPUs. The calibration sees its sleep
// (wazero's default nanosleep returns at once).
func TestWazeroRunsBothModesForReal(t *testing.T) {
	t.Parallel()
	f := setUpWasiThreads(t)
	for _, engine := range []string{"compiler", "interpreter"} {
		t.Run(engine, func(t *testing.T) {
			e := envFromSpec(t, "wz", "wazero", fmt.Sprintf(", engine: %q", engine))
			if tc := e.Toolchain(context.Background()); !tc.Present || !strings.Contains(tc.Version, "wazero v1.12.0, "+engine) {
				t.Fatalf("toolchain %+v, want present with wazero v1.12.0, %s", tc, engine)
			}
			for _, b := range []env.Benchmark{env.Sequential, env.Parallel} {
				for _, n := range []int{1, 5, 100} {
					for process := 0; process < 3; process++ {
						out := webRun(t, e, f.buildDir, b, n)
						rows := checkSpawns(t, out, n)
						// A spawn takes time; none of these takes a second.
						for i, r := range rows {
							if r[0] <= 0 || r[0] > int64(time.Second) {
								t.Errorf("%s n = %d spawn %d: spawn_ns %d, want 0 < spawn_ns < 1 s", b, n, i, r[0])
							}
						}
						checkPlaced(t, out.Stdout, n)
					}
				}
			}
			checkCalibration(t, webRun(t, e, f.buildDir, env.Calibration, 1000), 1000)
		})
	}
}

// checkPlaced: every spawn line has both CPUs from the host's #cpu
// directives, each a CPU number.
func checkPlaced(t *testing.T, stdout []byte, n int) {
	t.Helper()
	lines, err := protocol.Parse(stdout)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	for i, l := range lines {
		if l.ParentCPU == nil || l.ChildCPU == nil || *l.ParentCPU < 0 || *l.ChildCPU < 0 {
			t.Errorf("spawn %d has no CPUs from the host: parent %v, child %v", i+1, l.ParentCPU, l.ChildCPU)
		}
	}
}

// TestWazeroTrapAndHangAreFailedProcesses: a guest whose thread traps
// ends its process with 134 and the trap's message, and one that hangs
// is killed at its deadline, a timed-out Outcome rather than an error:
// the runner records each as a failed process with that reason
// (engine/run's classify).
func TestWazeroTrapAndHangAreFailedProcesses(t *testing.T) {
	t.Parallel()
	setUpWasiThreads(t) // a fresh spawnbench for the host
	e := envFromSpec(t, "wz", "wazero", "")
	guest := func(t *testing.T, body string) string {
		wasm, err := wasmtime.Wat2Wasm(`(module
  (import "env" "memory" (memory 1 1 shared))
  (export "memory" (memory 0))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  ` + body + `)`)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "sequential.wasm"), wasm, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	t.Run("trap", func(t *testing.T) {
		dir := guest(t, `
  (func (export "_start") (drop (call $spawn (i32.const 0)))
    (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1))))
  (func (export "wasi_thread_start") (param i32 i32) unreachable)`)
		out, err := webRunWithin(t, e, dir, env.Sequential, 1, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if out.ExitCode != 134 || out.TimedOut || !strings.Contains(string(out.Stderr), "thread 1 trapped") ||
			!strings.Contains(string(out.Stderr), "unreachable") {
			t.Errorf("exit %d, timed out %v, stderr %q: want 134 and the trap named", out.ExitCode, out.TimedOut, out.Stderr)
		}
	})
	t.Run("hang", func(t *testing.T) {
		dir := guest(t, `
  (func (export "_start") (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1))))
  (func (export "wasi_thread_start") (param i32 i32))`)
		start := time.Now()
		out, err := webRunWithin(t, e, dir, env.Sequential, 1, 2*time.Second)
		if err != nil {
			t.Fatalf("a hang must be a timed-out Outcome, not an error: %v", err)
		}
		if !out.TimedOut || time.Since(start) > 30*time.Second {
			t.Errorf("timed out %v, exit %d after %v: want killed at its deadline", out.TimedOut, out.ExitCode, time.Since(start))
		}
	})
}
