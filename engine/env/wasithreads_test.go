package env_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"spawnbench/internal/fulltest"
	"spawnbench/internal/reexec"

	"spawnbench"
	"spawnbench/engine/env"
	"spawnbench/engine/protocol"
	"spawnbench/engine/spec"
)

// wasiThreadsFixture is one build of the benchmarks with the schema's
// default settings, and a freshly built spawnbench to run them, shared by
// the tests of this file.
type wasiThreadsFixture struct {
	env      *env.Environment
	buildDir string
}

var (
	fixtureOnce sync.Once
	fixture     *wasiThreadsFixture
	fixtureErr  error
	fixtureDir  string
)

func TestMain(m *testing.M) {
	reexec.Dispatch()
	code := m.Run()
	if err := closeSharedEnvs(); err != nil {
		fmt.Fprintln(os.Stderr, "closing the shared environments:", err)
		code = max(code, 1)
	}
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// newWasiThreads makes a wasi-threads environment the way a spec declares it.
func newWasiThreads(t testing.TB, fields string) *env.Environment {
	t.Helper()
	return envFromSpec(t, "wt", "wasi-threads", fields)
}

func setUpWasiThreads(t testing.TB) *wasiThreadsFixture {
	t.Helper()
	fulltest.Only(t, "builds with wasi-sdk and spawnbench")
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
		// fulltest builds with the Go cache the tests started with: the web
		// builds' tests point XDG_CACHE_HOME, which Go's default cache
		// follows, at an empty directory.
		exe, err := fulltest.BuildBinary("spawnbench/cmd/spawnbench")
		if err != nil {
			fixtureErr = err
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
		if buildDir, fixtureErr = e.Stage(ctx, buildDir); fixtureErr != nil {
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	f := setUpWasiThreads(t)
	out := f.run(t, env.Calibration, 1000)
	c := protocol.NewCollector(1)
	_, _ = c.Write(out.Stdout)
	c.Close()
	if c.Err() != nil || len(c.Lines()) != 1 {
		t.Fatalf("calibration output %q: %v", out.Stdout, c.Err())
	}
	got := c.Lines()[0].SpawnNS
	if f := c.Clock(); f == nil || f.StepNS <= 0 || f.ReadNS <= 0 {
		t.Errorf("calibration output %q: want a #clock line with the clock's step and read cost", out.Stdout)
	}
	if got < 1_000_000 || time.Duration(got) > out.Wall {
		t.Errorf("calibration of 1000 µs measured %d ns; want at least 1e6 and at most the process's wall time %v", got, out.Wall)
	}
}

// A benchmark fails cleanly, with its message, when pthread_create
// cannot get a stack: 1 MiB of memory holds no ten 256 KiB stacks.
func TestWasiThreadsSpawnFailureIsReported(t *testing.T) {
	t.Parallel()
	setUpWasiThreads(t)
	e := newWasiThreads(t, `, max_memory: 1048576, stack_size: 262144`)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srcDir := filepath.Join(dir, "src")
	if err := spawnbench.Sources.WriteTo(srcDir); err != nil {
		t.Fatal(err)
	}
	if err := e.Build(ctx, srcDir, dir); err != nil {
		t.Fatal(err)
	}
	out, err := e.Run(ctx, env.Repetition{Benchmark: env.Parallel, Arg: 10, BuildDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 1 || !strings.Contains(string(out.Stderr), "pthread_create failed") {
		t.Errorf("exit %d, stderr %q: want exit 1 and the runtime's pthread_create message", out.ExitCode, out.Stderr)
	}
}

// runtimeProgram compiles a C program against c/wasi/ as the environment
// builds benchmarks, and runs it on `spawnbench wasmtime`.
func runtimeProgram(t *testing.T, source string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	f := setUpWasiThreads(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.c")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	cDir := filepath.Join(fixtureDir, "src", "c")
	obj, wasm := filepath.Join(dir, "prog.o"), filepath.Join(dir, "prog.wasm")
	steps := [][]string{
		{"clang-16", "--target=wasm32-wasi-threads", "-matomics", "-mbulk-memory", "-O2", "-ffreestanding", "-nostdlib",
			"-I", cDir, "-c", "-o", obj, src},
		{"wasm-ld-16", "--import-memory", "--export-memory", "--shared-memory", "--max-memory=67108864",
			"-z", "stack-size=65536", "-o", wasm, obj,
			filepath.Join(f.buildDir, "obj", "sbrt.o"), filepath.Join(f.buildDir, "obj", "thread_start.o")},
	}
	for _, argv := range steps {
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", argv[0], err, out)
		}
	}
	exe, err := env.HostExecutable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append([]string{"wasmtime", "--threads", "fresh", wasm}, args...)...)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("program did not end; stderr %q", se.String())
	}
	return fulltest.ExitCode(t, err), so.String(), se.String()
}

// Every thread has its own _Thread_local block, initialised from the
// module's TLS image: children see the initial value, not the main
// thread's change, and their blocks are distinct.
func TestWasiThreadsThreadLocalsArePerThread(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runtimeProgram(t, `#include "sb.h"
static _Thread_local int64_t x = 42;
static int64_t seen[4], where[4];
static int arrived;
static void *child(void *p) {
  int64_t i = (int64_t)(intptr_t)p;
  seen[i] = x;
  x = 100 + i;
  where[i] = (int64_t)(intptr_t)&x;
  /* All children alive at once, however slowly a busy machine starts them. */
  __atomic_fetch_add(&arrived, 1, __ATOMIC_SEQ_CST);
  while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < 4) sb_sleep_us(100);
  seen[i] += x == 100 + i ? 0 : 1000;
  return 0;
}
int main(void) {
  x = 7;
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, child, (void *)(intptr_t)i);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  for (int i = 0; i < 4; i++) sb_print3(seen[i], where[i], (int64_t)(intptr_t)&x);
  return 0;
}`)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	addrs := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "42" {
			t.Errorf("thread %d: line %q: want its thread-local to start at 42 and keep its own value", i, line)
			continue
		}
		if f[1] == f[2] || f[1] == "0" || addrs[f[1]] {
			t.Errorf("thread %d: &x = %s (main thread's %s, others %v): want a block of its own", i, f[1], f[2], addrs)
		}
		addrs[f[1]] = true
	}
}

// A thread that overflows its stack is reported at join, naming the
// cause and the fix, instead of silently corrupting its neighbour.
func TestWasiThreadsStackOverflowIsReported(t *testing.T) {
	t.Parallel()
	code, _, stderr := runtimeProgram(t, `#include "sb.h"
static void *child(void *p) {
  volatile char big[96 * 1024]; /* more than the 64 KiB stack */
  for (int i = 0; i < (int)sizeof big; i++) big[i] = (char)i;
  return (void *)(intptr_t)big[512];
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, child, 0);
  pthread_join(t, 0);
  return 0;
}`)
	if code != 70 || !strings.Contains(stderr, "overflowed its stack") || !strings.Contains(stderr, "stack_size") {
		t.Errorf("exit %d, stderr %q: want 70 and a message naming the overflow and stack_size", code, stderr)
	}
}

// pthread_attr_setstacksize is honoured: the same thread fits in a
// stack made large enough, and a size below the minimum is refused.
func TestWasiThreadsHonoursTheStackSizeAttribute(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runtimeProgram(t, `#include "sb.h"
static void *child(void *p) {
  volatile char big[96 * 1024];
  for (int i = 0; i < (int)sizeof big; i += 512) big[i] = (char)i;
  return (void *)(intptr_t)big[512];
}
int main(void) {
  pthread_attr_t a;
  pthread_attr_init(&a);
  int small = pthread_attr_setstacksize(&a, 1024);
  int ok = pthread_attr_setstacksize(&a, 256 * 1024);
  size_t got = 0;
  pthread_attr_getstacksize(&a, &got);
  pthread_t t;
  int rc = pthread_create(&t, &a, child, 0);
  if (rc == 0) pthread_join(t, 0);
  sb_print3(small, ok, rc);
  sb_print1((int64_t)got);
  return 0;
}`)
	if code != 0 || stdout != "22 0 0\n262144\n" {
		t.Errorf("exit %d, stdout %q, stderr %q: want EINVAL for 1 KiB, then a 256 KiB stack that holds the thread", code, stdout, stderr)
	}
}

// n * sizeof(int64_t) does not wrap on wasm32: n = 2^29 is refused with
// a message, at once, instead of running with wrapped-around arrays.
func TestWasiThreadsRefusesAnNTooLargeForMemory(t *testing.T) {
	t.Parallel()
	f := setUpWasiThreads(t)
	for _, b := range []env.Benchmark{env.Sequential, env.Parallel} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := f.env.Run(ctx, env.Repetition{Benchmark: b, Arg: 1 << 29, BuildDir: f.buildDir})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if out.TimedOut || out.ExitCode != 2 || !strings.Contains(string(out.Stderr), "N too large") {
			t.Errorf("%s 2^29: exit %d, timed out %v, stderr %q: want exit 2 naming N", b, out.ExitCode, out.TimedOut, out.Stderr)
		}
	}
}

func TestWasiThreadsRejectsBadMemorySettings(t *testing.T) {
	t.Parallel()
	src := `environments: [{name: "wt", kind: "wasi-threads", max_memory: 100000}]
n: [1]
`
	// The schema refuses it: bad input, before any build.
	if _, err := spec.Parse("bad.cue", []byte(src)); err == nil || !strings.Contains(err.Error(), "65536") {
		t.Errorf("spec error %v, want one about the 65536-byte page", err)
	}
}

// spawnerClones runs the sequential benchmark with n spawns through e's
// own Run, with the host executable wrapped in strace, and returns the
// most clone or clone3 calls that any one thread of the process tree
// made: the thread running the guest's main makes one per spawn, while
// the Go runtime's and Wasmtime's own threads make a few each. Counted
// from outside the host, not by its own trace.
func spawnerClones(t *testing.T, f *wasiThreadsFixture, e *env.Environment, n int) int {
	t.Helper()
	exe, err := env.HostExecutable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "strace.txt")
	wrapper := filepath.Join(dir, "spawnbench-under-strace")
	script := "#!/bin/sh\nexec strace -f -e trace=clone,clone3 -o '" + log + "' '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env.HostExecutable = func() (string, error) { return wrapper, nil }
	defer func() { env.HostExecutable = func() (string, error) { return exe, nil } }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := e.Run(ctx, env.Repetition{Benchmark: env.Sequential, Arg: n, BuildDir: f.buildDir})
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("sequential %d under strace: %v, exit %d, stderr %q", n, err, out.ExitCode, out.Stderr)
	}
	text, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// Lines look like "1234  clone3({...}, 88) = 1240"; a call strace
	// interrupts shows as "clone3(... <unfinished ...>" and is counted once.
	perThread := map[string]int{}
	most := 0
	for _, line := range strings.Split(string(text), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || !(strings.HasPrefix(fields[1], "clone(") || strings.HasPrefix(fields[1], "clone3(")) {
			continue
		}
		perThread[fields[0]]++
		most = max(most, perThread[fields[0]])
	}
	return most
}

// The wasi-threads host starts a new OS thread for every thread-spawn, as
// Wasmtime does: the guest's main thread makes at least one clone per
// spawn. Checked for host_threads "fresh" and for the environment's
// default, which must be "fresh" too (issue 13).
func TestWasiThreadsHostStartsAnOSThreadPerSpawn(t *testing.T) {
	// Not parallel: spawnerClones puts strace before every run's host.
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace not installed (`bash .ci/setup` installs it)")
	}
	f := setUpWasiThreads(t)
	const n = 20
	for _, c := range []struct{ name, fields string }{
		{"fresh", `, host_threads: "fresh"`},
		{"default", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newWasiThreads(t, c.fields)
			if c.name == "default" && schemaDefaultHostThreads(t) == "reuse" {
				t.Skip(`the schema's default host_threads is still "reuse"; issue 13 makes it "fresh" (CUE change in the host notes)`)
			}
			if got := spawnerClones(t, f, e, n); got < n {
				t.Errorf("sequential %d: the busiest thread made %d clone calls; want at least %d, one OS thread per spawn", n, got, n)
			}
		})
	}
}

// schemaDefaultHostThreads reads the default of host_threads from the
// spec schema, as a spec that leaves it out gets it.
func schemaDefaultHostThreads(t *testing.T) string {
	t.Helper()
	s, err := spec.Parse("default.cue", []byte(`environments: [{name: "wt", kind: "wasi-threads"}]
n: [1]
`))
	if err != nil {
		t.Fatal(err)
	}
	var settings struct {
		HostThreads string `json:"host_threads"`
	}
	if err := json.Unmarshal(s.Environments[0].Resolved, &settings); err != nil {
		t.Fatal(err)
	}
	return settings.HostThreads
}
