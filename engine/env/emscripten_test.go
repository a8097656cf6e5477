package env_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"spawnbench/internal/fulltest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"spawnbench"
	"spawnbench/engine/buildcache"
	"spawnbench/engine/env"
	"spawnbench/engine/spec"
)

// The tests of the web kinds (emscripten, emscripten-chromium, manual,
// manual-node) build once per environment and run real Node.js and real
// headless Chromium with small n.

// webEnv makes a web environment the way a spec declares it.
func webEnv(t testing.TB, kind, fields string) *env.Environment {
	t.Helper()
	return envFromSpec(t, "web", kind, fields)
}

// webBuilds holds one build directory per payload build (BuildKey), shared
// by the tests of this package as a run's build cache shares it between
// the hosts of one payload.
var webBuilds = struct {
	sync.Mutex
	dirs map[string]string
	root string
}{dirs: map[string]string{}}

// webBuild is e's payload's build, staged for e's host, as a run prepares
// it; key names the build in the test's log. The builds are kept as a
// user's runs keep theirs, in the product's build cache (engine/buildcache:
// named by the sources' hash and the payload's build key, checked against
// its files' hashes before each use), in this user's directory of test
// builds (fulltest.PayloadBuilds), so that a test binary builds only what
// changed since the last. The tests about building build for themselves.
func webBuild(t testing.TB, key string, e *env.Environment) string {
	t.Helper()
	fulltest.Only(t, "builds with a real compiler")
	if tc := e.Toolchain(context.Background()); !tc.Present {
		t.Skipf("toolchain missing: %s; install with: %s", tc.Problem, tc.Install)
	}
	webBuilds.Lock()
	defer webBuilds.Unlock()
	// sid's Emscripten 6 ships no prebuilt system libraries: its first
	// build makes them into the fresh cache, about 5 minutes on 2 busy
	// cores.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	build := e.BuildKey(ctx)
	if dir, ok := webBuilds.dirs[build]; ok {
		staged, err := e.Stage(ctx, dir)
		if err != nil {
			t.Fatalf("stage %s: %v", key, err)
		}
		return staged
	}
	webBuildRoot(t)
	builds, err := fulltest.PayloadBuilds()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cache := &buildcache.Cache{Dir: builds, Sources: spawnbench.Sources}
	dir, cached, err := cache.Build(ctx, seededBuild{e})
	if err != nil {
		t.Fatalf("build %s: %v", key, err)
	}
	if !cached {
		t.Logf("built %s in %v", key, time.Since(start).Round(time.Millisecond))
	}
	webBuilds.dirs[build] = dir
	staged, err := e.Stage(ctx, dir)
	if err != nil {
		t.Fatalf("stage %s: %v", key, err)
	}
	return staged
}

// webBuildRoot makes the test binary's directory for what its builds
// leave besides the build (emcc's cache), once; under webBuilds' lock.
func webBuildRoot(t testing.TB) {
	t.Helper()
	if webBuilds.root != "" {
		return
	}
	removeDeadWebBuilds()
	root, err := os.MkdirTemp("", webBuildPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		t.Fatal(err)
	}
	webBuilds.root = root
	// The caches a build keeps under XDG_CACHE_HOME (emcc's) start from
	// nothing in each test binary, as on a fresh machine.
	if err := os.Setenv("XDG_CACHE_HOME", filepath.Join(root, "cache")); err != nil {
		t.Fatal(err)
	}
}

// freshWebBuild builds e's payload for real into a directory of the
// test's own, with the test binary's fresh caches: for a test about the
// build itself, which a kept build (webBuild) would not run. The build
// holds no lock, so the other tests' kept builds are not held up: e's
// toolchain must be the machine's (buildWeb seeds a root's).
func freshWebBuild(t *testing.T, e *env.Environment) string {
	t.Helper()
	fulltest.Only(t, "builds with a real compiler")
	tc := e.Toolchain(context.Background())
	if !tc.Present {
		t.Skipf("toolchain missing: %s; install with: %s", tc.Problem, tc.Install)
	}
	if strings.Contains(tc.Version, "[sid root ") {
		t.Fatalf("freshWebBuild of a root's toolchain (%s): use webBuild", tc.Version)
	}
	func() {
		webBuilds.Lock()
		defer webBuilds.Unlock()
		webBuildRoot(t)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	return buildInTempDir(t, ctx, e)
}

// buildInTempDir builds e's payload from a fresh copy of the sources into
// a directory of the test's own, and returns it.
func buildInTempDir(t testing.TB, ctx context.Context, e *env.Environment) string {
	t.Helper()
	dir := t.TempDir()
	src, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
	if err := spawnbench.Sources.WriteTo(src); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e.Build(ctx, src, out); err != nil {
		t.Fatalf("build %s: %v", e.Kind(), err)
	}
	return out
}

// seededBuild is an environment whose payload buildcache builds with
// buildWeb.
type seededBuild struct{ *env.Environment }

func (b seededBuild) Build(ctx context.Context, src, dir string) error {
	return buildWeb(ctx, b.Environment, src, dir)
}

// buildWeb builds e's payload from src into dir, as webBuild's caller
// holds webBuilds' lock. An Emscripten of a root (sid's ships no prebuilt
// system libraries) makes its libraries into spawnbench's Emscripten
// cache under the fresh XDG_CACHE_HOME at its first build, as on a new
// machine: minutes of both cores for libraries of Emscripten's own
// sources, which no test asserts anything about. That first build is
// made for real once per emcc and root (the toolchain's version names
// both), and the cache it left is kept (fulltest.Cached); later test
// binaries put a copy of it where spawnbench keeps its cache, as a
// machine that built once has it, and then build for real. The build
// (emcc run in the root, the cache's directories spawnbench's) and
// everything the tests check of it are unchanged.
func buildWeb(ctx context.Context, e *env.Environment, src, dir string) error {
	tc := e.Toolchain(ctx)
	if !strings.HasPrefix(e.Kind(), "emscripten") || !strings.Contains(tc.Version, "[sid root ") || emccSeeded[tc.Version] {
		return e.Build(ctx, src, dir)
	}
	emccSeeded[tc.Version] = true
	caches := filepath.Join(webBuilds.root, "cache", "spawnbench")
	before, _ := filepath.Glob(filepath.Join(caches, "emscripten-*"))
	built := false
	kept, err := fulltest.Cached("the Emscripten cache a first build of "+tc.Version+" leaves", "emscripten", func(keep string) error {
		built = true
		if err := e.Build(ctx, src, dir); err != nil {
			return err
		}
		after, _ := filepath.Glob(filepath.Join(caches, "emscripten-*"))
		var made []string
		for _, d := range after {
			if !slices.Contains(before, d) {
				made = append(made, d)
			}
		}
		if len(made) != 1 {
			return fmt.Errorf("the first build of %s made the Emscripten caches %v in %s, want one", tc.Version, made, caches)
		}
		to := filepath.Join(keep, "emscripten", filepath.Base(made[0]))
		if err := os.MkdirAll(to, 0o755); err != nil {
			return err
		}
		return copyTree(made[0], to)
	})
	if err != nil || built {
		return err
	}
	if err := os.MkdirAll(caches, 0o755); err != nil {
		return err
	}
	if err := copyTree(kept, caches); err != nil {
		return err
	}
	return e.Build(ctx, src, dir)
}

// emccSeeded: the Emscripten toolchains (by version) whose cache
// buildWeb has made or put in place in this test binary; under webBuilds'
// lock.
var emccSeeded = map[string]bool{}

// copyTree copies what the directory from holds into the directory to
// (cp -a: links as links, modes and times kept).
func copyTree(from, to string) error {
	if out, err := exec.Command("cp", "-a", from+"/.", to).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a %s %s: %v: %s", from, to, err, out)
	}
	return nil
}

// webBuildPrefix names the build directories of the web kinds' tests. They
// are shared by all the tests of a test binary, so they outlive each
// test; the next test binary removes those whose process is gone.
const webBuildPrefix = "spawnbench-web-test-"

func removeDeadWebBuilds() {
	old, _ := filepath.Glob(filepath.Join(os.TempDir(), webBuildPrefix+"*"))
	for _, dir := range old {
		pid := strings.SplitN(strings.TrimPrefix(filepath.Base(dir), webBuildPrefix), "-", 2)[0]
		if _, err := os.Stat(filepath.Join("/proc", pid)); err != nil {
			os.RemoveAll(dir)
		}
	}
}

// webRun runs one repetition and fails the test unless it exited 0.
func webRun(t testing.TB, e *env.Environment, dir string, b env.Benchmark, arg int) env.Outcome {
	t.Helper()
	out, err := webRunWithin(t, e, dir, b, arg, 90*time.Second)
	if err != nil {
		t.Fatalf("run %s %d: %v", b, arg, err)
	}
	if out.ExitCode != 0 || out.TimedOut || out.Signal != "" {
		t.Fatalf("run %s %d: exit %d, signal %q, timed out %v, stderr:\n%s", b, arg, out.ExitCode, out.Signal, out.TimedOut, out.Stderr)
	}
	return out
}

func webRunWithin(t testing.TB, e *env.Environment, dir string, b env.Benchmark, arg int, timeout time.Duration) (env.Outcome, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return e.Run(ctx, env.Repetition{Benchmark: b, Arg: arg, BuildDir: dir})
}

// checkSpawns checks n lines of plausible, coherent times: the child's
// first reading lies between the parent's start and its join (so the
// child's and the parent's clocks agree), nothing is negative, and no
// spawn of a small n takes longer than the whole process did.
func checkSpawns(t testing.TB, out env.Outcome, n int) [][3]int64 {
	t.Helper()
	rows := parseSpawns(t, out.Stdout)
	if len(rows) != n {
		t.Fatalf("%d spawn lines, want %d:\n%s", len(rows), n, out.Stdout)
	}
	for i, r := range rows {
		spawn, create, joined := r[0], r[1], r[2]
		if spawn < 0 || spawn > joined || create < 0 || create > joined || joined <= 0 {
			t.Errorf("spawn %d: spawn_ns %d, create_ns %d, joined_ns %d: want 0 <= spawn, create <= joined, joined > 0", i, spawn, create, joined)
		}
		if time.Duration(joined) > out.Wall {
			t.Errorf("spawn %d: joined_ns %d is longer than the whole run (%v)", i, joined, out.Wall)
		}
	}
	return rows
}

// checkCalibration checks one calibration run of a sleep of us.
func checkCalibration(t testing.TB, out env.Outcome, us int) {
	t.Helper()
	var measured int64 = -1
	for _, line := range strings.Split(strings.TrimSpace(string(out.Stdout)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
		if err != nil {
			t.Fatalf("calibration line %q: %v", line, err)
		}
		measured = v
	}
	if measured < int64(us)*1000 || time.Duration(measured) > out.Wall {
		t.Errorf("a %d us sleep measured %d ns, run wall time %v: want between the two", us, measured, out.Wall)
	}
}

func newEmscripten(t testing.TB) (*env.Environment, string) {
	t.Helper()
	e := webEnv(t, "emscripten", "")
	return e, webBuild(t, "emscripten", e)
}

// newEmscriptenChromium is the test binary's shared emscripten-chromium
// environment (sharedEnv).
func newEmscriptenChromium(t testing.TB) (*env.Environment, string) {
	t.Helper()
	e := sharedEnv(t, "emscripten-chromium")
	return e, webBuild(t, "emscripten-chromium", e)
}

func TestEmscriptenSettingsComeFromTheSchema(t *testing.T) {
	t.Parallel()
	e := webEnv(t, "emscripten", "")
	key := e.BuildKey(context.Background())
	for _, want := range []string{`"optimization":"3"`, `"pthread_pool_size":0`, `"proxy_to_pthread":true`,
		`"initial_memory":268435456`, `"default_pthread_stack_size":65536`} {
		if !strings.Contains(key, want) {
			t.Errorf("build key %s lacks %s", key, want)
		}
	}
	pool := webEnv(t, "emscripten", `, pthread_pool_size: 8`)
	if pool.BuildKey(context.Background()) == key {
		t.Error("a different pool size has the same build key")
	}
	// One build for every host: the page is part of the payload's build.
	for _, kind := range []string{"emscripten-chromium", "emscripten-firefox"} {
		if other := webEnv(t, kind, ""); other.BuildKey(context.Background()) != key || other.BuildName() != e.BuildName() {
			t.Errorf("%s does not share emscripten's build (%s, %s)", kind, other.BuildName(), other.BuildKey(context.Background()))
		}
	}
	for _, bad := range []string{`, initial_memory: 100000`, `, default_pthread_stack_size: 1030`} {
		s, err := spec.Parse("bad.cue", []byte(`environments: [{name: "b", kind: "emscripten"`+bad+`}]
n: [1]
`))
		// The schema refuses them: bad input, before any build.
		if err == nil || !strings.Contains(err.Error(), "MultipleOf") {
			t.Errorf("settings %s: spec %v, error %v; want a refusal naming the multiple", bad, s, err)
		}
	}
}

func TestEmscriptenBuildUsesAWritableSeededCache(t *testing.T) {
	t.Parallel()
	e := webEnv(t, "emscripten", "")
	dir := freshWebBuild(t, e)
	for _, b := range env.Benchmarks {
		for _, suffix := range []string{".js", ".wasm", ".worker.js"} {
			if _, err := os.Stat(filepath.Join(dir, string(b)+suffix)); err != nil {
				t.Errorf("build lacks %s%s: %v", b, suffix, err)
			}
		}
	}
	if e.Kind() != "emscripten" {
		t.Fatalf("kind %s", e.Kind())
	}
	// One cache per Emscripten release: the sid root's (another test's
	// build) has its own beside this one, the system emcc's.
	version, err := exec.Command("emcc", "-dumpversion").Output()
	if err != nil {
		t.Fatalf("emcc -dumpversion: %v", err)
	}
	cacheDirs, _ := filepath.Glob(filepath.Join(webBuilds.root, "cache", "spawnbench", "emscripten-"+strings.TrimSpace(string(version))))
	if len(cacheDirs) != 1 {
		t.Fatalf("Emscripten caches %v, want one for emcc %s under the fresh XDG_CACHE_HOME", cacheDirs, strings.TrimSpace(string(version)))
	}
	// emcc writes sanity.txt only into a cache it may write to.
	if _, err := os.Stat(filepath.Join(cacheDirs[0], "sanity.txt")); err != nil {
		t.Errorf("emcc did not use the cache as a writable one: %v", err)
	}
	libc := filepath.Join(cacheDirs[0], "sysroot", "lib", "wasm32-emscripten", "libc-mt.a")
	if fi, err := os.Lstat(libc); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is not a link to the installation's prebuilt library (%v): the cache was not seeded", libc, err)
	}
}

func TestEmscriptenNodeSpawnsCoherently(t *testing.T) {
	t.Parallel()
	e, dir := newEmscripten(t)
	checkSpawns(t, webRun(t, e, dir, env.Sequential, 10), 10)
	checkSpawns(t, webRun(t, e, dir, env.Parallel, 10), 10)
}

// TestEmscriptenChromiumSpawnsCoherently holds c/sb.h's clock for
// Emscripten to its promise: with Emscripten 3.1.6's own CLOCK_MONOTONIC
// a child's reading in Chromium comes milliseconds after the parent's
// join.
func TestEmscriptenChromiumSpawnsCoherently(t *testing.T) {
	t.Parallel()
	e, dir := newEmscriptenChromium(t)
	// A child's reading and its parent's come from two contexts, each the
	// sum of a coarsened timeOrigin and a coarsened now(): they may
	// disagree by two coarse steps each way (seen: a child 15 µs after its
	// parent's join). Emscripten's own clock was off by milliseconds.
	tolerance := 4 * e.Facts().ClockStepNS
	checkSpawnsWithin(t, webRun(t, e, dir, env.Sequential, 10), 10, tolerance)
	checkSpawnsWithin(t, webRun(t, e, dir, env.Parallel, 10), 10, tolerance)
}

func TestEmscriptenCalibrationSeesTheSleep(t *testing.T) {
	t.Parallel()
	for _, mk := range []func(testing.TB) (*env.Environment, string){newEmscripten, newEmscriptenChromium} {
		e, dir := mk(t)
		checkCalibration(t, webRun(t, e, dir, env.Calibration, 1000), 1000)
	}
}

// TestEmscriptenTimeoutIsAnOutcome: a run past its deadline is a timed-out
// Outcome, and none of the processes it started (Node.js; Chromium's
// tree and crash handlers) outlives it. Only this test's own processes
// are counted: others on the machine, a user's browser say, may come and
// go meanwhile.
func TestEmscriptenTimeoutIsAnOutcome(t *testing.T) {
	type subject struct {
		e       *env.Environment
		dir     string
		timeout time.Duration
		least   int // processes a running subject has at least
	}
	// Built first: the builds are shared and outlive this test's TMPDIR.
	// A Chromium of its own: its processes are the ones counted.
	node, nodeDir := newEmscripten(t)
	chromium := webEnv(t, "emscripten-chromium", "")
	chromiumDir := webBuild(t, "emscripten-chromium", chromium)
	owned := ownProcesses(t)
	// 100 parallel threads take seconds in either host.
	for _, c := range []subject{{node, nodeDir, 300 * time.Millisecond, 1}, {chromium, chromiumDir, 2 * time.Second, 2}} {
		stop := make(chan struct{})
		most := owned.watch(stop)
		out, err := webRunWithin(t, c.e, c.dir, env.Parallel, 100, c.timeout)
		close(stop)
		if err != nil {
			t.Errorf("%s: a timeout must be an Outcome, not an error: %v", c.e.Kind(), err)
			continue
		}
		if !out.TimedOut {
			t.Errorf("%s: TimedOut is false (exit %d, %d bytes of stdout)", c.e.Kind(), out.ExitCode, len(out.Stdout))
		}
		if left := owned.living(); len(left) > 0 {
			t.Errorf("%s: %d of the processes it started run after the timeout: %q", c.e.Kind(), len(left), left)
		}
		if seen := <-most; seen < c.least {
			t.Errorf("%s: only %d of its processes were seen running, want %d: the check does not see them", c.e.Kind(), seen, c.least)
		}
	}
}

// TestWebFigures measures the web kinds side by side, Node.js against
// Chromium, for Emscripten pthreads and for raw workers, and prints median
// spawn_ns and joined_ns per cell with the Chromium/Node.js ratios. It
// measures rather than asserts, so it runs only when asked:
//
//	SPAWNBENCH_WEB_FIGURES=1 go test -run TestWebFigures -v -timeout 60m ./engine/env/
//
// SPAWNBENCH_WEB_FIGURES_SAMPLES (default 10) is the spawns wanted per
// cell: ceil(samples/n) processes, at least one. SPAWNBENCH_WEB_FIGURES_N
// (default "1 10 100 1000") lists the n. Repetitions of all environments
// are interleaved, so drifting machine load hits them alike.
func TestWebFigures(t *testing.T) {
	if os.Getenv("SPAWNBENCH_WEB_FIGURES") == "" {
		t.Skip("set SPAWNBENCH_WEB_FIGURES=1 to measure")
	}
	samples := 10
	if s := os.Getenv("SPAWNBENCH_WEB_FIGURES_SAMPLES"); s != "" {
		samples, _ = strconv.Atoi(s)
	}
	ns := []int{1, 10, 100, 1000}
	if s := os.Getenv("SPAWNBENCH_WEB_FIGURES_N"); s != "" {
		ns = nil
		for _, f := range strings.Fields(s) {
			n, _ := strconv.Atoi(f)
			ns = append(ns, n)
		}
	}
	type subject struct {
		name, host string
		env        *env.Environment
		dir        string
	}
	const pool = `, pthread_pool_size: 16`
	var subjects []subject
	for _, s := range []struct{ name, host, kind, fields string }{
		{"emscripten", "node", "emscripten", ""},
		{"emscripten", "chromium", "emscripten-chromium", ""},
		{"emscripten-pool16", "node", "emscripten", pool},
		{"emscripten-pool16", "chromium", "emscripten-chromium", pool},
		{"manual", "node", "manual-node", ""},
		{"manual", "chromium", "manual", ""},
	} {
		e := webEnv(t, s.kind, s.fields)
		subjects = append(subjects, subject{s.name, s.host, e, webBuild(t, s.name+"-"+s.host, e)})
	}

	type cell struct {
		spawn, joined []int64
		ok, failed    int
		why           string
	}
	cells := map[string]*cell{}
	key := func(s subject, b env.Benchmark, n int) string { return fmt.Sprint(s.name, s.host, b, n) }
	for _, b := range []env.Benchmark{env.Sequential, env.Parallel} {
		for _, n := range ns {
			processes := max(1, (samples+n-1)/n)
			for i := 0; i < processes; i++ {
				for _, s := range subjects {
					c := cells[key(s, b, n)]
					if c == nil {
						c = &cell{}
						cells[key(s, b, n)] = c
					}
					out, err := webRunWithin(t, s.env, s.dir, b, n, 10*time.Minute)
					rows := webSpawnsLoose(out.Stdout)
					if err != nil || out.ExitCode != 0 || out.TimedOut || len(rows) != n {
						c.failed++
						c.why = fmt.Sprintf("err %v, exit %d, timed out %v, %d lines; %s", err, out.ExitCode, out.TimedOut, len(rows), lastLine(out.Stderr))
					} else {
						c.ok++
					}
					for _, r := range rows {
						c.spawn = append(c.spawn, r[0])
						c.joined = append(c.joined, r[2])
					}
				}
			}
		}
	}

	us := func(v []int64) string {
		if len(v) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", webMedian(v)/1e3)
	}
	ratio := func(a, b []int64) string {
		if len(a) == 0 || len(b) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", webMedian(a)/webMedian(b))
	}
	var report strings.Builder
	fmt.Fprintf(&report, "median µs per cell; chromium/node = ratio of the medians\n")
	fmt.Fprintf(&report, "%-18s %-10s %5s | %-13s %-13s | %-13s %-13s | %-8s %-8s\n",
		"environment", "mode", "n", "node spawn", "chrom spawn", "node joined", "chrom joined", "spawn", "joined")
	for _, name := range []string{"emscripten", "emscripten-pool16", "manual"} {
		for _, b := range []env.Benchmark{env.Sequential, env.Parallel} {
			for _, n := range ns {
				node := cells[fmt.Sprint(name, "node", b, n)]
				chrom := cells[fmt.Sprint(name, "chromium", b, n)]
				fmt.Fprintf(&report, "%-18s %-10s %5d | %-13s %-13s | %-13s %-13s | %-8s %-8s\n", name, b, n,
					us(node.spawn)+okFailed(node.ok, node.failed), us(chrom.spawn)+okFailed(chrom.ok, chrom.failed),
					us(node.joined), us(chrom.joined), ratio(chrom.spawn, node.spawn), ratio(chrom.joined, node.joined))
			}
		}
	}
	for k, c := range cells {
		if c.failed > 0 {
			fmt.Fprintf(&report, "failures in %s: %d (last: %s)\n", k, c.failed, c.why)
		}
	}
	t.Log("\n" + report.String())
}

func okFailed(ok, failed int) string {
	if failed == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d/%d ok)", ok, ok+failed)
}

// webSpawnsLoose reads what lines a failed run printed, without failing.
func webSpawnsLoose(stdout []byte) [][3]int64 {
	var rows [][3]int64
	for _, line := range strings.Split(string(stdout), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		var row [3]int64
		ok := true
		for i := range f {
			v, err := strconv.ParseInt(f[i], 10, 64)
			row[i], ok = v, ok && err == nil
		}
		if ok {
			rows = append(rows, row)
		}
	}
	return rows
}

func webMedian(v []int64) float64 {
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return float64(s[len(s)/2])
	}
	return float64(s[len(s)/2-1]+s[len(s)/2]) / 2
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
