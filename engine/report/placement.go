package report

import (
	"fmt"
	"strconv"
	"strings"

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
		for _, s := range p.spawns {
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

// writePlacement lists the placement shares of the cells that record
// them.
func (r *Report) writePlacement(b *strings.Builder) {
	var rows [][]string
	for _, c := range r.Cells {
		if len(c.Placements) == 0 {
			continue
		}
		row := []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), viewLabel(c.Last)}
		var same, other string = "—", "—"
		for _, p := range c.Placements {
			text := fmt.Sprintf("%.0f%%: %s", 100*float64(p.Share), estimateText(&p.Estimate))
			switch p.Placement {
			case results.SameCPU:
				same = text
			case results.OtherCPU:
				other = text
			}
		}
		rows = append(rows, append(row, same, other))
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Placement\n\n")
	mdTable(b, []string{"Environment", "Mode", "n", "View", "Child on the parent's CPU", "Child on another CPU"}, "llrl", rows)
	b.WriteString("Each spawn's placement compares the CPU its parent was on when pthread_create returned with the CPU its child first ran on " +
		"(recorded natively and by the embedded Wasmtime; elsewhere unknown). Pinned to one CPU every child shares its parent's; " +
		"unpinned, the scheduler decides, and the shares move with the machine's load.\n\n")
}
