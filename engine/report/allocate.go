package report

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"spawnbench/engine/stats"
)

// An allocation says how many processes each cell of a set's bottom line
// should get in the next run for every ratio of the bottom line, the
// one-CPU figures and the free ones beside them, to reach a target, at
// the least wall time: each ratio's two sides by Neyman's allocation
// (stats.RatioProcesses) from the spread and the cost of a process this
// set shows. A baseline cell is the denominator of many ratios: it gets
// the most any of them asks, and each numerator is then sized beside it.
// A run's plan takes it before the run (spec bottom_line.from).

// BaselineProcesses is the fewest processes the allocation gives a
// baseline cell. A baseline is the denominator of many ratios and cheap
// (native's processes cost a few tens of ms), but its processes may fall
// into two clusters whose shares move from run to run, and its ratios
// divide by the lower one: sized for the one set's shares, native's
// steady state with the scheduler free got 22 processes in the main job
// of 7 December 2026, 9 of them in the lower cluster, and nine ratios
// over it missed ±10%.
const BaselineProcesses = 100

// Allocation is the processes a plan should give the bottom line's cells.
type Allocation struct {
	Cells []CellAllocation `json:"cells"`
	// Ratios counts the bottom line's ratios the set could size, and
	// Reached those whose target the allocation reaches within the
	// budget and max_processes; AddedS is the wall time it adds to the
	// plan, in seconds.
	Ratios  int   `json:"ratios"`
	Reached int   `json:"reached"`
	AddedS  Float `json:"added_s"`
	// Unreached are the sized ratios the allocation leaves short of the
	// target: beyond max_processes, or past the budget.
	Unreached []AllocatedRatio `json:"unreached,omitempty"`
}

// AllocatedRatio names one ratio of the bottom line: a cell's figure in
// a column over its baseline's.
type AllocatedRatio struct {
	Environment string `json:"environment"`
	Baseline    string `json:"baseline"`
	Column      Column `json:"column"`
}

// CellAllocation is one cell's share of an allocation.
type CellAllocation struct {
	Environment string `json:"environment"`
	Mode        string `json:"mode"`
	N           int32  `json:"n"`
	// Processes is what the cell should have: its floor, or more.
	Processes int `json:"processes"`
	Floor     int `json:"floor"`
	// Measured is what the set had, and ProcessS what one process of the
	// cell costs a run, in seconds.
	Measured int   `json:"measured"`
	ProcessS Float `json:"process_s"`
}

// CellPlan is what a plan says of one cell: its processes anyway (0
// where it does not measure it: the cell is left out), and what one of
// its processes costs the run beyond its wall time as the set shows it
// (the pause before it, the runner's own work), in seconds.
type CellPlan func(env, mode string, n int32) (floor int, overheadS float64)

// allocationSide is a cell as the allocation sees it.
type allocationSide struct {
	key  CellKey
	side stats.Side
}

// Allocate is the allocation of r's bottom line for target (a relative
// half-width, 0.10 for ±10%), within budget (seconds of wall time added
// to the plan in all) and most processes a cell. The ratios cheapest to
// reach come first, until the budget is spent: a ratio it cannot reach
// gets nothing, so what is spent brings ratios to the target. Cells come
// in the bottom line's order, each once.
func (r *Report) Allocate(target, budget float64, most int, plan CellPlan) *Allocation {
	return r.allocate(target, budget, most, plan, false)
}

// TopUp is Allocate for a run under way, from its own processes: the
// ratios already within target are left as they are (another process
// would only draw their spread again), and so is a ratio a side of which
// has its interval set above its processes (a drift's batch means, or
// occasions), which more processes do not narrow. plan's floor is then
// what each cell has measured.
func (r *Report) TopUp(target, budget float64, most int, plan CellPlan) *Allocation {
	return r.allocate(target, budget, most, plan, true)
}

func (r *Report) allocate(target, budget float64, most int, plan CellPlan, shortOnly bool) *Allocation {
	b := r.BottomLine
	if b == nil {
		return &Allocation{}
	}
	type pair struct {
		a, base allocationSide
		col     Column
		na, nb  int
		ok      bool
	}
	var pairs []pair
	sides := map[CellKey]stats.Side{}
	planned := map[CellKey]int{} // the plan's floors, before any baseline's
	baselines := map[CellKey]bool{}
	var order []CellKey
	// A side divided by its lower cluster (Ratio.Divisor) gets from n
	// processes share·n of that cluster's spread: as n processes of
	// LogVar ÷ share.
	sideOf := func(env string, col Column, byCluster bool) (allocationSide, bool) {
		c := r.Cell(env, b.Mode, col)
		if c == nil || c.Stats == nil || c.Stats.est == nil {
			return allocationSide{}, false
		}
		k := CellKey{env, b.Mode, col.N}
		floor, overhead := plan(env, b.Mode, col.N)
		cost := medianWallS(r.Groups[k]) + overhead
		d := divisorOf(c, byCluster)
		logVar := d.est.LogVar() / d.share
		if floor <= 0 || !(cost > 0) || math.IsNaN(logVar) {
			return allocationSide{}, false
		}
		planned[k] = floor
		s := stats.Side{LogVar: logVar, CostS: cost, Floor: floor}
		if _, seen := sides[k]; !seen {
			order = append(order, k)
		}
		sides[k] = s
		return allocationSide{k, s}, true
	}
	for _, row := range b.Rows {
		for _, col := range []struct {
			cell *BottomCell
			col  Column
		}{{row.First, b.First}, {row.Steady, b.Steady}} {
			if col.cell == nil {
				continue
			}
			for _, fig := range []*BottomCell{col.cell, col.cell.Free} {
				if fig == nil || fig.Ratio == nil {
					continue
				}
				if shortOnly && (fig.Ratio.Precision() <= target || r.setAbove(fig.Environment, col.col) ||
					r.setAbove(fig.Ratio.Baseline, col.col)) {
					continue
				}
				a, okA := sideOf(fig.Environment, col.col, false)
				base, okB := sideOf(fig.Ratio.Baseline, col.col, fig.Ratio.Divisor == DivideByLowerCluster)
				if okA && okB {
					// A baseline of a ratio sized has at least
					// BaselineProcesses; one whose ratios are not
					// sized (their numerators not planned) keeps its
					// floor.
					base.side.Floor = max(base.side.Floor, BaselineProcesses)
					baselines[base.key] = true
					na, nb, ok := stats.RatioProcesses(a.side, base.side, target)
					pairs = append(pairs, pair{a, base, col.col, na, nb, ok && na <= most && nb <= most})
				}
			}
		}
	}
	for k := range baselines {
		s := sides[k]
		s.Floor = max(s.Floor, BaselineProcesses)
		sides[k] = s
	}
	added := func(want map[CellKey]int) float64 {
		var s float64
		for _, k := range order { // in order: the same sum every time
			s += float64(want[k]-planned[k]) * sides[k].CostS
		}
		return s
	}
	// The ratios cheapest to reach on their own first; a baseline takes
	// the most any accepted ratio asks of it.
	slices.SortStableFunc(pairs, func(x, y pair) int {
		cx := float64(x.na-x.a.side.Floor)*x.a.side.CostS + float64(x.nb-x.base.side.Floor)*x.base.side.CostS
		cy := float64(y.na-y.a.side.Floor)*y.a.side.CostS + float64(y.nb-y.base.side.Floor)*y.base.side.CostS
		return cmp.Compare(cx, cy)
	})
	want := map[CellKey]int{}
	for k, s := range sides {
		want[k] = s.Floor
	}
	out := &Allocation{Ratios: len(pairs)}
	var accepted []pair
	for _, p := range pairs {
		try := maps.Clone(want)
		try[p.a.key], try[p.base.key] = max(try[p.a.key], p.na), max(try[p.base.key], p.nb)
		if !p.ok || added(try) > budget {
			out.Unreached = append(out.Unreached, AllocatedRatio{p.a.key.Env, p.base.key.Env, p.col})
			continue
		}
		want = try
		accepted = append(accepted, p)
	}
	// Each accepted numerator sized again beside its baseline's count,
	// which a dearer ratio may have raised: it then needs fewer.
	final := map[CellKey]int{}
	for k, s := range sides {
		final[k] = s.Floor
	}
	for _, p := range accepted {
		final[p.base.key] = max(final[p.base.key], want[p.base.key])
	}
	for _, p := range accepted {
		na, _ := stats.ProcessesBeside(p.a.side, p.base.side.LogVar, final[p.base.key], target)
		final[p.a.key] = max(final[p.a.key], min(na, want[p.a.key]))
	}
	out.Reached, out.AddedS = len(accepted), Float(added(final))
	for _, k := range order {
		c := r.Cell(k.Env, k.Mode, Column{N: k.N})
		measured := 0
		if c != nil && c.Stats != nil {
			measured = c.Stats.Processes
		}
		out.Cells = append(out.Cells, CellAllocation{Environment: k.Env, Mode: k.Mode, N: k.N, Processes: final[k], Floor: planned[k],
			Measured: measured, ProcessS: Float(sides[k].CostS)})
	}
	return out
}

// setAbove says whether a level above its processes sets the interval
// of env's cell in column col: more processes do not narrow it.
func (r *Report) setAbove(env string, col Column) bool {
	c := r.Cell(env, r.BottomLine.Mode, col)
	return c != nil && c.Stats != nil && c.Stats.est != nil && (c.Stats.est.Windowed || c.Stats.est.Occasions > 0)
}
