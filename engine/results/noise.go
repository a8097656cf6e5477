package results

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// BusyThreshold is the share of a process's wall time that other work on
// the machine (others_cpu_ns) or the hypervisor (steal_ns) may take before
// the process's cell is called busy.
const BusyThreshold = 0.10

// Noise is how much the machine disturbed one cell's measured processes.
type Noise struct {
	// OthersShare and StealShare are the medians over the cell's measured
	// processes of others_cpu_ns / wall_ns and steal_ns / wall_ns; NaN when
	// no process recorded them.
	OthersShare, StealShare float64
	// Busy: the median process had others_cpu_ns or steal_ns above
	// BusyThreshold of its wall time.
	Busy bool
}

// CellNoise applies the busy rule to the runs of one cell (warm-ups are
// ignored; so are processes that recorded no wall time). It is the one
// place the rule lives: run's closing warning and the reports both call it.
func CellNoise(runs []ProcessRun) Noise {
	var others, steal []float64
	for _, r := range runs {
		if r.Warmup || r.WallNS <= 0 {
			continue
		}
		if r.OthersCPUNS != nil {
			others = append(others, float64(*r.OthersCPUNS)/float64(r.WallNS))
		}
		if r.StealNS != nil {
			steal = append(steal, float64(*r.StealNS)/float64(r.WallNS))
		}
	}
	n := Noise{OthersShare: Median(others), StealShare: Median(steal)}
	n.Busy = n.OthersShare > BusyThreshold || n.StealShare > BusyThreshold
	return n
}

// Median is benchmath's median (NaN for no values): the one median of
// spawnbench's run summaries, progress lines and noise rules. v is not
// modified.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	v = slices.Clone(v)
	slices.Sort(v)
	s := &benchmath.Sample{Values: v, Thresholds: &benchmath.DefaultThresholds}
	return benchmath.AssumeNothing.Summary(s, 0.95).Center
}
