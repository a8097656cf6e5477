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
	// OthersShare and StealShare are the cell's others_cpu_ns (less
	// own_work_ns) and steal_ns over its wall time, summed over its
	// measured processes; NaN when no process recorded them.
	OthersShare, StealShare float64
	// Busy: others' CPU or steal above BusyThreshold of the wall time.
	Busy bool
}

// CellNoise applies the busy rule to the runs of one cell (warm-ups are
// ignored; so are processes that recorded no wall time). It is the one
// place the rule lives: run's closing warning and the reports both call it.
//
// The shares are pooled over the cell (Σ others / Σ wall), not the median
// of each process's share: /proc/stat counts in 10 ms ticks, so a 5 ms
// process sees either no tick of other load or a whole one (200% of its
// wall time). Summed over the cell the ticks average out; for processes
// long against a tick, the pooled share and the median process's share
// agree.
//
// Each process's own_work_ns is subtracted first: spawnbench's own cost
// of starting and ending a process, which /proc/stat counts as nobody's
// (without it a cell of 1 ms processes reads a quarter busy on an idle
// machine).
//
// And the share must exceed the threshold by more than chance: each of a
// process's two /proc/stat readings rounds its counters to a 10 ms tick,
// so a short process reads 0 or 10 ms of others' CPU, and ten 8 ms
// processes can read 25% busy from rounding alone. The cell is busy when
// the mean excess over the threshold, per process, is above three times
// its standard error over the cell's processes (at least the rounding of one
// counter, tickNoiseNS, per process): a CPU hog beside even 1 ms
// processes clears that, a tick that happened to land does not.
func CellNoise(runs []ProcessRun) Noise {
	var wallO, others, wallS, steal float64
	var excessO, excessS []float64
	for _, r := range runs {
		if r.Warmup || r.WallNS <= 0 {
			continue
		}
		wall := float64(r.WallNS)
		if r.OthersCPUNS != nil {
			o := float64(*r.OthersCPUNS)
			if r.OwnWorkNS != nil {
				o -= float64(*r.OwnWorkNS)
			}
			wallO += wall
			others += o
			excessO = append(excessO, o-BusyThreshold*wall)
		}
		if r.StealNS != nil {
			wallS += wall
			steal += float64(*r.StealNS)
			excessS = append(excessS, float64(*r.StealNS)-BusyThreshold*wall)
		}
	}
	share := func(part, whole float64) float64 {
		if whole == 0 {
			return math.NaN()
		}
		return part / whole
	}
	// One process's others_cpu_ns may be negative (whole ticks less exact
	// CPU times); the sum is right, and a negative sum is an idle machine.
	n := Noise{OthersShare: max(0, share(others, wallO)), StealShare: max(0, share(steal, wallS))}
	n.Busy = clearlyAbove(excessO) || clearlyAbove(excessS)
	return n
}

// clearlyAbove: the mean of the processes' excesses over the threshold is
// more than three standard errors above zero. Three, not two: a run
// judges a hundred cells, and on an idle machine none may misfire.
func clearlyAbove(excess []float64) bool {
	k := float64(len(excess))
	if k == 0 {
		return false
	}
	var mean, variance float64
	for _, x := range excess {
		mean += x / k
	}
	if k >= 2 {
		for _, x := range excess {
			variance += (x - mean) * (x - mean) / (k - 1)
		}
	}
	se := math.Sqrt(max(variance, tickNoiseNS*tickNoiseNS) / k)
	return mean > 3*se
}

// tickNoiseNS is the standard deviation of the difference of two
// /proc/stat readings of one counter that each round down to a whole
// 10 ms tick (USER_HZ = 100, as on every common Linux): √(2/12) ticks.
var tickNoiseNS = 10e6 * math.Sqrt(2.0/12)

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
