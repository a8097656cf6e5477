package env_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/proc"
)

// WAMR's iwasm (bin/iwasm, which .ci/setup builds from
// ../shared/vendor/wamr-2.4.4.tar.gz) on the wasi-freestanding payload's
// own build.

func newWAMR(t testing.TB, fields string) (*env.Environment, string) {
	t.Helper()
	fulltest.Only(t, "builds with wasi-sdk and runs WAMR")
	e := envFromSpec(t, "wamr", "wamr", fields)
	// The Wasmtime CLIs' build: it is the same payload with the same
	// settings, so one build serves both.
	return e, webBuild(t, "wasmtime-cli", e)
}

// TestWAMRSpawnsCoherently holds iwasm's WASI clock to one origin for
// all threads (0 <= spawn_ns <= joined_ns), and runs parallel and
// sequential n = 100, past iwasm's default of 4 threads, which the host
// raises to n.
func TestWAMRSpawnsCoherently(t *testing.T) {
	t.Parallel()
	e, dir := newWAMR(t, "")
	for _, c := range spawnCases {
		checkSpawns(t, webRun(t, e, dir, c.bench, c.n), c.n)
	}
	for _, b := range []env.Benchmark{env.Parallel, env.Sequential} {
		checkSpawns(t, webRun(t, e, dir, b, 100), 100)
	}
	checkCalibration(t, webRun(t, e, dir, env.Calibration, 1000), 1000)
}

// TestWAMRTooFewThreadsSaysWhy: a --max-threads below what parallel
// n = 100 needs (iwasm_flags come after the host's) fails the run with
// iwasm's own reason and the fix, and the spawns measured before it are
// still readable protocol lines.
func TestWAMRTooFewThreadsSaysWhy(t *testing.T) {
	t.Parallel()
	e, dir := newWAMR(t, `, iwasm_flags: ["--max-threads=2"]`)
	out, err := webRunWithin(t, e, dir, env.Parallel, 100, 90*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	stderr := string(out.Stderr)
	if out.ExitCode == 0 || !strings.Contains(stderr, "maximum number of threads exceeded") ||
		!strings.Contains(stderr, "--max-threads=2 came after it; remove it from iwasm_flags") {
		t.Fatalf("parallel 100 at --max-threads=2: exit %d, stderr:\n%s", out.ExitCode, stderr)
	}
	if rows := parseSpawns(t, out.Stdout); len(rows) >= 100 {
		t.Errorf("%d spawn lines from a run that could not spawn them all", len(rows))
	}
}

func TestWAMRShowsItsVersion(t *testing.T) {
	t.Parallel()
	e, _ := newWAMR(t, "")
	tc := e.Toolchain(context.Background())
	if i := strings.Index(tc.Version, "; iwasm "); !tc.Present || i < 0 || !strings.Contains(tc.Version[:i], "clang") {
		t.Errorf("version %q, want the compiler's, then iwasm's", tc.Version)
	}
}

func TestWAMRMissingNamesTheInstall(t *testing.T) {
	t.Parallel()
	e := envFromSpec(t, "w", "wamr", `, iwasm: "iwasm-not-installed"`)
	tc := e.Toolchain(context.Background())
	if tc.Present || !strings.Contains(tc.Problem, "iwasm-not-installed") || !strings.Contains(tc.Install, ".ci/setup") ||
		!strings.Contains(tc.Install, "WAMR_BUILD_LIB_WASI_THREADS") {
		t.Errorf("a missing iwasm gave present %v, problem %q, install %q", tc.Present, tc.Problem, tc.Install)
	}
}

// TestWAMRWithoutWasiThreadsIsNotUsable builds a real iwasm without
// lib-wasi-threads (with WAMR's older lib-pthread, so it has shared memory
// and --max-threads, and loads the modules) from the same archive: its
// toolchain check must refuse it and say why.
func TestWAMRWithoutWasiThreadsIsNotUsable(t *testing.T) {
	t.Parallel()
	fulltest.Only(t, "builds WAMR (seconds)")
	archive := wamrArchive(t)
	for _, tool := range []string{"cmake", "make", "cc"} {
		if why := proc.Missing(tool); why != "" {
			t.Skipf("%s; install with: apt-get install -y cmake build-essential", why)
		}
	}
	// Unoptimised, with the classic interpreter alone: the check only
	// loads a module, and this compiles in a third of a Release's time.
	cmake := []string{"cmake", "..", "-DWAMR_BUILD_LIB_PTHREAD=1", "-DWAMR_BUILD_SIMD=0",
		"-DWAMR_BUILD_AOT=0", "-DWAMR_BUILD_FAST_INTERP=0", "-DCMAKE_BUILD_TYPE=None", "-DCMAKE_C_FLAGS=-O0"}
	// The build is kept across test runs, keyed by what it reads (the
	// archive, the flags, the compiler): the test is about how spawnbench
	// judges such an iwasm, and the build took a third of the package's
	// time.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	key := []string{"iwasm without lib-wasi-threads", fileDigest(t, archive), strings.Join(cmake, " ")}
	for _, tool := range []string{"cc", "cmake"} {
		version, err := proc.Output(ctx, "", tool, "--version")
		if err != nil {
			t.Fatal(err)
		}
		key = append(key, version)
	}
	iwasm, err := fulltest.Cached(strings.Join(key, "\n"), "iwasm", func(root string) error {
		if _, err := proc.Output(ctx, root, "tar", "xzf", archive); err != nil {
			return err
		}
		build := filepath.Join(root, "wamr-2.4.4", "product-mini", "platforms", "linux", "build")
		if err := os.MkdirAll(build, 0o755); err != nil {
			return err
		}
		if _, err := proc.Output(ctx, build, cmake...); err != nil {
			return err
		}
		if _, err := proc.Output(ctx, build, "make", "-j2", "iwasm"); err != nil {
			return err
		}
		// build/iwasm is a link to build/iwasm-2.4.4.
		if err := os.Rename(filepath.Join(build, "iwasm-2.4.4"), filepath.Join(root, "iwasm")); err != nil {
			return err
		}
		return os.RemoveAll(filepath.Join(root, "wamr-2.4.4"))
	})
	if err != nil {
		t.Fatal(err)
	}
	e := envFromSpec(t, "w", "wamr", `, iwasm: "`+iwasm+`"`)
	tc := e.Toolchain(context.Background())
	if tc.Present || !strings.Contains(tc.Problem, "-DWAMR_BUILD_LIB_WASI_THREADS=1") ||
		!strings.Contains(tc.Problem, "thread-spawn") {
		t.Errorf("an iwasm without lib-wasi-threads gave present %v, problem %q", tc.Present, tc.Problem)
	}
}

// wamrArchive is WAMR's source archive, where .ci/setup looks for it.
func wamrArchive(t *testing.T) string {
	t.Helper()
	shared := os.Getenv("SPAWNBENCH_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "..", "..", "shared")
	}
	archive := filepath.Join(shared, "vendor", "wamr-2.4.4.tar.gz")
	if _, err := os.Stat(archive); err != nil {
		t.Skipf("WAMR's source archive is absent (%v): put ../shared next to the repository or set SPAWNBENCH_SHARED", err)
	}
	abs, err := filepath.Abs(archive)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// fileDigest is the sha256 of path's content, in hex.
func fileDigest(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// TestSpawnProbeIsItsSource: the embedded probe module is spawn_probe.wat
// assembled.
func TestSpawnProbeIsItsSource(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		t.Skip("wat2wasm is not installed; install with: apt-get install -y wabt")
	}
	out := filepath.Join(t.TempDir(), "probe.wasm")
	if _, err := proc.Output(context.Background(), "", "wat2wasm", "--enable-threads", "spawn_probe.wat", "-o", out); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("spawn_probe.wasm")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("spawn_probe.wasm is not spawn_probe.wat assembled: run wat2wasm --enable-threads spawn_probe.wat -o spawn_probe.wasm")
	}
}
