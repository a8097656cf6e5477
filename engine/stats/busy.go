package stats

import "math"

// BusyThreshold is the share of a process's wall time that other work on
// the machine or the hypervisor's steal may take before the process's
// cell is called busy.
const BusyThreshold = 0.10

// ProcessLoad is what the machine did beside one process, in ns: its wall
// time, the CPU time everything else used meanwhile (OthersNS, NaN where
// unknown) less spawnbench's own part of it (OwnWorkNS, 0 where unknown),
// and the hypervisor's steal (StealNS, NaN where unknown).
type ProcessLoad struct {
	WallNS, OthersNS, OwnWorkNS, StealNS float64
}

// Load is how much the machine disturbed one cell's processes.
type Load struct {
	// OthersShare and StealShare are the cell's others' CPU (less own
	// work) and steal over its wall time, summed over its processes; NaN
	// when no process recorded them.
	OthersShare, StealShare float64
	// Busy: others' CPU or steal clearly above BusyThreshold of the wall
	// time.
	Busy bool
}

// Busy applies the busy rule to the processes of one cell (processes
// with no wall time are ignored). It is the one place the rule lives.
//
// The shares are pooled over the cell (Σ others / Σ wall), not the median
// of each process's share: /proc/stat counts in 10 ms ticks, so a 5 ms
// process sees either no tick of other load or a whole one (200% of its
// wall time). Summed over the cell the ticks average out; for processes
// long against a tick, the pooled share and the median process's share
// agree.
//
// Each process's own work is subtracted first: spawnbench's own cost of
// starting and ending a process, which /proc/stat counts as nobody's
// (without it a cell of 1 ms processes reads a quarter busy on an idle
// machine).
//
// And the share must exceed the threshold by more than chance: each of a
// process's two /proc/stat readings rounds its counters to a 10 ms tick,
// so a short process reads 0 or 10 ms of others' CPU, and ten 8 ms
// processes can read 25% busy from rounding alone. The cell is busy when
// the mean excess over the threshold, per process, is above three times
// its standard error over the cell's processes (at least the rounding of
// one counter, tickNoiseNS, per process): a CPU hog beside even 1 ms
// processes clears that, a tick that happened to land does not.
func Busy(procs []ProcessLoad) Load {
	var wallO, others, wallS, steal float64
	var excessO, excessS []float64
	for _, p := range procs {
		if p.WallNS <= 0 {
			continue
		}
		if !math.IsNaN(p.OthersNS) {
			o := p.OthersNS - p.OwnWorkNS
			wallO += p.WallNS
			others += o
			excessO = append(excessO, o-BusyThreshold*p.WallNS)
		}
		if !math.IsNaN(p.StealNS) {
			wallS += p.WallNS
			steal += p.StealNS
			excessS = append(excessS, p.StealNS-BusyThreshold*p.WallNS)
		}
	}
	share := func(part, whole float64) float64 {
		if whole == 0 {
			return math.NaN()
		}
		return part / whole
	}
	// One process's others' CPU may be negative (whole ticks less exact
	// CPU times); the sum is right, and a negative sum is an idle machine.
	l := Load{OthersShare: max(0, share(others, wallO)), StealShare: max(0, share(steal, wallS))}
	l.Busy = clearlyAbove(excessO) || clearlyAbove(excessS) ||
		saturated(l.OthersShare, excessO) || saturated(l.StealShare, excessS)
	return l
}

// saturated: the share is at least SaturatedShare and most of the
// cell's processes (of MinIntervalProcesses or more) are above the
// threshold on their own. On a machine saturated by other work a few
// processes that waited long for a CPU read far more than the rest, and
// that tail widens clearlyAbove's standard error: beside two CPU hogs a
// cell whose others took 140–180% of its wall time read not busy. Tick
// rounding on an idle machine reaches neither bar: it puts a tick in a
// few short processes, not in most.
func saturated(share float64, excess []float64) bool {
	if len(excess) < MinIntervalProcesses || math.IsNaN(share) || share < SaturatedShare {
		return false
	}
	above := 0
	for _, x := range excess {
		if x > 0 {
			above++
		}
	}
	return 2*above > len(excess)
}

// SaturatedShare is the share of wall time others' work or steal takes
// beyond which a cell is busy if most of its processes say so too,
// whatever its tail (saturated).
const SaturatedShare = 0.5

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
