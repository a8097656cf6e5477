package results

import (
	"math"

	"spawnbench/engine/stats"
)

// ProcessLoads are the busy rule's inputs (stats.Busy) from the measured
// runs of one cell: warm-ups are left out, and so are columns a run did
// not record. Each ok process's figure is its typical spawn
// (typical_spawn_ns), the number the cell's figure is computed over; the
// others count in the load shares only. The rule itself is the readers'
// to apply.
func ProcessLoads(runs []ProcessRun) []stats.ProcessLoad {
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
	return loads
}

// optional is *v as a float, NaN for nil.
func optional(v *int64) float64 {
	if v == nil {
		return math.NaN()
	}
	return float64(*v)
}
