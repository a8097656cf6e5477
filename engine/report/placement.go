package report

import (
	"spawnbench/engine/results"
)

// Where a child first runs decides much of its spawn time: natively a
// child started on its parent's CPU waits for the parent to block, one on
// the other CPU needs that CPU woken. Environments that record both CPUs
// (native, the embedded Wasmtime) get, per cell, the share of each
// placement and a figure for each, so a reader can tell which regime a
// figure is in and whether two cells differ by placement or by runtime.

// PlacementShare is one placement's part of a cell.
type PlacementShare struct {
	Placement results.Placement `json:"placement"`
	// Share is the placement's share of the view's spawns.
	Share Float `json:"share"`
	// Estimate is the figure of those spawns, over the processes that
	// have any.
	Estimate
}

// placementsOf splits a view's spawns (samples of them) by placement;
// nil when no spawn's placement is known.
func placementsOf(procs []process, samples int) []PlacementShare {
	count := map[results.Placement]int{}
	for _, p := range procs {
		for _, s := range p.Spawns {
			count[s.Placement()]++
		}
	}
	if count[results.SameCPU]+count[results.OtherCPU] == 0 {
		return nil
	}
	var out []PlacementShare
	for _, pl := range []results.Placement{results.SameCPU, results.OtherCPU, results.UnknownPlacement} {
		if count[pl] > 0 {
			in := where(procs, func(_ int, s results.SpawnSample) bool { return s.Placement() == pl })
			out = append(out, PlacementShare{Placement: pl, Share: Float(float64(count[pl]) / float64(samples)),
				Estimate: *estimate(viewSummaries(in))})
		}
	}
	return out
}
