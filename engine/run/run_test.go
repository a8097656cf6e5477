package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"spawnbench/internal/fulltest"
	"spawnbench/internal/reexec"

	"spawnbench"
	"spawnbench/engine/buildcache"
	"spawnbench/engine/clockcheck"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/proc"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

// cacheDir is the build cache of the tests' runs: the one the tests that
// only run a payload keep across test binaries and runs
// (fulltest.PayloadBuilds), as a user's runs keep theirs, so a payload is
// built again only when it changed. The tests about building take a
// cache of their own.
var cacheDir string

func TestMain(m *testing.M) {
	reexec.Dispatch()
	dir, err := fulltest.PayloadBuilds()
	if err != nil {
		panic(err)
	}
	cacheDir = dir
	os.Exit(m.Run())
}

// runSpec loads src as a spec and runs it into a new directory.
func runSpec(t *testing.T, ctx context.Context, src string, only ...string) (*results.Set, string, error) {
	t.Helper()
	return runSpecWith(t, ctx, sharedOptions(t), src, only...)
}

// runSpecWith is runSpec with the runner's options.
func runSpecWith(t *testing.T, ctx context.Context, o Options, src string, only ...string) (*results.Set, string, error) {
	t.Helper()
	fulltest.Only(t, "runs real processes")
	s, err := spec.Parse("test.cue", []byte(settleOff(src)))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := spec.Expand(s, only)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "results")
	runErr := runPlanIntoWith(t, ctx, o, out, plan, RunOptions{})
	set, err := results.Read(out)
	if err != nil {
		t.Fatalf("read back %s: %v", out, err)
	}
	return set, out, runErr
}

// settleOff turns settling off in a spec that does not speak of it, as
// cmd/spawnbench's writeSpec does: the tests' runs start beside the
// tests' own load, which settling would wait out, up to its cap (1 s by
// default), before each of the first three processes of every run. The
// tests of settling itself, and of what a process records of it, set it.
func settleOff(src string) string {
	if strings.Contains(src, "settle") {
		return src
	}
	return src + "\nschedule: settle: cap: \"0s\"\n"
}

// runPlanInto runs plan into dir through a writer of its own, as the CLI
// does.
func runPlanInto(t *testing.T, ctx context.Context, dir string, plan *spec.RunPlan, opts RunOptions) error {
	t.Helper()
	return runPlanIntoWith(t, ctx, sharedOptions(t), dir, plan, opts)
}

// runPlanIntoWith is runPlanInto with the runner's options.
func runPlanIntoWith(t *testing.T, ctx context.Context, o Options, dir string, plan *spec.RunPlan, opts RunOptions) error {
	t.Helper()
	fulltest.Only(t, "runs real processes")
	w, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return New(w, o).Run(ctx, plan, opts)
}

func testOptions() Options {
	return Options{Cache: &buildcache.Cache{Dir: cacheDir, Sources: spawnbench.Sources}, Version: "test"}
}

// sharedOptions are testOptions with spawnbench's own work per process
// measured once for the test binary: most tests start short runs, of
// fewer processes than the 210 of that measure, and look at no busy
// verdict (TestBusyFlagsCellsMeasuredBesideACPUHog, which does, measures
// its own).
func sharedOptions(t *testing.T) Options {
	t.Helper()
	fulltest.Only(t, "runs real processes")
	own, err := ownWorkOnce()
	if err != nil {
		t.Fatal(err)
	}
	o := testOptions()
	o.OwnWork = &own
	return o
}

var ownWorkOnce = sync.OnceValues(func() (proc.OwnWork, error) { return proc.MeasureOwnWork(context.Background()) })

func TestNativeSmallPlan(t *testing.T) {
	t.Parallel()
	set, _, err := runSpec(t, context.Background(), `
environments: [{name: "native", kind: "native"}]
modes: ["sequential", "parallel"]
n: [1, 4]
samples: {min: 8, processes: 1, pause: "1ms", warmup: 1}
pinning: cpus: [0]
`)
	if err != nil {
		t.Fatal(err)
	}
	// n=1: 8 measured + 1 warm-up process; n=4: 2 measured + 1 warm-up.
	wantRuns := map[string]int{"sequential/1": 9, "sequential/4": 3, "parallel/1": 9, "parallel/4": 3}
	gotRuns := map[string]int{}
	for _, r := range set.Runs {
		gotRuns[r.Mode+"/"+itoa32(r.N)]++
		if r.Status != results.StatusOK || r.ExitCode != 0 || r.WallNS <= 0 || r.CPUs.String() != "0" {
			t.Errorf("run %+v: want ok, exit 0, positive wall time, cpus 0", r)
		}
	}
	for k, v := range wantRuns {
		if gotRuns[k] != v {
			t.Errorf("%s: %d processes, want %d", k, gotRuns[k], v)
		}
	}
	measured, warm := map[string]int{}, 0
	for _, s := range set.Samples {
		if s.Warmup {
			warm++
			continue
		}
		measured[s.Mode+"/"+itoa32(s.N)]++
		// A spawn on this machine takes more than 100 ns and less than 1 s.
		if s.SpawnNS < 100 || s.SpawnNS > 1e9 || s.JoinedNS == nil || *s.JoinedNS < s.SpawnNS || s.CreateNS == nil || *s.CreateNS <= 0 {
			t.Errorf("implausible sample %+v", s)
		}
		if !s.ClockTrusted {
			t.Errorf("coherent sample not trusted: %+v", s)
		}
		if s.Thread < 0 || s.Thread >= s.N {
			t.Errorf("thread %d out of range for n=%d", s.Thread, s.N)
		}
	}
	for _, k := range []string{"sequential/1", "sequential/4", "parallel/1", "parallel/4"} {
		if measured[k] != 8 {
			t.Errorf("%s: %d measured samples, want 8", k, measured[k])
		}
	}
	if warm != 2*(1+4) {
		t.Errorf("%d warm-up samples, want 10", warm)
	}
	inv := set.Provenance.Last()
	if len(set.Provenance.Invocations) != 1 || inv.Command != "run" || inv.SpecText == "" || inv.SpecHash == "" ||
		inv.Machine.CPUModel == "" || inv.Machine.Cores == 0 || inv.Machine.Kernel == "" || inv.StartedAt.IsZero() ||
		inv.EndedAt == nil || inv.Interrupted || len(inv.Planned) != 4 || inv.Version != "test" {
		t.Errorf("provenance = %+v", set.Provenance)
	}
	if len(inv.CPUs) != 1 || inv.CPUs[0] != 0 || !strings.Contains(inv.Toolchains["native"], "gcc") {
		t.Errorf("provenance cpus %v toolchains %v", inv.CPUs, inv.Toolchains)
	}
	for _, r := range set.Runs {
		if r.Invocation != inv.ID {
			t.Errorf("run %+v: invocation %d, want %d", r, r.Invocation, inv.ID)
		}
	}
}

// TestPinningReachesTheProcess runs a "benchmark" that prints the CPU list
// it is allowed to run on: the pinned CPU must be all it sees.
func TestPinningReachesTheProcess(t *testing.T) {
	t.Parallel()
	cpu := "0"
	if n := len(availableCPUs(t)); n > 1 {
		cpu = "1"
	}
	set, _, err := runSpec(t, context.Background(), `
environments: [{name: "where", kind: "command", run: ["awk", "/^Cpus_allowed_list/ {print $2}", "/proc/self/status"]}]
n: [1]
samples: {min: 2, processes: 1}
pinning: cpus: [`+cpu+`]
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Samples) != 2 {
		t.Fatalf("%d samples, want 2", len(set.Samples))
	}
	for _, s := range set.Samples {
		if itoa64(s.SpawnNS) != cpu {
			t.Errorf("process saw CPUs %d, want only %s", s.SpawnNS, cpu)
		}
	}
}

// TestFloodIsNamed: issue 33, item 6. A benchmark that floods its
// standard output and never ends is recorded as a timeout whose error
// names the flood and its size; a plain hang is not called a flood.
func TestFloodIsNamed(t *testing.T) {
	t.Parallel()
	set, _, err := runSpec(t, context.Background(), `
environments: [
	{name: "floods", kind: "command", run: ["sh", "-c", "yes '# flood' | head -c 4000000; exec sleep 30"]},
	{name: "hangs", kind: "command", run: ["sleep", "30"]},
]
n: [2]
samples: {min: 1, processes: 1}
limits: timeout: "3s"
`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]results.ProcessRun{}
	for _, r := range set.Runs {
		got[r.Environment] = r
	}
	if r := got["floods"]; r.Status != results.StatusTimeout || !strings.Contains(r.Error, "while flooding its standard output: it printed 3.8 MiB") {
		t.Errorf("floods: status %q, error %q; want a timeout that names a 3.8 MiB flood", r.Status, r.Error)
	}
	if r := got["hangs"]; r.Status != results.StatusTimeout || strings.Contains(r.Error, "flood") {
		t.Errorf("hangs: status %q, error %q; want a timeout, no flood", r.Status, r.Error)
	}
}

func TestFailuresAreRecordedAndTheRunGoesOn(t *testing.T) {
	t.Parallel()
	set, _, err := runSpec(t, context.Background(), `
environments: [
	{name: "fails", kind: "command", run: ["sh", "-c", "echo 5 1 9; echo 'spawn 1 failed' >&2; exit 3"]},
	{name: "crashes", kind: "command", run: ["sh", "-c", "echo 7 1 9; kill -SEGV $$"]},
	{name: "hangs", kind: "command", run: ["sleep", "30"]},
	{name: "short", kind: "command", run: ["echo", "4 1 9"]},
	{name: "garbage", kind: "command", run: ["echo", "hello"]},
	{name: "too-many", kind: "command", run: ["sh", "-c", "echo 1 1 9; echo 2 1 9; echo 3 1 9"]},
	{name: "overlong", kind: "command", run: ["sh", "-c", "head -c 100000 /dev/zero | tr '\\\\0' 7; echo"]},
	{name: "clean-but-says-oom", kind: "command", run: ["sh", "-c", "echo 1 1 9; echo 2 1 9; echo 'warning: out of memory soon' >&2"]},
	{name: "oom", kind: "command", run: ["sh", "-c", "echo 1 1 9; echo 'fatal: out of memory' >&2; exit 1"]},
	{name: "missing-cc", kind: "native", cc: "no-such-compiler-xyz"},
	{name: "native", kind: "native"},
]
n: [2]
samples: {min: 2, processes: 1}
limits: timeout: "300ms"
`)
	if err != nil {
		t.Fatal(err)
	}
	byEnv := map[string]results.ProcessRun{}
	for _, r := range set.Runs {
		byEnv[r.Environment] = r
	}
	check := func(env, status string, exit int32, errPart string) {
		t.Helper()
		r, ok := byEnv[env]
		if !ok {
			t.Errorf("%s: no run recorded", env)
			return
		}
		if r.Status != status || r.ExitCode != exit || !strings.Contains(r.Error, errPart) {
			t.Errorf("%s: status %q exit %d error %q; want %q, %d, containing %q", env, r.Status, r.ExitCode, r.Error, status, exit, errPart)
		}
	}
	check("fails", results.StatusFailed, 3, "spawn 1 failed")
	check("crashes", results.StatusCrashed, -1, "signal")
	check("hangs", results.StatusTimeout, -1, "timeout")
	check("short", results.StatusShort, 0, "printed 1 spawn lines, want 2")
	check("garbage", results.StatusFailed, 0, "not integers")
	check("native", results.StatusOK, 0, "")
	check("too-many", results.StatusFailed, 0, "printed 3 spawn lines for n = 2")
	check("overlong", results.StatusFailed, 0, "longer than")
	check("clean-but-says-oom", results.StatusOK, 0, "out of memory soon")
	check("oom", results.StatusOOM, 1, "out of memory")
	if _, ok := byEnv["missing-cc"]; ok {
		t.Errorf("missing-cc ran")
	}
	skipped := set.Provenance.Last().Skipped
	if !strings.Contains(skipped["missing-cc"], "no-such-compiler-xyz") || !strings.Contains(skipped["missing-cc"], "apt-get install") {
		t.Errorf("skip reason = %q", skipped["missing-cc"])
	}
	// What a failing process printed before it failed is kept.
	kept := map[string]int{}
	for _, s := range set.Samples {
		kept[s.Environment]++
	}
	if kept["fails"] != 1 || kept["crashes"] != 1 || kept["short"] != 1 || kept["native"] != 2 {
		t.Errorf("samples kept per environment = %v", kept)
	}
}

func TestInterruptKeepsWhatWasMeasured(t *testing.T) {
	t.Parallel()
	// Built first, so the interrupt comes while processes run, however
	// slow a busy machine's compiler is.
	if _, _, err := runSpec(t, context.Background(), "environments: [{name: \"native\", kind: \"native\"}]\nn: [1]\nsamples: min: 1\n"); err != nil {
		t.Fatal(err)
	}
	// The interrupt comes once a process has reached the journal, not
	// after a fixed time: on a busy machine the run's own-work
	// measurement alone can outlast any fixed delay.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := filepath.Join(t.TempDir(), "results")
	var cancelled time.Time
	go func() {
		for ctx.Err() == nil && !journalHasProcess(dir) {
			time.Sleep(20 * time.Millisecond)
		}
		cancelled = time.Now()
		cancel()
	}()
	s, err := spec.Parse("test.cue", []byte(settleOff(`
environments: [{name: "native", kind: "native"}]
n: [1]
samples: {min: 100000, processes: 1, pause: "5ms"}
`)))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := spec.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = runPlanInto(t, ctx, dir, plan, RunOptions{})
	set, readErr := results.Read(dir)
	if readErr != nil {
		t.Fatalf("read back %s: %v", dir, readErr)
	}
	if !IsInterrupt(err) {
		t.Fatalf("err = %v, want the interrupt", err)
	}
	// Thirty seconds: far above an idle machine's milliseconds, far
	// below the 100000 processes.
	if took := time.Since(cancelled); took > 30*time.Second {
		t.Errorf("stopping took %s", took)
	}
	if len(set.Samples) == 0 || len(set.Samples) != len(set.Runs) || !set.Provenance.Last().Interrupted {
		t.Errorf("%d samples, %d runs, interrupted=%v", len(set.Samples), len(set.Runs), set.Provenance.Last().Interrupted)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// journalHasProcess reports whether the result set in dir has recorded a
// finished process in its journal.
func journalHasProcess(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	return err == nil && bytes.Contains(b, []byte(`"k":"process"`))
}

func TestAppendRefusesOverlapAndCalibrationMarksSamples(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "set")
	// A second of tolerance: a 1 ms sleep passes however loaded the
	// machine, and the liar still fails on its negative times.
	s, err := spec.Parse("cal.cue", []byte(settleOff(`
environments: [{name: "native", kind: "native"}, {name: "liar", kind: "command", run: ["echo", "-5 1 9"]}]
n: [2]
samples: {min: 2, processes: 1}
calibration: {sleep_us: [1000], repeats: 1, coherence: {n: 3, processes: 1}, tolerance: absolute: "1s"}
`)))
	if err != nil {
		t.Fatal(err)
	}
	w, err := results.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := New(w, testOptions()).Calibrate(context.Background(), s, s.Environments); err != nil {
		t.Fatal(err)
	}
	w.Close()
	cal, _ := results.Read(out)
	verdict := map[string]bool{}
	for _, c := range cal.Calibration {
		verdict[c.Environment+"/"+c.Check] = c.Pass
		if c.Environment == "native" && c.Check == "sleep" && (c.MeasuredNS < 1e6 || c.MeasuredNS > c.WallNS) {
			t.Errorf("native 1 ms sleep recorded %d ns, wall %d ns", c.MeasuredNS, c.WallNS)
		}
		// The native clock's grain is a nanosecond and a reading costs
		// tens of them: both recorded, both under a millisecond.
		if c.Environment == "native" && c.Check == "sleep" && (c.ObservedStepNS == nil || c.ClockReadNS == nil ||
			*c.ObservedStepNS <= 0 || *c.ObservedStepNS > 1e6 || *c.ClockReadNS <= 0 || *c.ClockReadNS > 1e6) {
			t.Errorf("native clock step %v, read cost %v; want both recorded, positive, under 1 ms", c.ObservedStepNS, c.ClockReadNS)
		}
	}
	if !verdict["native/sleep"] || !verdict["native/coherence"] || verdict["liar/sleep"] || verdict["liar/coherence"] {
		t.Errorf("verdicts = %v; want native to pass and liar (negative times) to fail", verdict)
	}
	plan, _ := spec.Expand(s, nil)
	if err := runPlanInto(t, context.Background(), out, plan, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	set, _ := results.Read(out)
	if len(set.Calibration) == 0 {
		t.Fatal("calibration lost when appending a run")
	}
	// Both invocations are in the history, each row traced to its own.
	if p := set.Provenance; len(p.Invocations) != 2 || p.Invocations[0].Command != "calibrate" || p.Invocations[1].Command != "run" ||
		p.Invocations[0].SpecHash != s.Hash || set.Calibration[0].Invocation != p.Invocations[0].ID || set.Runs[0].Invocation != p.Invocations[1].ID {
		t.Errorf("provenance after calibrate then run: %+v", p)
	}
	for _, smp := range set.Samples {
		if smp.ClockTrusted != (smp.Environment == "native") {
			t.Errorf("sample %s spawn %d clock_trusted = %v", smp.Environment, smp.SpawnNS, smp.ClockTrusted)
		}
	}
	err = runPlanInto(t, context.Background(), out, plan, RunOptions{})
	var in *inputerr.Error
	if err == nil || !asInput(err, &in) || !strings.Contains(err.Error(), "already holds results for native/sequential/2") {
		t.Errorf("second run into the same cells: err = %v", err)
	}
}

func TestBuildCacheReuses(t *testing.T) {
	t.Parallel()
	s, _ := spec.Parse("b.cue", []byte(`environments: [{name: "native", kind: "native", cflags: ["-O1"]}]
n: [1]`))
	w, err := results.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := New(w, Options{Cache: &buildcache.Cache{Dir: t.TempDir(), Sources: spawnbench.Sources}})
	first, err := r.prepare(context.Background(), s.Environments[0])
	if err != nil || first.skip != "" {
		t.Fatal(err, first.skip)
	}
	_, cached, err := r.opts.Cache.Build(context.Background(), first.env)
	if err != nil || !cached {
		t.Errorf("second build: cached=%v err=%v", cached, err)
	}
	for _, b := range []string{"sequential", "parallel", "calibration"} {
		if _, err := os.Stat(filepath.Join(first.buildDir, b)); err != nil {
			t.Errorf("build output: %v", err)
		}
	}
}

func TestOneOversleepIsNotAClockFailure(t *testing.T) {
	t.Parallel()
	check := func(measured ...int64) []results.CalibrationCheck {
		var rs []results.CalibrationCheck
		for _, m := range measured {
			rs = append(rs, results.CalibrationCheck{RequestedNS: 1e6, LowNS: 1e6, HighNS: 6.5e6, MeasuredNS: m, WallNS: 1e9, Pass: true})
		}
		return clockcheck.JudgeOversleep(rs)
	}
	for i, c := range check(1.1e6, 8.6e6, 1.2e6) {
		if !c.Pass {
			t.Errorf("repeat %d (%d ns) failed: %s", i, c.MeasuredNS, c.Detail)
		}
	}
	for i, c := range check(7e6, 8.6e6, 1.2e6) {
		if c.Pass || !strings.Contains(c.Detail, "median") {
			t.Errorf("repeat %d passed with a median above tolerance: %+v", i, c)
		}
	}
}

// TestInterleavedOrderIsRecorded: the processes of a seeded plan run in
// its interleaved order, which runs.parquet's seq records: seq is the
// position in the run, environments are mixed, every cell's warm-up comes
// before its first measured process, and the same seed gives the same
// order.
func TestInterleavedOrderIsRecorded(t *testing.T) {
	t.Parallel()
	src := `
environments: [{name: "a", kind: "command", run: ["echo", "5 1 9"]}, {name: "b", kind: "command", run: ["echo", "6 1 9"]}]
n: [1]
samples: {min: 6, processes: 1, warmup: 1}
schedule: {order: "interleave", seed: 7}
`
	order := func() []string {
		set, _, err := runSpec(t, context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		runs := slices.Clone(set.Runs)
		slices.SortFunc(runs, func(x, y results.ProcessRun) int { return int(x.Seq - y.Seq) })
		var seq []string
		firstMeasured := map[string]int32{}
		for i, r := range runs {
			if int(r.Seq) != i {
				t.Fatalf("seq %d at position %d: seq is not the run order", r.Seq, i)
			}
			if _, ok := firstMeasured[r.Environment]; !ok && !r.Warmup {
				firstMeasured[r.Environment] = r.Seq
			}
			if r.Warmup {
				if f, ok := firstMeasured[r.Environment]; ok && f < r.Seq {
					t.Errorf("%s warm-up at seq %d after its first measured process at %d", r.Environment, r.Seq, f)
				}
			}
			if !r.StartedAt.After(runs[max(i-1, 0)].StartedAt) && i > 0 {
				t.Errorf("seq %d started before seq %d", r.Seq, i-1)
			}
			seq = append(seq, fmt.Sprintf("%s/%d/%v", r.Environment, r.Process, r.Warmup))
		}
		return seq
	}
	first := order()
	switches := 0
	for i := 1; i < len(first); i++ {
		if strings.Split(first[i], "/")[0] != strings.Split(first[i-1], "/")[0] {
			switches++
		}
	}
	if len(first) != 14 || switches < 2 {
		t.Errorf("order %v: want 14 processes with environments mixed (blocked order switches once)", first)
	}
	if again := order(); !slices.Equal(first, again) {
		t.Errorf("same seed, different order:\n%v\n%v", first, again)
	}
}

// TestNoiseColumns: a process whose threads did work used CPU time of
// its own, and the machine's noise over its span is recorded (not null).
func TestNoiseColumns(t *testing.T) {
	t.Parallel()
	set, _, err := runSpec(t, context.Background(), `
environments: [{name: "threads", kind: "command", run: ["python3", "-c", """
	import sys, threading, time
	def work():
	    end = time.process_time() + 0.02
	    while time.process_time() < end: pass
	ts = [threading.Thread(target=work) for _ in range(int(sys.argv[1]))]
	for t in ts: t.start()
	for t in ts: t.join()
	for _ in ts: print(1000, 10, 2000)
	""", "{arg}"]}]
n: [3]
samples: {min: 6, processes: 1}
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(set.Runs))
	}
	for _, r := range set.Runs {
		if r.Status != results.StatusOK || r.UserNS == nil || *r.UserNS <= 0 || r.SysNS == nil || r.MaxRSSBytes == nil || *r.MaxRSSBytes <= 0 ||
			r.CtxSwitchesInvoluntary == nil || r.OthersCPUNS == nil || r.StealNS == nil {
			t.Errorf("run %d (%s %s): user %v sys %v rss %v ctx %v others %v steal %v", r.Process, r.Status, r.Error, r.UserNS, r.SysNS, r.MaxRSSBytes, r.CtxSwitchesInvoluntary, r.OthersCPUNS, r.StealNS)
		}
	}
}

// TestPlansTheRunnerRefuses: one cell is one measurement, and an empty
// plan measures nothing; both are bad input and leave no directory.
func TestPlansTheRunnerRefuses(t *testing.T) {
	t.Parallel()
	s, err := spec.Parse("d.cue", []byte(`environments: [{name: "native", kind: "native"}]
n: [1]`))
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := spec.Expand(s, nil)
	dup := *plan
	dup.Cells = append(slices.Clone(plan.Cells), plan.Cells[0])
	empty := *plan
	empty.Cells = nil
	for _, c := range []struct {
		name string
		plan *spec.RunPlan
		want string
	}{
		{"duplicate cell", &dup, "measures cell native/sequential/1 twice"},
		{"empty plan", &empty, "no cells"},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		err := runPlanInto(t, context.Background(), dir, c.plan, RunOptions{})
		var in *inputerr.Error
		if !asInput(err, &in) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an input error saying %q", c.name, err, c.want)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s: %s was left behind", c.name, dir)
		}
	}
}
