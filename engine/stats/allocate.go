package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

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
	t, ok := sizedAtOwnT(func(t float64) (float64, bool) {
		na, nb, ok := neyman(a, b, squaredErrorBudget(target, t))
		return welchDF(a.LogVar, na, b.LogVar, nb), ok
	})
	if !ok {
		return na, nb, false
	}
	return neyman(a, b, squaredErrorBudget(target, t))
}

// squaredErrorBudget is what Σ LogVar ÷ n of a ratio's sides may reach
// for its interval at t quantile t to stay within target: Yuen's squared
// standard error is about LogVar ÷ (h² ÷ n) with h = 0.6 n after
// trimming, LogVar ÷ (0.36 n).
func squaredErrorBudget(target, t float64) float64 {
	return trimmedShare * trimmedShare * math.Pow(math.Asinh(target)/t, 2)
}

// sizedAtOwnT is the quantile to size a ratio's sides for: the counts
// decide the interval's degrees of freedom, so counts sized at t must
// have an assured quantile (assuredQuantile) of t or less. size(t) is
// the degrees of freedom of the counts sized at t. A larger t sizes more
// processes, whose quantile is smaller, so the least such t is found by
// doubling and then bisection; sizing a fixed number of times from the
// normal's 1.96 instead can stop at counts too few for their own
// quantile (5 processes sized at t = 2.1, whose own is 4.3).
func sizedAtOwnT(size func(t float64) (df float64, ok bool)) (float64, bool) {
	enough := func(t float64) (yes, ok bool) {
		df, ok := size(t)
		return ok && assuredQuantile(df) <= t, ok
	}
	lo, hi := 1.96, 1.96
	for {
		yes, ok := enough(hi)
		if !ok {
			return hi, false
		}
		if yes {
			break
		}
		if hi > 100 {
			return hi, false
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-3 {
		mid := (lo + hi) / 2
		if yes, _ := enough(mid); yes {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// ReachShare is the share of runs whose ratio an allocation means to
// bring within its target. A run's interval is as wide as the spread its
// own processes show, which scatters about the spread the plan sized by
// (as χ² of its degrees of freedom): counts sized for the spread itself
// reach the target in half the runs only, and the main job of 7 December
// 2026 missed ±10% on three steady states of 5 and 7 processes so.
const ReachShare = 0.9

// assuredQuantile is the factor of the standard error that an interval
// of df degrees of freedom stays within in ReachShare of runs: the t
// quantile, times how far the spread a run measures exceeds the true
// one in all but 1 - ReachShare of runs, √(χ²(df) quantile ÷ df).
func assuredQuantile(df float64) float64 {
	df = max(df, 1)
	return tQuantile(df) * math.Sqrt(distuv.ChiSquared{K: df}.Quantile(ReachShare)/df)
}

// welchDF is the Welch–Satterthwaite degrees of freedom (welch) of a
// ratio whose sides have na and nb processes of spreads va and vb.
func welchDF(va float64, na int, vb float64, nb int) float64 {
	_, _, df := welch(plannedSpread(va, na), plannedSpread(vb, nb))
	return df
}

// plannedSpread is the spread n processes of winsorized log variance v
// give, trimmed as yuenOf trims them (h = 0.6 n).
func plannedSpread(v float64, n int) spread {
	h := trimmedShare * float64(n)
	return spread{d: v / (h * h / float64(n)), df: h - 1}
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
	sized := func(t float64) (int, bool) {
		return rest(a.LogVar, squaredErrorBudget(target, t)-bLogVar/float64(nb), fa)
	}
	t, ok := sizedAtOwnT(func(t float64) (float64, bool) {
		na, ok := sized(t)
		return welchDF(a.LogVar, na, bLogVar, nb), ok
	})
	if !ok {
		return fa, false
	}
	return sized(t)
}
