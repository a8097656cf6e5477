package results

import (
	"math"

	"spawnbench/engine/stats"
)

// CellLoad is the busy rule (stats.Busy) applied to the measured runs of
// one cell: warm-ups are ignored, and so are columns a run did not
// record. Each ok process's figure is its typical spawn
// (typical_spawn_ns), the number the cell's figure is computed over; the
// others count in the load shares only.
func CellLoad(runs []ProcessRun) stats.Load {
	loads := make([]stats.ProcessLoad, 0, len(runs))
	for _, r := range runs {
		if r.Warmup {
			continue
		}
		l := stats.ProcessLoad{WallNS: float64(r.WallNS), OthersNS: optional(r.OthersCPUNS), StealNS: optional(r.StealNS), Figure: math.NaN()}
		if r.OwnWorkNS != nil {
			l.OwnWorkNS = float64(*r.OwnWorkNS)
		}
		if r.Status == StatusOK {
			l.Figure = optional(r.TypicalSpawnNS)
		}
		loads = append(loads, l)
	}
	return stats.Busy(loads)
}

// optional is *v as a float, NaN for nil.
func optional(v *int64) float64 {
	if v == nil {
		return math.NaN()
	}
	return float64(*v)
}
