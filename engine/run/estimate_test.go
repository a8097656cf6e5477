package run

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"spawnbench/engine/cost"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

// TestEstimateHoldsOnMeasuredMachines recomputes, from what two main
// jobs recorded, the estimate run printed before each: the built-in
// model rescaled as the probe rescales it, by the set's own processes of
// the probe's environments (its Node.js process, its warm browser
// pages), for the set's planned cells, and checks it within ±25% of the
// run's measured wall time. One set is this repository's
// results/sequential (an AMD EPYC), the other a fresh Intel Xeon's, kept
// in ../shared. It also measures the runner's own time per process and
// checks cost.RunnerOverhead against it.
func TestEstimateHoldsOnMeasuredMachines(t *testing.T) {
	shared := os.Getenv("SPAWNBENCH_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "..", "..", "shared")
	}
	for _, dir := range []string{filepath.Join("..", "..", "results", "sequential"), filepath.Join(shared, "sets", "sequential-intel-xeon")} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if !results.Exists(dir) {
				t.Skipf("no result set in %s: put ../shared next to the repository or set SPAWNBENCH_SHARED", dir)
			}
			set, err := results.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			inv := set.Provenance.Invocations[0]
			if inv.Command != "run" || inv.EndedAt == nil || len(set.Provenance.Invocations) != 1 {
				t.Fatalf("%s: want one ended run invocation, have %d (%s)", dir, len(set.Provenance.Invocations), inv.Command)
			}
			p := plannedPlan(t, inv)
			// The estimate is of the planned processes: a run whose spec
			// stops adaptively adds rounds after them, which no estimate
			// counts (plan says so), so the run is timed to the end of its
			// last planned process.
			planned := map[string]int{}
			for _, c := range p.Cells {
				planned[c.Key()] = c.Processes
			}
			var runs []results.ProcessRun
			actual := inv.EndedAt.Sub(inv.StartedAt)
			last := inv.StartedAt
			for _, r := range set.Runs {
				if int(r.Process) < planned[(spec.Cell{Env: spec.EnvironmentSpec{Name: r.Environment}, Mode: r.Mode, N: int(r.N)}).Key()] {
					runs = append(runs, r)
					if end := r.StartedAt.Add(time.Duration(r.WallNS)); end.After(last) {
						last = end
					}
				}
			}
			if len(runs) < len(set.Runs) {
				actual = last.Sub(inv.StartedAt)
				t.Logf("%d processes of top-up or adaptive rounds after the planned ones: the run is timed to the end of its last planned process", len(set.Runs)-len(runs))
			}
			mc := probeOfSet(t, dir, set)
			model := cost.Reference().On(mc)
			estimate := model.Plan(p)
			f, _, _ := mc.Factor()
			t.Logf("%s (%s): probe factor ×%.2f, estimate %s for %d processes, run took %s (%+.0f%%)",
				dir, inv.Machine.CPUModel, f, cost.Round(estimate), p.TotalProcesses(), cost.Round(actual), 100*(float64(estimate)/float64(actual)-1))
			if p.TotalProcesses() != len(runs) {
				t.Errorf("the plan has %d processes, the set ran %d of them", p.TotalProcesses(), len(runs))
			}
			if r := float64(estimate) / float64(actual); math.Abs(r-1) > 0.25 {
				t.Errorf("estimate %s for a run of %s: %+.0f%%, want within ±25%%", cost.Round(estimate), cost.Round(actual), 100*(r-1))
			}
			// The probe's one factor against what the set's cells say of
			// the machine: every cell the reference also measured.
			costs, err := results.ReadCosts(dir, "")
			if err != nil {
				t.Fatal(err)
			}
			here := cost.Here(inv.Machine.ID, cost.Reference(), []string{dir}, costs.Cells)
			// Logged, not judged: the estimate above is what a user reads.
			// On the Intel VM of 6 December 2026 the probe read ×1.76
			// against the cells' ×0.98, yet the estimate held (+22%).
			if hf, _, _ := here.Factor(); math.Abs(f/hf-1) > 0.25 {
				t.Logf("the probe rescales by ×%.2f, the set's %d cells the reference has by ×%.2f: the probe misreads this machine", f, len(here.Ratios), hf)
			}
			// The runner's own time: the run less its processes' walls and
			// the wait the model counts before each.
			cells := map[string]spec.Cell{}
			for _, c := range p.Cells {
				cells[c.Key()] = c
			}
			rest := actual
			for _, r := range runs {
				c, ok := cells[(spec.Cell{Env: spec.EnvironmentSpec{Name: r.Environment}, Mode: r.Mode, N: int(r.N)}).Key()]
				if !ok {
					t.Fatalf("a process of %s/%s/%d, a cell the plan lacks", r.Environment, r.Mode, r.N)
				}
				rest -= time.Duration(r.WallNS) + cost.Wait(c)
			}
			overhead := rest / time.Duration(len(runs))
			t.Logf("the runner's own time per process: %s (modelled %s)", overhead, cost.RunnerOverhead)
			if overhead < cost.RunnerOverhead/2 || overhead > 2*cost.RunnerOverhead {
				t.Errorf("the runner took %s per process of its own, cost.RunnerOverhead says %s", overhead, cost.RunnerOverhead)
			}
		})
	}
}

// plannedPlan is the spec the invocation ran, as the repository has it
// now, cut to the cells it planned with their processes as planned.
func plannedPlan(t *testing.T, inv results.Invocation) *spec.RunPlan {
	t.Helper()
	planned := map[string]results.PlannedCell{}
	var envs []string
	for _, c := range inv.Planned {
		key := (spec.Cell{Env: spec.EnvironmentSpec{Name: c.Environment}, Mode: c.Mode, N: c.N}).Key()
		if _, seen := planned[key]; !seen && !slices.Contains(envs, c.Environment) {
			envs = append(envs, c.Environment)
		}
		planned[key] = c
	}
	// The spec as the run resolved it (its provenance), not today's file:
	// the shipped specs change after a set is measured.
	s, err := spec.Parse(inv.SpecPath+" (resolved)", inv.Resolved)
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.Expand(s, envs)
	if err != nil {
		t.Fatal(err)
	}
	var cells []spec.Cell
	for _, c := range p.Cells {
		if pc, ok := planned[c.Key()]; ok {
			c.Processes, c.Warmup = pc.Processes, pc.Warmup
			cells = append(cells, c)
		}
	}
	if len(cells) != len(planned) {
		t.Fatalf("%s now has %d of the %d cells the set planned", inv.SpecPath, len(cells), len(planned))
	}
	p.Cells = cells
	return p
}

// probeOfSet is what the probe would have measured on the set's machine,
// from the set's own processes of the probe's environments: Node.js
// processes' ratios to the model (probeRatios) and warm browser pages'
// median wall time at n = 1.
func probeOfSet(t *testing.T, dir string, set *results.Set) *cost.Machine {
	t.Helper()
	probed, err := probePlan()
	if err != nil {
		t.Fatal(err)
	}
	var node spec.Cell
	for _, c := range probed.Cells {
		if c.Env.Name == "manual-node" {
			node = c
		}
	}
	var walls []time.Duration
	for _, r := range set.Runs {
		if r.Environment == "manual-node" && r.Mode == "sequential" && r.N == 1 && !r.Warmup && r.Status == results.StatusOK {
			walls = append(walls, time.Duration(r.WallNS))
		}
	}
	mc := &cost.Machine{Source: "the set's own processes of the probe's environments", Ratios: probeRatios(cost.Reference(), node, walls)}
	if len(mc.Ratios) == 0 {
		t.Fatal("the set has no manual-node process at sequential n = 1 to probe with")
	}
	costs, err := results.ReadCosts(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range costs.Cells {
		warmName := map[string]string{"chromium": probePages["chromium"][0], "firefox": probePages["firefox"][0]}[c.Host]
		if c.Environment == warmName && c.Mode == "sequential" && c.N == 1 {
			mc.Warm = append(mc.Warm, cost.WarmPage{Kind: c.Kind, Host: c.Host, Mode: c.Mode, WallNS: c.MedianWallNS})
		}
	}
	return mc
}
