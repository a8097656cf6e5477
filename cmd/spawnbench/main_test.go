package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/env"
	"spawnbench/engine/proc"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
	"spawnbench/internal/fulltest"
	"spawnbench/internal/reexec"
)

// cacheHome is the XDG_CACHE_HOME of the tests' runs: one cache for the
// package, as a user's runs share theirs, so each payload is built and
// the machine probed once, not in every test. A test about building or
// probing gives its runs a cache of their own (ownCache).
var cacheHome string

// TestMain sets the package's cache for the runs the tests make in-process
// (runCLI) and for those of the built binary (runBinary); the binary is
// built only when a test needs one (binary).
func TestMain(m *testing.M) {
	reexec.Dispatch()
	// The test binary holds package main, whose interrupt package catches
	// Ctrl-C from its init: the tests themselves stop on it as tests do.
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	dir, err := os.MkdirTemp("", "spawnbench-cli-")
	if err != nil {
		panic(err)
	}
	cacheHome = filepath.Join(dir, "cache")
	os.Setenv("XDG_CACHE_HOME", cacheHome)
	// In-process, the embedded runtimes' hosts (spawnbench wasmtime and
	// wazero) are a built spawnbench: this test binary has no such command.
	env.HostExecutable = func() (string, error) { return fulltest.BuildBinary("spawnbench/cmd/spawnbench") }
	// A spec's evaluation is bounded by the resident memory of the whole
	// process (engine/spec tests the bound), which in-process is every
	// parallel test's: the tests' specs are small, so the bound is lifted
	// rather than tripped by a neighbour's report.
	spec.EvalMemory = 1 << 40
	// The package's tests mostly wait (for their benchmarks' sleeps, for
	// processes to start and end, for a Slurm cluster's scheduler) rather
	// than compute: four times as many run at once as go test's default of
	// one a CPU, unless -parallel is given (twice as many kept the package
	// under 1.4 of 2 CPUs busy beside the browser tests). The tests that
	// judge the machine's load are not parallel, so they still run alone.
	flag.Parse()
	parallelGiven := false
	flag.Visit(func(f *flag.Flag) { parallelGiven = parallelGiven || f.Name == "test.parallel" })
	if !parallelGiven {
		flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binary is spawnbench's built binary, for the tests where a process
// boundary is the point: signals, containment, the working directory,
// the environment, other users.
func binary(t testing.TB) string {
	t.Helper()
	return fulltest.Spawnbench(t)
}

// testRoot is a command tree whose output is discarded, for the tests
// that read the tree itself.
func testRoot() *cobra.Command {
	return newRoot(&cli{stdout: io.Discard, stderr: io.Discard, args: []string{"spawnbench"}})
}

// sharedCache is the environment of a run that uses the package's cache.
// It also gives the run the package's one measure of spawnbench's own
// work (withOwnWork).
func sharedCache() []string {
	return withOwnWork(append(os.Environ(), "XDG_CACHE_HOME="+cacheHome))
}

// withOwnWork is env with the package's one measure of spawnbench's own
// work (SPAWNBENCH_OWN_WORK), rather than half a second of the run's own:
// most of the tests' runs are far shorter. The runs of other users, of
// Slurm's tasks and of the tests about probing still measure theirs, as a
// user's do.
func withOwnWork(env []string) []string {
	if testing.Short() {
		return env // as in runCLI
	}
	if own, err := ownWorkOnce(); err == nil {
		env = append(env, ownWorkEnv+"="+ownWorkValue(own))
	}
	return env
}

// ownCache is the environment of a run whose builds and probe are its
// test's alone, under dir: for a test about building or probing.
func ownCache(dir string) []string {
	return append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, ".cache"))
}

// ownBuilds is ownCache with the machine's probe kept there, as the
// package's first probe measured it (probeOnce), and the package's measure
// of spawnbench's own work (withOwnWork): for a test about building, whose
// runs would otherwise each probe the machine (three Node.js processes)
// before they plan, build or measure anything.
func ownBuilds(t *testing.T, dir string) []string {
	t.Helper()
	probe, err := probeOnce()
	if err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir, ".cache", "spawnbench", "machine-probe.json")
	if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept, probe, 0o644); err != nil {
		t.Fatal(err)
	}
	return withOwnWork(ownCache(dir))
}

// probeOnce is the machine probe the built binary keeps after a plan of
// a spec without browsers, in a cache of its own, once per test binary.
var probeOnce = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "spawnbench-probe-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "s.cue")
	if err := os.WriteFile(p, []byte(`environments: [{name: "s", kind: "command", run: ["echo", "1 2 3"]}]`+"\nn: [1]\n"), 0o644); err != nil {
		return nil, err
	}
	exe, err := fulltest.BuildBinary("spawnbench/cmd/spawnbench")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "plan", p)
	cmd.Dir, cmd.Env = dir, ownCache(dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("plan, to probe the machine: %v: %s", err, out)
	}
	return os.ReadFile(filepath.Join(dir, ".cache", "spawnbench", "machine-probe.json"))
})

// runCLI runs spawnbench with args in-process, as main does: execute with
// the program named spawnbench, its error printed on stderr and mapped to
// the exit status. It runs in the test's working directory (the package's)
// and environment, so paths in args are absolute; a test about either
// runs the binary (runBinary). Its runs record the package's one measure
// of spawnbench's own work (ownWorkOnce) rather than each take one.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e fulltest.LockedBuffer
	c := &cli{stdout: &o, stderr: &e, args: append([]string{"spawnbench"}, args...)}
	if !testing.Short() {
		own, err := ownWorkOnce()
		if err != nil {
			t.Fatal(err)
		}
		c.ownWork = &own
	}
	if err := c.execute(t.Context()); err != nil {
		fmt.Fprintln(&e, "spawnbench:", err)
		code = exitCode(err)
	}
	return o.String(), e.String(), code
}

// ownWorkOnce is spawnbench's own work per process, measured once for
// the in-process runs (run.Options' OwnWork): most start fewer processes
// than the 210 of that measure, and none of them looks at a busy verdict
// (engine/run tests the busy rule on a measure of its run's own).
var ownWorkOnce = sync.OnceValues(func() (proc.OwnWork, error) { return proc.MeasureOwnWork(context.Background()) })

// TestOwnWorkFromTheEnvironment: SPAWNBENCH_OWN_WORK gives a measure as
// ownWorkValue writes it, and anything else is bad input, exit 2.
func TestOwnWorkFromTheEnvironment(t *testing.T) {
	want := proc.OwnWork{PerProcessNS: 187995, OthersCPUs: 0.0125, Processes: 210}
	t.Setenv(ownWorkEnv, ownWorkValue(want))
	if got, err := ownWorkFromEnv(); err != nil || got == nil || *got != want {
		t.Errorf("%s=%s: %+v, %v; want %+v", ownWorkEnv, ownWorkValue(want), got, err, want)
	}
	t.Setenv(ownWorkEnv, "")
	if got, err := ownWorkFromEnv(); err != nil || got != nil {
		t.Errorf("%s unset: %+v, %v; want none, to be measured", ownWorkEnv, got, err)
	}
	for _, bad := range []string{"188000", "188000,0.1", "188000,0.1,210,1", "-1,0,210", "188000,-0.1,210", "188000,0,0", "x,0,210", "188000,0,210 "} {
		t.Setenv(ownWorkEnv, bad)
		got, err := ownWorkFromEnv()
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), ownWorkEnv) {
			t.Errorf("%s=%q: %+v, %v; want bad input naming the variable", ownWorkEnv, bad, got, err)
		}
	}
}

// runBinary runs the built spawnbench in dir with the package's cache.
func runBinary(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIWith(t, dir, sharedCache(), args...)
}

// runCLIWith runs the built spawnbench in dir with the environment env.
func runCLIWith(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = dir
	cmd.Env = env
	return fulltest.Run(t, cmd)
}

// writeSpec writes body as dir/s.cue. A body that does not speak of
// settling gets it turned off: the tests' runs start beside the tests'
// own load, which settling would wait out, up to its cap, before the
// first processes of every run (engine/run tests settling).
func writeSpec(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "s.cue")
	if !strings.Contains(body, "settle") {
		body += "\nschedule: settle: cap: \"0s\"\n"
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunFromAnyDirectory(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `name: "tiny"
environments: [{name: "native", kind: "native"}, {name: "later", kind: "wasmtime-someday"}]
n: [2]
samples: {min: 4, processes: 1}
`)
	// An unknown kind is bad input; a spec without it runs.
	_, stderr, code := runBinary(t, dir, "run", p)
	if code != 2 || !strings.Contains(stderr, `unknown kind "wasmtime-someday"`) {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	p = writeSpec(t, dir, `name: "tiny"
environments: [{name: "native", kind: "native"}]
n: [2]
samples: {min: 4, processes: 1}
`)
	stdout, stderr, code := runBinary(t, dir, "run", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "native") || !strings.Contains(stdout, "2 ok") {
		t.Errorf("summary:\n%s", stdout)
	}
	found, _ := filepath.Glob(filepath.Join(dir, "results", "*-tiny"))
	if len(found) != 1 {
		t.Fatalf("default result directory: %v", found)
	}
	set, err := results.Read(found[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Samples) != 4 || len(set.Runs) != 2 {
		t.Errorf("%d samples, %d runs; want 4 and 2", len(set.Samples), len(set.Runs))
	}
}

// TestPlanAndEnvs: plan --env keeps the one environment's cells. (envs
// itself is TestEnvsShowsEveryRuntimeReady's: every kind ready.)
func TestPlanAndEnvs(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	stdout, stderr, code := runCLI(t, "plan", filepath.Join(repoRoot(t), "specs", "sequential.cue"), "--env", "native")
	if code != 0 || !strings.Contains(stdout, "4 cells, 130 processes") {
		t.Errorf("plan: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestBadInputExitsTwoAndWritesNothing covers the bad inputs of the CLI.
func TestBadInputExitsTwoAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	good := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}]
n: [1]
samples: {min: 1, processes: 1}
`)
	bad := filepath.Join(dir, "bad.cue")
	os.WriteFile(bad, []byte("environments: [{name: \"a\", kind: \"native\"}]\nn: [0]\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", filepath.Join(dir, "missing.cue")}, "no such file"},
		{[]string{"run", bad}, "bad.cue:2:"},
		{[]string{"run", good, "--env", "wasi"}, "--env wasi"},
		{[]string{"run"}, "want 1 argument"},
		{[]string{"run", good, "--no-such-flag"}, "unknown flag"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"plan", bad}, "out of bound"},
	}
	for _, c := range cases {
		_, stderr, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	// In-process, a run's default directory is under the test's working
	// directory, the package's, which holds no results/ of its own.
	for _, d := range []string{dir, "."} {
		if _, err := os.Stat(filepath.Join(d, "results")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("bad input wrote %s/results", d)
		}
	}
}

func repoRoot(t *testing.T) string { return fulltest.RepoRoot(t) }

// TestInterruptKeepsSamples sends SIGINT to a long run, as Ctrl-C does.
func TestInterruptKeepsSamples(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}]
n: [1]
samples: {min: 100000, processes: 1, pause: "2ms"}
`)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(binary(t), "run", p, "-o", out)
	cmd.Env = sharedCache()
	var stderr fulltest.LockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once a process has reached the journal: a fixed delay
	// can fall before the first process ends on a busy machine.
	journal := filepath.Join(out, "journal.jsonl")
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if b, _ := os.ReadFile(journal); bytes.Contains(b, []byte(`"k":"process"`)) {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no process recorded in 5 minutes: %s", stderr.String())
		}
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit: %v; stderr %s", err, stderr.String())
	}
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Samples) == 0 || len(set.Samples) != len(set.Runs) || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("%d samples, %d runs; stderr %s", len(set.Samples), len(set.Runs), stderr.String())
	}
}

// startLogged starts spawnbench with args in dir and the environment
// env, its stderr kept.
func startLogged(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, *fulltest.LockedBuffer) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = dir
	cmd.Env = env
	stderr := &fulltest.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stderr
}

// startRun starts `spawnbench run spec -o out` and waits until it has
// built and begun measuring.
func startRun(t *testing.T, dir, spec, out string, extra ...string) (*exec.Cmd, *fulltest.LockedBuffer) {
	t.Helper()
	return startRunWith(t, dir, sharedCache(), spec, out, extra...)
}

// startRunWith is startRun in the environment env.
func startRunWith(t *testing.T, dir string, env []string, spec, out string, extra ...string) (*exec.Cmd, *fulltest.LockedBuffer) {
	t.Helper()
	cmd, stderr := startLogged(t, dir, env, append([]string{"run", spec, "-o", out}, extra...)...)
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), " done\n") && !strings.Contains(stderr.String(), " cached\n") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("run did not start: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cmd, stderr
}

// TestSecondWriterIsRefused: two runs into one directory; the second
// exits 2 naming the first's pid, and the first's set stays whole.
func TestSecondWriterIsRefused(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}]
n: [1]
samples: {min: 100000, processes: 1, pause: "2ms"}
schedule: settle: cap: "0s" // measured processes at once, beside the test's own load
`)
	out := filepath.Join(dir, "out")
	first, stderr := startRun(t, dir, p, out)
	_, second, code := runCLI(t, "run", p, "-o", out)
	want := fmt.Sprintf("pid %d, started", first.Process.Pid)
	if code != 2 || !strings.Contains(second, want) {
		t.Errorf("second writer: exit %d, stderr %q; want 2 naming %q", code, second, want)
	}
	_, second, code = runCLI(t, "calibrate", "-o", out)
	if code != 2 || !strings.Contains(second, want) {
		t.Errorf("calibrate into a held directory: exit %d, stderr %q", code, second)
	}
	first.Process.Signal(os.Interrupt)
	if err := first.Wait(); err == nil {
		t.Fatalf("first run exited 0 after an interrupt: %s", stderr.String())
	}
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Runs) == 0 || len(set.Provenance.Invocations) != 1 || !set.Provenance.Last().Interrupted {
		t.Errorf("first writer's set: %d runs, provenance %+v", len(set.Runs), set.Provenance)
	}
}

// TestKillThenResume kills a real run with SIGKILL at several moments and
// resumes it: the result must equal an uninterrupted run in its keys,
// with no process twice and no temporary file left.
func TestKillThenResume(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}, {name: "echo", kind: "command", run: ["sh", "-c", "i=0; while [ $i -lt $0 ]; do echo 1000 10 2000; i=$((i+1)); done", "{arg}"]}]
modes: ["sequential", "parallel"]
n: [1, 3]
samples: {min: 6, processes: 1, pause: "15ms", warmup: 1}
`)
	keys := func(set *results.Set) map[string]int {
		k := map[string]int{}
		for _, s := range set.Samples {
			k[fmt.Sprintf("%s/%s/%d/%d/%d/%v", s.Environment, s.Mode, s.N, s.Process, s.Thread, s.Warmup)]++
		}
		for _, r := range set.Runs {
			k[fmt.Sprintf("run %s/%s/%d/%d/%v", r.Environment, r.Mode, r.N, r.Process, r.Warmup)]++
		}
		return k
	}
	whole := filepath.Join(dir, "whole")
	// The built binary, whose recorded version is checked below.
	if _, stderr, code := runBinary(t, dir, "run", p, "-o", whole, "--seed", "11"); code != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", code, stderr)
	}
	wholeSet, err := results.Read(whole)
	if err != nil {
		t.Fatal(err)
	}
	if inv := wholeSet.Provenance.Last(); inv.Seed != 11 || inv.Order != "interleave" || len(inv.Resolved) == 0 || len(inv.Args) == 0 {
		t.Errorf("--seed 11: recorded order %q seed %d, resolved %d bytes, args %v", inv.Order, inv.Seed, len(inv.Resolved), inv.Args)
	}
	// The version is the checkout's VCS revision, which the tests' binary
	// is built from.
	if v := wholeSet.Provenance.Last().Version; !regexp.MustCompile(`^[0-9a-f]{40}(\+dirty)?$`).MatchString(v) {
		t.Errorf("spawnbench_version %q is not a VCS revision", v)
	}
	// The run took the package's measure of spawnbench's own work from
	// the environment (sharedCache) rather than measuring its own.
	if own, err := ownWorkOnce(); err == nil {
		if got := wholeSet.Provenance.Last().OwnWork; got == nil || got.PerProcessNS != own.PerProcessNS || got.OthersCPUs != own.OthersCPUs || got.Processes != own.Processes {
			t.Errorf("own work recorded %+v, want the package's measure %+v, as %s gave it", got, own, ownWorkEnv)
		}
	}
	want := keys(wholeSet)
	for _, after := range []time.Duration{0, 150 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond} {
		t.Run(after.String(), func(t *testing.T) {
			out := filepath.Join(dir, "killed-"+after.String())
			cmd, _ := startRun(t, dir, p, out)
			time.Sleep(after)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			// The resume as a process of its own, as a scheduler's retry
			// is: in-process, beside the package's parallel tests, it once
			// lost a process's samples (not understood yet; the note says so).
			_, stderr, code := runBinary(t, dir, "run", p, "-o", out, "--resume")
			if code != 0 {
				t.Fatalf("resume: exit %d: %s", code, stderr)
			}
			set, err := results.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			got := keys(set)
			for k, n := range got {
				if n != 1 {
					t.Errorf("%s recorded %d times", k, n)
				}
				if want[k] == 0 {
					t.Errorf("%s is not in the uninterrupted run", k)
				}
			}
			missing := 0
			for k := range want {
				if got[k] == 0 {
					t.Errorf("%s missing after resume", k)
					missing++
				}
			}
			if missing > 0 {
				for _, r := range set.Runs {
					t.Logf("run %s/%s/%d/%d warmup %v: %s %q, invocation %d", r.Environment, r.Mode, r.N, r.Process, r.Warmup, r.Status, r.Error, r.Invocation)
				}
				t.Logf("resume's stderr:\n%s", stderr)
			}
			invs := set.Provenance.Invocations
			switch {
			case len(invs) == 1 && invs[0].EndedAt != nil && !invs[0].Interrupted:
				// The run had finished before the kill: the resume has
				// nothing to do.
				if !strings.Contains(stderr, out+" is complete") {
					t.Errorf("resume of a finished run: %s", stderr)
				}
			case len(invs) != 2 || invs[0].Command != "run" || invs[1].Command != "resume" || invs[1].EndedAt == nil || invs[1].Seed != invs[0].Seed:
				t.Errorf("invocations: %+v", invs)
			}
			if left, _ := filepath.Glob(filepath.Join(out, ".*"+atomicfile.TempMarker+"*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
			if _, err := os.Stat(filepath.Join(out, results.JournalFile)); err == nil {
				t.Errorf("journal left after a finished resume")
			}
		})
	}
	// Another spec's directory is refused.
	other := filepath.Join(dir, "other.cue")
	os.WriteFile(other, []byte(`environments: [{name: "native", kind: "native"}]
n: [2]
`), 0o644)
	if _, stderr, code := runCLI(t, "run", other, "-o", whole, "--resume"); code != 2 || !strings.Contains(stderr, "was made by spec") {
		t.Errorf("resume with another spec: exit %d, %s", code, stderr)
	}
}

// TestInterruptDuringBuild: Ctrl-C while an environment builds stops at
// once with 130, records the invocation as interrupted, and records no
// skip (an interrupted build is not a missing toolchain).
func TestInterruptDuringBuild(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "slow", kind: "command", build: [["sleep", "60"]], run: ["echo", "1 1 2"]}]
n: [1]
`)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(binary(t), "run", p, "-o", out)
	cmd.Env = ownBuilds(t, dir) // its build is what is interrupted
	stderr := &fulltest.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), "building slow"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("build did not start: %s", stderr.String())
		}
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	start := time.Now()
	err := cmd.Wait()
	var exit *exec.ExitError
	// Ten seconds: far above an idle machine's milliseconds, far below
	// the build's sleep.
	if !errors.As(err, &exit) || exit.ExitCode() != 130 || time.Since(start) > 10*time.Second {
		t.Fatalf("exit %v after %s; stderr %s", err, time.Since(start), stderr.String())
	}
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	inv := set.Provenance.Last()
	if inv == nil || !inv.Interrupted || len(inv.Skipped) != 0 || strings.Contains(stderr.String(), "SKIP") {
		t.Errorf("after an interrupted build: provenance %+v; stderr %s", set.Provenance, stderr.String())
	}
}

// TestInterruptedCalibrateKeepsItsChecks: Ctrl-C during a long sleep check
// keeps the checks already made, exits 130, and a run into the same
// directory afterwards keeps both invocations.
func TestInterruptedCalibrateKeepsItsChecks(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}]
n: [1]
samples: {min: 2, processes: 1}
calibration: {sleep_us: [1000, 30000000], repeats: 1, coherence: {n: 2, processes: 1}}
`)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(binary(t), "calibrate", p, "-o", out)
	cmd.Env = sharedCache()
	stderr := &fulltest.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The 1 ms check is journalled before the 30 s sleep starts.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if set, err := results.Read(out); err == nil && len(set.Calibration) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no check recorded: %s", stderr.String())
		}
	}
	cmd.Process.Signal(os.Interrupt)
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit %v; stderr %s", err, stderr.String())
	}
	if _, stderr, code := runCLI(t, "run", p, "-o", out); code != 0 {
		t.Fatalf("run after calibrate: exit %d: %s", code, stderr)
	}
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	invs := set.Provenance.Invocations
	if len(set.Calibration) != 1 || set.Calibration[0].RequestedNS != 1e6 || len(invs) != 2 ||
		invs[0].Command != "calibrate" || !invs[0].Interrupted || invs[1].Command != "run" || invs[1].Interrupted || len(set.Runs) != 2 {
		t.Errorf("%d checks, %d runs, invocations %+v", len(set.Calibration), len(set.Runs), invs)
	}
}

// TestLargeOutputKeepsMemoryBounded: a benchmark that prints 300 MB of
// well-formed spawn lines for n = 1 is a failed process with a clear
// reason, and spawnbench's memory stays bounded by n, not by the output.
func TestLargeOutputKeepsMemoryBounded(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "chatty", kind: "command", run: ["sh", "-c", "yes '1 2 3' | head -c 300000000"]}]
n: [1]
samples: {min: 1, processes: 1}
limits: timeout: "60s"
`)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(binary(t), "run", p, "-o", out)
	cmd.Env = append(sharedCache(), "GODEBUG=gctrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// spawnbench's own peak (VmHWM), read until it exits: not ru_maxrss,
	// which is the largest of it and every descendant, the cost probe's
	// Node.js among them.
	var rss int64
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			waiting = false
		case <-tick.C:
			if b, err := os.ReadFile(status); err == nil {
				for _, line := range strings.Split(string(b), "\n") {
					if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
						if v, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(kb, "kB")), 10, 64); err == nil && v<<10 > rss {
							rss = v << 10
						}
					}
				}
			}
		}
	}
	if rss == 0 {
		t.Fatal("never read spawnbench's peak resident set from " + status)
	}
	if rss > 200<<20 {
		// The Go heap's sizes at each collection say whether it was the
		// heap (gctrace's a->b->c MB) or something else of the process.
		var heaps []string
		for _, line := range strings.Split(stderr.String(), "\n") {
			if f := strings.Fields(line); len(f) > 10 && f[0] == "gc" {
				heaps = append(heaps, f[10])
			}
		}
		t.Errorf("spawnbench peaked at %d MB for 300 MB of output; its heap at each collection (MB): %v", rss>>20, heaps)
	}
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Runs) != 1 || set.Runs[0].Status != results.StatusFailed || !strings.Contains(set.Runs[0].Error, "spawn lines for n = 1") || len(set.Samples) != 1 {
		t.Fatalf("%d runs (first: %s %q), %d samples", len(set.Runs), set.Runs[0].Status, set.Runs[0].Error, len(set.Samples))
	}
	t.Logf("peak RSS %d MB; %s", rss>>20, set.Runs[0].Error)
}
