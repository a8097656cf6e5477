package report_test

import (
	"fmt"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// The allocation of the committed main job's bottom line at ±10%: every
// cell of a bottom-line ratio is in it once (the baselines too), none
// below its floor or above the most; Neyman's split itself is tested in
// engine/stats.
func TestAllocateTheCommittedMainJob(t *testing.T) {
	fulltest.Only(t, "reads a committed result set whole and builds its report")
	set, err := results.Read(filepath.Join("..", "..", "results", "sequential"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build([]report.Input{{Dir: "results/sequential", Set: set}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const floor = 10
	const budget, most = 180.0, 3000
	// A process costs a run its wall time and about 45 ms besides (the
	// pause and the runner's own work).
	plan := func(env, mode string, n int32) (int, float64) {
		for _, a := range r.Cells {
			if a.Environment == env && a.Mode == mode && a.N == n && a.Last == 0 {
				return floor, 0.045
			}
		}
		return 0, 0
	}
	all := r.Allocate(0.10, budget, most, plan)
	alloc := all.Cells
	t.Logf("%d of %d ratios reached, %.0f s added", all.Reached, all.Ratios, float64(all.AddedS))
	if all.Reached+len(all.Unreached) != all.Ratios {
		t.Errorf("%d ratios reached and %d not, of %d", all.Reached, len(all.Unreached), all.Ratios)
	}
	if all.Ratios < 20 || all.Reached == 0 || float64(all.AddedS) > budget {
		t.Errorf("%d of %d ratios reached, adding %.0f s of a budget of %.0f s", all.Reached, all.Ratios, float64(all.AddedS), budget)
	}
	seen := map[string]report.CellAllocation{}
	for _, a := range alloc {
		k := fmt.Sprintf("%s/%s/%d", a.Environment, a.Mode, a.N)
		if _, dup := seen[k]; dup {
			t.Errorf("%s allocated twice", k)
		}
		seen[k] = a
		if a.Processes < floor || a.Processes > most {
			t.Errorf("%s: %d processes, below the floor %d", k, a.Processes, floor)
		}
		t.Logf("%-28s n=%-4d %4d processes (measured %3d, %.3f s each)", a.Environment, a.N, a.Processes, a.Measured, float64(a.ProcessS))
	}
	native := 0
	for _, a := range alloc {
		if strings.HasPrefix(a.Environment, "native") {
			native++
		}
	}
	if len(alloc) < 10 || native == 0 {
		t.Errorf("%d cells, %d of them native's: want the bottom line's cells and their baselines", len(alloc), native)
	}
}
