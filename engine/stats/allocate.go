package stats

import "math"

// A ratio of two cells is as precise as the sum of its sides' squared
// standard errors allows, and the sides cost differently: a native
// process costs milliseconds and spreads widely, a browser's costs
// seconds and hardly spreads. Neyman's allocation puts each side's
// processes in proportion to √(spread ÷ cost), which reaches a target for
// the ratio at the least wall time; a plan uses it before the run, from
// a set measured earlier, so that the extra processes are interleaved
// with every other cell rather than added at the end, where the machine
// has moved.

// Side is one cell of a ratio as a plan sees it.
type Side struct {
	// LogVar is the winsorized variance of its log process values
	// (Estimate.LogVar), CostS what one of its processes costs in
	// seconds of wall time, and Floor the processes it has at least.
	LogVar float64
	CostS  float64
	Floor  int
}

// LogVar is the winsorized variance of the cell's log process values:
// the spread a plan allocates by. NaN with fewer than two trimmed values.
func (e *Estimate) LogVar() float64 { return e.varW }

// RatioProcesses is how many processes each side of a ratio a ÷ b needs
// for the ratio's Yuen–Welch interval to reach a relative half-width of
// target, at the least wall time (Neyman's allocation), each side at
// least its floor. A side whose floor alone takes up the target leaves
// the other none to reach it: ok is false, and both are their floors.
func RatioProcesses(a, b Side, target float64) (na, nb int, ok bool) {
	na, nb = max(a.Floor, MinIntervalProcesses), max(b.Floor, MinIntervalProcesses)
	if !(target > 0) || !(a.LogVar >= 0) || !(b.LogVar >= 0) || !(a.CostS > 0) || !(b.CostS > 0) {
		return na, nb, false
	}
	// Yuen's squared standard error is about LogVar ÷ (h² ÷ n) with
	// h = 0.6 n after trimming: LogVar ÷ (0.36 n). The t quantile depends
	// on the counts it sets; two passes from the normal's settle it.
	t := 1.96
	for range 3 {
		budget := trimmedShare * trimmedShare * math.Pow(math.Asinh(target)/t, 2) // Σ LogVar ÷ n may not exceed it
		na, nb, ok = neyman(a, b, budget)
		if !ok {
			return na, nb, false
		}
		h := float64(min(na, nb)) * trimmedShare
		t = tQuantile(h - 1)
	}
	return na, nb, true
}

// trimmedShare is the share of a cell's processes left after trimming
// both ends.
const trimmedShare = 1 - 2*TrimFraction

// neyman minimizes a.CostS·na + b.CostS·nb subject to
// a.LogVar/na + b.LogVar/nb ≤ budget and the floors.
func neyman(a, b Side, budget float64) (na, nb int, ok bool) {
	fa, fb := max(a.Floor, MinIntervalProcesses), max(b.Floor, MinIntervalProcesses)
	s := math.Sqrt(a.LogVar*a.CostS) + math.Sqrt(b.LogVar*b.CostS)
	xa := math.Sqrt(a.LogVar/a.CostS) * s / budget
	xb := math.Sqrt(b.LogVar/b.CostS) * s / budget
	switch {
	case xa < float64(fa) && xb < float64(fb):
		return fa, fb, true
	case xa < float64(fa):
		nb, ok = rest(b.LogVar, budget-a.LogVar/float64(fa), fb)
		return fa, nb, ok
	case xb < float64(fb):
		na, ok = rest(a.LogVar, budget-b.LogVar/float64(fb), fa)
		return na, fb, ok
	}
	return int(math.Ceil(xa)), int(math.Ceil(xb)), true
}

// rest is the processes a side of spread logVar needs to stay within
// what the other side leaves of the budget, at least floor.
func rest(logVar, left float64, floor int) (int, bool) {
	if left <= 0 {
		return floor, false
	}
	return max(floor, int(math.Ceil(logVar/left))), true
}

// ProcessesBeside is how many processes side a needs for the ratio
// a ÷ b to reach target when b has nb processes already (b's count set
// by a dearer ratio it is the baseline of), at least a's floor; ok is
// false when b's processes alone take up the target.
func ProcessesBeside(a Side, bLogVar float64, nb int, target float64) (int, bool) {
	fa := max(a.Floor, MinIntervalProcesses)
	if !(target > 0) || !(a.LogVar >= 0) || !(bLogVar >= 0) || nb <= 0 {
		return fa, false
	}
	t := 1.96
	na := fa
	for range 3 {
		budget := trimmedShare * trimmedShare * math.Pow(math.Asinh(target)/t, 2)
		var ok bool
		if na, ok = rest(a.LogVar, budget-bLogVar/float64(nb), fa); !ok {
			return fa, false
		}
		t = tQuantile(float64(min(na, nb))*trimmedShare - 1)
	}
	return na, true
}
