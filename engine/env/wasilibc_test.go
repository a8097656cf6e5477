package env_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/protocol"
)

// The wasi-libc payload: the benchmarks against wasi-libc's own POSIX
// threads, on every host that runs wasi-threads. Each test skips, naming
// the install, when the sysroot .ci/setup builds is absent (webBuild
// checks the toolchain).

// wasiLibcBuild builds the payload once per test binary and build key:
// the module hosts share one build, the JavaScript hosts stage it each.
func wasiLibcBuild(t *testing.T, kind, key, fields string) (*env.Environment, string) {
	t.Helper()
	fulltest.Only(t, "builds with wasi-sdk")
	e := envFromSpec(t, kind, kind, fields)
	return e, webBuild(t, key, e)
}

// The module hosts and Node.js and Chromium at the small cells: every
// spawn's child reads the clock between its parent's reading before
// pthread_create and the one after pthread_join, so the threads share one
// clock origin, and the calibration sees its sleep.
func TestWasiLibcSpawnsCoherently(t *testing.T) {
	t.Parallel()
	setUpWasiThreads(t) // a fresh spawnbench for the embedded host
	for _, c := range []struct{ kind, key, fields string }{
		{"wasi-libc", "wasi-libc", ""},
		{"wasi-libc-wasmtime-cli", "wasi-libc", ""},
		{"wasi-libc-wasmtime-cli", "wasi-libc", `, wasmtime: "wasmtime-36"`},
		{"wasi-libc-wamr", "wasi-libc", ""},
		{"wasi-libc-wasmer", "wasi-libc", ""},
		{"wasi-libc-wazero", "wasi-libc", ""},
		{"wasi-libc-wazero", "wasi-libc", `, engine: "interpreter"`},
		{"wasi-libc-node", "wasi-libc-node", ""},
		{"wasi-libc-chromium", "wasi-libc-page", ""},
	} {
		t.Run(c.kind+c.fields, func(t *testing.T) {
			e, dir := wasiLibcBuild(t, c.kind, c.key, c.fields)
			for _, s := range spawnCases {
				checkSpawns(t, webRun(t, e, dir, s.bench, s.n), s.n)
			}
			checkCalibration(t, webRun(t, e, dir, env.Calibration, 1000), 1000)
		})
	}
}

// Firefox on the page build, with its clock step of slack (firefox_test.go).
func TestWasiLibcFirefoxSpawnsCoherently(t *testing.T) {
	t.Parallel()
	e, dir := wasiLibcBuild(t, "wasi-libc-firefox", "wasi-libc-page", "")
	for _, s := range spawnCases {
		checkFirefoxSpawns(t, webRun(t, e, dir, s.bench, s.n), s.n)
	}
}

// Sequential n = 1000 on the embedded host runs to the end with every
// line: wasi-libc before wasi-sdk-21 lost output here (its exit/join
// race, wasi-libc issue 405), and the host must let each exiting thread
// finish its own unlock before the program ends. Every spawn carries the
// CPUs the host noted.
func TestWasiLibcSequential1000OnTheEmbeddedHost(t *testing.T) {
	t.Parallel()
	setUpWasiThreads(t)
	const n = 1000
	e, dir := wasiLibcBuild(t, "wasi-libc", "wasi-libc", "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := protocol.NewCollector(n)
	out, err := e.Run(ctx, env.Repetition{Benchmark: env.Sequential, Arg: n, BuildDir: dir, Stdout: c})
	c.Close()
	if err != nil || out.ExitCode != 0 || out.TimedOut || c.Err() != nil {
		t.Fatalf("err %v, exit %d, timed out %v, protocol %v, stderr %q", err, out.ExitCode, out.TimedOut, c.Err(), out.Stderr)
	}
	lines := c.Lines()
	if len(lines) != n {
		t.Fatalf("%d spawn lines, want %d", len(lines), n)
	}
	for i, l := range lines {
		if l.CreateNS == nil || l.JoinedNS == nil || l.SpawnNS < 0 || l.SpawnNS > *l.JoinedNS || time.Duration(*l.JoinedNS) > out.Wall {
			t.Fatalf("spawn %d: %+v (wall %v): want 0 <= spawn_ns <= joined_ns <= wall", i, l, out.Wall)
		}
		if l.ParentCPU == nil || l.ChildCPU == nil || *l.ParentCPU < 0 || *l.ChildCPU < 0 {
			t.Fatalf("spawn %d: parent CPU %v, child CPU %v: want both, as the host noted them", i, l.ParentCPU, l.ChildCPU)
		}
	}
}

// The build is wasi-libc's, not c/wasi/'s: besides thread-spawn and
// wasi_thread_start, its modules import the WASI calls that wasi-libc's
// stdio (fd_fdstat_get, fd_seek) and its thread-list lock (sched_yield)
// make, which the freestanding build's modules, beside it, do not.
func TestWasiLibcBuildLinksTheLibc(t *testing.T) {
	t.Parallel()
	free := setUpWasiThreads(t)
	_, dir := wasiLibcBuild(t, "wasi-libc", "wasi-libc", "")
	for _, b := range []env.Benchmark{env.Sequential, env.Parallel} {
		libc, err := os.ReadFile(filepath.Join(dir, string(b)+".wasm"))
		if err != nil {
			t.Fatal(err)
		}
		freestanding, err := os.ReadFile(filepath.Join(free.buildDir, string(b)+".wasm"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"thread-spawn", "wasi_thread_start", "fd_fdstat_get", "fd_seek", "sched_yield"} {
			if !bytes.Contains(libc, []byte(name)) {
				t.Errorf("%s.wasm has no %q: not built against wasi-libc's threads", b, name)
			}
		}
		for _, name := range []string{"fd_fdstat_get", "fd_seek", "sched_yield"} {
			if bytes.Contains(freestanding, []byte(name)) {
				t.Errorf("the freestanding %s.wasm names %q too, so it tells the builds apart by nothing", b, name)
			}
		}
	}
}

// The toolchain names the sysroot's origin, and a sysroot that is absent
// or single-threaded is refused with the cause and the install.
func TestWasiLibcToolchainNamesTheSysroot(t *testing.T) {
	t.Parallel()
	tc := envFromSpec(t, "wasi-libc", "wasi-libc", "").Toolchain(context.Background())
	if !tc.Present {
		t.Skipf("toolchain missing: %s; install with: %s", tc.Problem, tc.Install)
	}
	if !strings.Contains(tc.Version, "clang") || !strings.Contains(tc.Version, "wasi-libc wasi-sdk-25 (574b88d)") {
		t.Errorf("version %q: want the compiler's and the sysroot's tag and commit", tc.Version)
	}
	single := t.TempDir()
	if err := os.MkdirAll(filepath.Join(single, "lib", "wasm32-wasi"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sysroot, want string }{
		{filepath.Join(single, "absent"), "absent"},
		{single, "THREAD_MODEL=posix"},
	} {
		tc := envFromSpec(t, "wl", "wasi-libc", `, sysroot: "`+c.sysroot+`"`).Toolchain(context.Background())
		if tc.Present || !strings.Contains(tc.Problem, c.want) || !strings.Contains(tc.Install, ".ci/setup") || !strings.Contains(tc.Install, "wasi-sdk") {
			t.Errorf("sysroot %s: present %v, problem %q, install %q: want a problem naming %q and the install", c.sysroot, tc.Present, tc.Problem, tc.Install, c.want)
		}
	}
}

// wasi-libc's pthread_create fails cleanly, with EAGAIN and the
// benchmark's message, when malloc cannot get a thread's stack: 1 MiB of
// memory holds no ten 256 KiB stacks.
func TestWasiLibcSpawnFailureIsReported(t *testing.T) {
	t.Parallel()
	setUpWasiThreads(t)
	e, dir := wasiLibcBuild(t, "wasi-libc", "wasi-libc-1MiB", `, max_memory: 1048576, stack_size: 262144`)
	out := func() env.Outcome {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := e.Run(ctx, env.Repetition{Benchmark: env.Parallel, Arg: 10, BuildDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}()
	if out.ExitCode != 1 || !strings.Contains(string(out.Stderr), "pthread_create failed") {
		t.Errorf("exit %d, stderr %q: want exit 1 and the benchmark's pthread_create message", out.ExitCode, out.Stderr)
	}
}
