package report_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/internal/fulltest"
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

// A top-up sizes only the ratios a run left short of its target, and of
// those none whose side a level above its processes sets (a drift's
// batch means, occasions): more processes would not narrow it. The main
// job has short ratios over processes; the reproduce set's cells are
// computed over its five occasions, so its short ratios get nothing. With
// no budget nothing is added.
func TestTopUpSizesOnlyTheShortRatios(t *testing.T) {
	fulltest.Only(t, "reads committed result sets whole and builds their reports")
	const target = 0.10
	for _, name := range []string{"sequential", "reproduce"} {
		set, err := results.Read(filepath.Join("..", "..", "results", name))
		if err != nil {
			t.Fatal(err)
		}
		r, err := report.Build([]report.Input{{Dir: "results/" + name, Set: set}}, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		measured := func(env, mode string, n int32) (int, float64) {
			if c := r.Cell(env, mode, report.Column{N: n}); c != nil && c.Stats != nil {
				return c.Stats.Processes, 0.03
			}
			return 0, 0
		}
		short, above := shortRatios(r, target)
		t.Logf("%s: %d ratios short of ±10%% over processes, %d with a side set above them", name, short, above)
		if name == "sequential" && short == 0 || name == "reproduce" && above == 0 {
			t.Fatalf("%s: %d short ratios over processes and %d above them: this test wants the one, then the other", name, short, above)
		}
		if a := r.TopUp(target, 600, 3000, measured); a.Ratios != short {
			t.Errorf("%s: the top-up sized %d ratios; %d are short of ±10%% with no side set above its processes", name, a.Ratios, short)
		}
		none := r.TopUp(target, 0, 3000, measured)
		for _, c := range none.Cells {
			if c.Processes != c.Floor {
				t.Errorf("%s: %s n=%d: %d processes for %d measured, with no top-up budget", name, c.Environment, c.N, c.Processes, c.Floor)
			}
		}
		if none.Reached != 0 || float64(none.AddedS) != 0 {
			t.Errorf("%s: no budget, yet %d ratios reached adding %.1f s", name, none.Reached, float64(none.AddedS))
		}
	}
}

// shortRatios counts r's bottom-line ratios (one-CPU and free) with an
// interval wider than target: those over processes, and those a side of
// which has its interval set above them.
func shortRatios(r *report.Report, target float64) (short, above int) {
	b := r.BottomLine
	setAbove := func(env string, col report.Column) bool {
		c := r.Cell(env, b.Mode, col)
		return c != nil && c.Stats != nil && (c.Stats.Windowed || c.Stats.Occasions > 0)
	}
	for _, row := range b.Rows {
		for _, col := range []struct {
			cell *report.BottomCell
			col  report.Column
		}{{row.First, b.First}, {row.Steady, b.Steady}} {
			if col.cell == nil {
				continue
			}
			for _, fig := range []*report.BottomCell{col.cell, col.cell.Free} {
				if fig == nil || fig.Ratio == nil || fig.Ratio.Precision() <= target || math.IsInf(fig.Ratio.Precision(), 0) {
					continue
				}
				if setAbove(fig.Environment, col.col) || setAbove(fig.Ratio.Baseline, col.col) {
					above++
					continue
				}
				short++
			}
		}
	}
	return short, above
}
