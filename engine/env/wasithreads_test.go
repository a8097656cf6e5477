package env_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"spawnbench"
	"spawnbench/engine/env"
	"spawnbench/engine/spec"
)

// wasiThreadsFixture is one build of the benchmarks with the schema's
// default settings, and a freshly built spawnbench to run them, shared by
// the tests of this file.
type wasiThreadsFixture struct {
	env      env.Environment
	buildDir string
}

var (
	fixtureOnce sync.Once
	fixture     *wasiThreadsFixture
	fixtureErr  error
	fixtureDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// newWasiThreads makes a wasi-threads environment the way a spec declares it.
func newWasiThreads(t testing.TB, fields string) env.Environment {
	t.Helper()
	return envFromSpec(t, "wt", "wasi-threads", fields)
}

func setUpWasiThreads(t testing.TB) *wasiThreadsFixture {
	t.Helper()
	fixtureOnce.Do(func() {
		e := newWasiThreads(t, "")
		if tc := e.Toolchain(context.Background()); !tc.Present {
			fixtureErr = errors.New("toolchain missing: " + tc.Problem + "; install with: " + tc.Install)
			return
		}
		if fixtureDir, fixtureErr = os.MkdirTemp("", "wasithreads-test-"); fixtureErr != nil {
			return
		}
		srcDir, buildDir := filepath.Join(fixtureDir, "src"), filepath.Join(fixtureDir, "build")
		exe := filepath.Join(fixtureDir, "spawnbench")
		if out, err := exec.Command("go", "build", "-o", exe, "spawnbench/cmd/spawnbench").CombinedOutput(); err != nil {
			fixtureErr = errors.New("build spawnbench: " + string(out))
			return
		}
		env.HostExecutable = func() (string, error) { return exe, nil }
		if fixtureErr = spawnbench.Sources.WriteTo(srcDir); fixtureErr != nil {
			return
		}
		if fixtureErr = os.MkdirAll(buildDir, 0o755); fixtureErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if fixtureErr = e.Build(ctx, srcDir, buildDir); fixtureErr != nil {
			return
		}
		fixture = &wasiThreadsFixture{env: e, buildDir: buildDir}
	})
	if fixtureErr != nil {
		t.Fatalf("wasi-threads fixture: %v", fixtureErr)
	}
	return fixture
}

func (f *wasiThreadsFixture) run(t testing.TB, b env.Benchmark, arg int) env.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := f.env.Run(ctx, env.Repetition{Benchmark: b, Arg: arg, BuildDir: f.buildDir})
	if err != nil {
		t.Fatalf("run %s %d: %v", b, arg, err)
	}
	if out.ExitCode != 0 || out.TimedOut {
		t.Fatalf("run %s %d: exit %d, timed out %v, stderr %q", b, arg, out.ExitCode, out.TimedOut, out.Stderr)
	}
	return out
}

func TestWasiThreadsBuildsEveryBenchmark(t *testing.T) {
	f := setUpWasiThreads(t)
	for _, b := range env.Benchmarks {
		wasm, err := os.ReadFile(filepath.Join(f.buildDir, string(b)+".wasm"))
		if err != nil {
			t.Fatal(err)
		}
		if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
			t.Errorf("%s.wasm is not a wasm module", b)
		}
	}
}

// Every spawn is timed by one coherent clock: the child's reading falls
// between the parent's reading before pthread_create and the one after
// pthread_join.
func TestWasiThreadsSpawnTimesAreCoherent(t *testing.T) {
	f := setUpWasiThreads(t)
	for _, b := range []env.Benchmark{env.Sequential, env.Parallel} {
		for _, n := range []int{1, 10} {
			rows := parseSpawns(t, f.run(t, b, n).Stdout)
			if len(rows) != n {
				t.Fatalf("%s %d: %d lines, want %d", b, n, len(rows), n)
			}
			for i, r := range rows {
				spawn, created, joined := r[0], r[1], r[2]
				if spawn <= 0 || spawn > joined || created <= 0 || created > joined {
					t.Errorf("%s %d, spawn %d: spawn_ns %d create_ns %d joined_ns %d: want 0 < spawn_ns <= joined_ns and 0 < create_ns <= joined_ns",
						b, n, i, spawn, created, joined)
				}
				if joined > int64(5*time.Second) {
					t.Errorf("%s %d, spawn %d: joined_ns %d is implausibly long", b, n, i, joined)
				}
			}
		}
	}
}

func TestWasiThreadsCalibrationSeesTheSleep(t *testing.T) {
	f := setUpWasiThreads(t)
	out := f.run(t, env.Calibration, 1000)
	got, err := strconv.ParseInt(strings.TrimSpace(string(out.Stdout)), 10, 64)
	if err != nil {
		t.Fatalf("calibration output %q: %v", out.Stdout, err)
	}
	if got < 1_000_000 || time.Duration(got) > out.Wall {
		t.Errorf("calibration of 1000 µs measured %d ns; want at least 1e6 and at most the process's wall time %v", got, out.Wall)
	}
}

// A benchmark fails cleanly, with its message, when thread-spawn refuses.
func TestWasiThreadsSpawnFailureIsReported(t *testing.T) {
	f := setUpWasiThreads(t)
	e := newWasiThreads(t, `, max_threads: 3`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := e.Run(ctx, env.Repetition{Benchmark: env.Parallel, Arg: 10, BuildDir: f.buildDir})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 1 || !strings.Contains(string(out.Stderr), "pthread_create failed") {
		t.Errorf("exit %d, stderr %q: want exit 1 and the runtime's pthread_create message", out.ExitCode, out.Stderr)
	}
}

func TestWasiThreadsRejectsBadMemorySettings(t *testing.T) {
	src := `environments: [{name: "wt", kind: "wasi-threads", max_memory: 100000}]
n: [1]
`
	// The schema refuses it: bad input, before any build.
	if _, err := spec.Parse("bad.cue", []byte(src)); err == nil || !strings.Contains(err.Error(), "65536") {
		t.Errorf("spec error %v, want one about the 65536-byte page", err)
	}
}
