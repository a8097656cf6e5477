package run

import (
	"context"
	"slices"
	"testing"
	"time"

	"spawnbench/engine/results"
)

// processesOf counts the measured processes of each n.
func processesOf(set *results.Set) map[int32]int {
	out := map[int32]int{}
	for _, r := range set.Runs {
		if !r.Warmup {
			out[r.N]++
		}
	}
	return out
}

func TestAdaptiveStoppingAddsRoundsUntilTheBound(t *testing.T) {
	t.Parallel()
	// A target no real cell reaches: rounds of 2 are added until the
	// cell has max_processes, and the process indices run on from the
	// planned ones without a gap or a repeat.
	set, _, err := runSpec(t, context.Background(), `
environments: [{name: "native", kind: "native"}]
n: [4]
samples: {min: 4, processes: 5, precision: 0.00001, adaptive: true, max_processes: 9, round: 2, budget: "1h"}
`)
	if err != nil {
		t.Fatal(err)
	}
	if got := processesOf(set)[4]; got != 9 {
		t.Fatalf("%d processes, want the max_processes 9 (5 planned, then rounds of 2, the last cut to 0 past 9)", got)
	}
	seen := map[int32]bool{}
	for _, r := range set.Runs {
		if seen[r.Process] || r.Process < 0 || r.Process >= 9 {
			t.Errorf("process index %d repeated or out of 0..8", r.Process)
		}
		seen[r.Process] = true
	}
}

func TestAdaptiveStoppingStopsAtConvergence(t *testing.T) {
	t.Parallel()
	// A target every cell meets at once: no round is added.
	set, _, err := runSpec(t, context.Background(), `
environments: [{name: "native", kind: "native"}]
n: [4]
samples: {min: 4, processes: 5, precision: 1000, adaptive: true, max_processes: 50}
`)
	if err != nil {
		t.Fatal(err)
	}
	// Only a planned process that did not end ok (a busy machine can
	// time one out) leaves the cell without an interval, and then rounds
	// are right; they stop once 5 ok processes give one.
	// A busy machine can also spread five processes' figures so far
	// apart (a factor of ten and more) that their interval is wider
	// still; then a round is right too.
	planned, ok := 0, 0
	var first measuredCell // the planned processes, as the runner judges them
	for _, r := range set.Runs {
		if r.Warmup {
			continue
		}
		if r.Status == results.StatusOK {
			ok++
		}
		if r.Process < 5 && r.Status == results.StatusOK {
			planned++
			first.runs = append(first.runs, r)
		}
	}
	got := processesOf(set)[4]
	if e := first.estimate(); planned == 5 && got != 5 {
		switch {
		case e == nil:
			t.Logf("the 5 planned processes gave no figure: %d processes in all", got)
		case e.Precision <= 1000:
			t.Errorf("%d processes, want the 5 planned (all ok, converged at ±%.3g%%, no round)", got, 100*e.Precision)
		default:
			t.Logf("the 5 planned processes gave ±%.3g%%, above the target: %d processes in all", 100*e.Precision, got)
		}
	}
	if planned < 5 {
		t.Logf("%d of the 5 planned processes ended ok; %d processes in all, %d ok", planned, got, ok)
		if ok < 5 && got < 50 {
			t.Errorf("rounds stopped at %d ok processes of %d, before an interval (5 ok) or max_processes (50)", ok, got)
		}
	}
}

func TestAdaptiveStoppingKeepsToItsBudget(t *testing.T) {
	t.Parallel()
	// A budget smaller than one process: no process is started that
	// would overrun it, so the cell keeps its planned 5.
	set, _, err := runSpec(t, context.Background(), `
environments: [{name: "native", kind: "native"}]
n: [4]
samples: {min: 4, processes: 5, precision: 0.00001, adaptive: true, max_processes: 500, round: 3, budget: "1ns"}
`)
	if err != nil {
		t.Fatal(err)
	}
	if got := processesOf(set)[4]; got != 5 {
		t.Errorf("%d processes, want the 5 planned: a 1 ns budget has no room for another", got)
	}
}

func TestRunsCarryProcessSummaries(t *testing.T) {
	t.Parallel()
	set, _, err := runSpec(t, context.Background(), `
environments: [{name: "native", kind: "native"}]
n: [8]
samples: {min: 8, processes: 2}
`)
	if err != nil {
		t.Fatal(err)
	}
	spawns := map[int32][]int64{}
	for _, s := range set.Samples {
		spawns[s.Process] = append(spawns[s.Process], s.SpawnNS)
	}
	for _, r := range set.Runs {
		ps := spawns[r.Process]
		if r.FirstSpawnNS == nil || r.TypicalSpawnNS == nil || len(ps) != 8 {
			t.Fatalf("process %d: first %v typical %v, %d spawns", r.Process, r.FirstSpawnNS, r.TypicalSpawnNS, len(ps))
		}
		lo, hi := slices.Min(ps), slices.Max(ps)
		if *r.FirstSpawnNS != ps[0] || *r.TypicalSpawnNS < lo || *r.TypicalSpawnNS > hi {
			t.Errorf("process %d: first %d typical %d; spawns %v", r.Process, *r.FirstSpawnNS, *r.TypicalSpawnNS, ps)
		}
	}
}

func TestBottomLineAddsRoundsToItsCellsAlone(t *testing.T) {
	t.Parallel()
	// A target no real cell reaches: the bottom line's cell gets rounds
	// up to its max_processes, the other environment keeps its planned
	// processes.
	set, _, err := runSpec(t, context.Background(), `
environments: [{name: "native", kind: "native"}, {name: "other", kind: "native", cflags: ["-O1"]}]
n: [100]
samples: {min: 1, processes: 5}
bottom_line: {environments: ["native"], n: [100], precision: 0.00001, max_processes: 9, round: 3, budget: "1h"}
`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, r := range set.Runs {
		if !r.Warmup {
			got[r.Environment]++
		}
	}
	if got["native"] != 9 || got["other"] != 5 {
		t.Errorf("processes %v, want native 9 (5 planned, rounds of 3 to max_processes 9) and other its 5 planned", got)
	}
}

// The steady state's view of a cell is its processes' last k spawns:
// a cell whose every process ends in slow spawns has a last-k figure of
// those, whatever its all-spawns figure says.
func TestLastEstimateReadsEachProcesssLastSpawns(t *testing.T) {
	set := &results.Set{}
	cell := &measuredCell{}
	start := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	for p := range int32(6) {
		run := results.ProcessRun{Environment: "e", Mode: "sequential", N: 100, Process: p, Status: results.StatusOK, Machine: "m", StartedAt: start.Add(time.Duration(p) * time.Second)}
		cell.runs = append(cell.runs, run)
		for th := range int32(100) {
			ns := int64(1000)
			if th >= 90 {
				ns = 20000 + int64(p)*10
			}
			set.Samples = append(set.Samples, results.SpawnSample{Environment: "e", Mode: "sequential", N: 100, Process: p, Thread: th, SpawnNS: ns, Machine: "m"})
		}
	}
	// A warm-up's spawns and another cell's are not the cell's.
	set.Samples = append(set.Samples, results.SpawnSample{Environment: "e", Mode: "sequential", N: 100, Process: 0, Thread: 100, SpawnNS: 1, Machine: "m", Warmup: true},
		results.SpawnSample{Environment: "e", Mode: "parallel", N: 100, Process: 0, Thread: 99, SpawnNS: 1, Machine: "m"})
	e := cell.lastEstimate(set, 10)
	if e == nil || e.Processes != 6 || e.Center < 20 || e.Center > 20.06 {
		t.Fatalf("last-10 estimate %+v, want 6 processes at about 20.0-20.05 µs", e)
	}
	if e10 := cell.lastEstimate(set, 100); e10 == nil || e10.Center > 2 {
		t.Errorf("last-100 estimate %+v, want the all-spawns figure near 1 µs", e10)
	}
}
