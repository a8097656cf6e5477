package run

import (
	"context"
	"slices"
	"testing"

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
	if got := processesOf(set)[4]; got != 5 {
		t.Errorf("%d processes, want the 5 planned (converged, no round)", got)
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
