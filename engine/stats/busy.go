package stats

import (
	"math"
	"slices"
	"sort"

	mstats "github.com/aclements/go-moremath/stats"
)

// The busy rule. Load is always a number (the cell's others' CPU and
// steal over its wall time); a flag is a claim that the load moved the
// figure, and it needs evidence. A hypervisor that steals a steady tenth
// of every CPU, as many do and nobody inside the VM can stop, slows
// every process alike or not at all: it is no reason to distrust one
// cell more than another, and a flag that most cells carry is no flag.
const (
	// BusyAlpha is the effect test's level: a run judges about a hundred
	// cells, and on an idle machine none may misfire.
	BusyAlpha = 0.001
	// BusyMinRatio is how much higher the most-loaded half's figure must
	// be than the least-loaded half's for the effect to matter.
	BusyMinRatio = 1.1
	// BusyMinProcesses is the fewest processes, with a figure and a
	// recorded load, that the effect test takes: fewer cannot reach
	// BusyAlpha unless every process agrees, and its t reference is not
	// to be trusted so far out in the tail.
	BusyMinProcesses = 10
	// SaturatedShare is the share of wall time others' work (not steal)
	// must take, pooled and clearly (clearlyAbove), for a cell to be busy
	// throughout.
	SaturatedShare = 0.5
	// SaturatedStandardErrors is how many standard errors above zero the
	// processes' excess over SaturatedShare must lie (clearlyAbove).
	SaturatedStandardErrors = 3
	// BusyThreshold is the others' load, in CPUs, beyond which a run
	// warns at its start that other programs load the machine. It flags
	// no cell: cells are flagged by Busy.
	BusyThreshold = 0.10
)

// ProcessLoad is what the machine did beside one process, in ns: its wall
// time, the CPU time everything else used meanwhile (OthersNS, NaN where
// unknown) less spawnbench's own part of it (OwnWorkNS, 0 where unknown),
// and the hypervisor's steal (StealNS, NaN where unknown); and the
// process's figure, its typical spawn (Figure, any unit; NaN for a
// process without one, which counts in the shares only).
type ProcessLoad struct {
	WallNS, OthersNS, OwnWorkNS, StealNS float64
	Figure                               float64
}

// Load is how much the machine did beside one cell's processes, and
// whether that moved the cell's figure.
type Load struct {
	// OthersShare and StealShare are the cell's others' CPU (less own
	// work) and steal over its wall time, summed over its processes; NaN
	// when no process recorded them.
	OthersShare, StealShare float64
	// Busy is Throughout or Rises.
	Busy bool
	// Throughout: others' work took SaturatedShare or more of the wall
	// time, pooled, and clearly so over the cell's processes
	// (clearlyAbove): no process saw an idle machine, so nothing tells the
	// figure from an idle machine's.
	Throughout bool
	// Rises: over the cell's processes, the figure rises with the load
	// (P < BusyAlpha), and the most-loaded half's figure is Ratio ≥
	// BusyMinRatio times the least-loaded half's.
	Rises bool
	// Tested is how many processes the effect test took (0: too few, or
	// every figure tied; Rho, P and Ratio are then NaN). Rho is the
	// correlation of their figures' ranks with their load shares, P the
	// one-sided p-value that the load rises with the figure, Ratio the
	// most-loaded half's median figure over the least-loaded half's.
	Tested        int
	Rho, P, Ratio float64
}

// Busy applies the busy rule to the processes of one cell (processes
// with no wall time are ignored). It is the one place the rule lives.
//
// The shares are pooled over the cell (Σ others / Σ wall): /proc/stat
// counts in 10 ms ticks, so a 5 ms process sees either no tick of other
// load or a whole one; summed over the cell the ticks average out. Each
// process's own work (spawnbench's cost of starting and ending it, which
// /proc/stat counts as nobody's) is subtracted first.
//
// A cell is busy on one of two kinds of evidence:
//
//   - busy throughout: others' work, pooled, took SaturatedShare of the
//     wall time or more, and clearly so (clearlyAbove). Then no process
//     ran on an idle machine and there is no unloaded baseline to
//     compare with. Steal never counts here: it is the hypervisor's, and
//     as steady as the machine.
//   - the figure rises with the load (loadEffect): the processes that saw
//     more load are the slower ones, clearly (P < BusyAlpha) and by
//     enough to matter (Ratio ≥ BusyMinRatio). Steal alone raises a flag
//     only this way.
func Busy(procs []ProcessLoad) Load {
	var wallO, others, wallS, steal float64
	var excess []float64 // others' work beyond SaturatedShare of the wall time
	for _, p := range procs {
		if p.WallNS <= 0 {
			continue
		}
		if !math.IsNaN(p.OthersNS) {
			o := p.OthersNS - p.OwnWorkNS
			wallO += p.WallNS
			others += o
			excess = append(excess, o-SaturatedShare*p.WallNS)
		}
		if !math.IsNaN(p.StealNS) {
			wallS += p.WallNS
			steal += p.StealNS
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
	l.Throughout = l.OthersShare >= SaturatedShare && clearlyAbove(excess)
	l.Tested, l.Rho, l.P, l.Ratio = loadEffect(procs, wallO > 0, wallS > 0)
	l.Rises = l.Tested > 0 && l.P < BusyAlpha && l.Ratio >= BusyMinRatio
	l.Busy = l.Throughout || l.Rises
	return l
}

// loadEffect tests whether the figure rises with the load over the
// processes that have a figure and every load column the cell recorded:
// the test behind Load.Rises. A process's load share is its others' CPU
// less own work, plus its steal, over its wall time.
//
// A rank test of figure against load share would be fooled by
// /proc/stat's ticks: a process shorter than a tick reads no tick (its
// share lowest) or a whole one (highest), and a longer, slower process is
// likelier to read one, so on an idle machine the slower processes seem
// the more loaded (in simulated cells of short processes in two
// placements a Spearman test at p < 0.001 misfired in about one in
// twenty). The ticks are right on average, though: whatever a process's
// length, its expected share is the machine's. So the test is linear in
// the shares: they are regressed on the figures' ranks (midranks for
// ties), and the slope's t takes a heteroscedasticity-robust (HC3)
// standard error, each process's squared residual at least one tick's
// rounding per recorded counter over its wall time squared (a short
// process's share says little), against Student's t with k − 2 degrees
// of freedom. Rho is the correlation of shares and ranks. The effect size
// splits the processes by load share: the median figure of the
// most-loaded half over the least-loaded half's.
func loadEffect(procs []ProcessLoad, withOthers, withSteal bool) (tested int, rho, p, ratio float64) {
	nan := math.NaN()
	var figure, wall, load []float64
	for _, q := range procs {
		if q.WallNS <= 0 || math.IsNaN(q.Figure) || (!withOthers && !withSteal) ||
			(withOthers && math.IsNaN(q.OthersNS)) || (withSteal && math.IsNaN(q.StealNS)) {
			continue
		}
		var l float64
		if withOthers {
			l += q.OthersNS - q.OwnWorkNS
		}
		if withSteal {
			l += q.StealNS
		}
		figure, wall, load = append(figure, q.Figure), append(wall, q.WallNS), append(load, l)
	}
	k := len(figure)
	if k < BusyMinProcesses {
		return 0, nan, nan, nan
	}
	ranks := midranks(figure)
	centre := float64(k+1) / 2
	var meanShare float64
	for i := range k {
		meanShare += load[i] / wall[i] / float64(k)
	}
	c, d := make([]float64, k), make([]float64, k)
	var scc, scd, sdd float64
	for i := range k {
		c[i], d[i] = ranks[i]-centre, load[i]/wall[i]-meanShare
		scc, scd, sdd = scc+c[i]*c[i], scd+c[i]*d[i], sdd+d[i]*d[i]
	}
	if scc == 0 {
		return 0, nan, nan, nan // every figure tied: nothing to rank
	}
	// Both c and d have mean 0, so the fit has no intercept to speak of.
	slope := scd / scc
	counters := 0.0
	if withOthers {
		counters++
	}
	if withSteal {
		counters++
	}
	var v float64
	for i := range k {
		e := d[i] - slope*c[i]
		if free := 1 - 1/float64(k) - c[i]*c[i]/scc; free > 1e-9 {
			e /= free
		} else {
			e = 0 // a process that alone sets the slope (every other figure tied): only the floor is known
		}
		floor := counters * tickNoiseNS * tickNoiseNS / (wall[i] * wall[i])
		v += c[i] * c[i] * max(e*e, floor)
	}
	t := slope / (math.Sqrt(v) / scc)
	p = mstats.TDist{V: float64(k - 2)}.CDF(-t)
	rho = 0
	if sdd > 0 {
		rho = scd / math.Sqrt(scc*sdd)
	}
	return k, rho, p, halvesRatio(figure, wall, load)
}

// halvesRatio is the median figure of the most-loaded half of the
// processes (by load share) over the least-loaded half's; with an odd
// count the middle process is in neither.
func halvesRatio(figure, wall, load []float64) float64 {
	order := make([]int, len(figure))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return load[order[a]]/wall[order[a]] < load[order[b]]/wall[order[b]] })
	half := len(order) / 2
	pick := func(idx []int) []float64 {
		v := make([]float64, len(idx))
		for i, j := range idx {
			v[i] = figure[j]
		}
		return v
	}
	least, most := Median(pick(order[:half])), Median(pick(order[len(order)-half:]))
	if least <= 0 {
		if most > 0 {
			return math.Inf(1)
		}
		return math.NaN()
	}
	return most / least
}

// clearlyAbove: the processes' excesses (others' work beyond
// SaturatedShare of each one's wall time), MinIntervalProcesses of them
// or more, have a mean or a 20% trimmed mean more than
// SaturatedStandardErrors of its standard errors (plain, or
// Tukey–McLaughlin's from the winsorized variance) above zero, each
// variance at least one tick's rounding. The
// trimmed mean for a tail: beside CPU hogs a few processes that waited
// long for a CPU read far more than the rest, which widens the plain
// standard error; the plain mean for processes of about a tick, whose
// two-valued readings the trimming wastes. And a standard error, not a
// count of processes above the bar: a process shorter than a tick reads
// a whole tick or none, so on an idle machine most of ten short
// processes can read "above half" by chance.
func clearlyAbove(excess []float64) bool {
	k := len(excess)
	if k < MinIntervalProcesses {
		return false
	}
	floor := tickNoiseNS * tickNoiseNS
	y, varW := yuenOf(excess)
	h := float64(k - 2*int(math.Floor(TrimFraction*float64(k))))
	if y.tm > SaturatedStandardErrors*math.Sqrt(max(varW, floor)*float64(k-1)/(h*(h-1))) {
		return true
	}
	return Mean(excess) > SaturatedStandardErrors*math.Sqrt(max(varianceOf(excess), floor)/float64(k))
}

// midranks are the ranks of values, 1 for the smallest, ties sharing
// the mean of their ranks.
func midranks(values []float64) []float64 {
	order := make([]int, len(values))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case values[a] < values[b]:
			return -1
		case values[a] > values[b]:
			return 1
		}
		return 0
	})
	ranks := make([]float64, len(values))
	for i := 0; i < len(order); {
		j := i
		for j < len(order) && values[order[j]] == values[order[i]] {
			j++
		}
		for _, o := range order[i:j] {
			ranks[o] = float64(i+j+1) / 2 // ranks i+1..j, averaged
		}
		i = j
	}
	return ranks
}

// tickNoiseNS is the standard deviation of the difference of two
// /proc/stat readings of one counter that each round down to a whole
// 10 ms tick (USER_HZ = 100, as on every common Linux): √(2/12) ticks.
var tickNoiseNS = 10e6 * math.Sqrt(2.0/12)
