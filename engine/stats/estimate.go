package stats

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/aclements/go-moremath/mathx"
	mstats "github.com/aclements/go-moremath/stats"
)

// Confidence is the level of every interval.
const Confidence = 0.95

// TrimFraction is the share trimmed from each end, at both stages:
// Wilcox's recommended 20%, robust to the first spawn and to tails while
// keeping most of the data.
const TrimFraction = 0.2

// MinIntervalProcesses is the fewest process summaries a cell needs for
// an interval and a verdict; with fewer its figure is "not judged".
const MinIntervalProcesses = 5

// DriftWindows is the number of equal windows of a cell's time span (its
// first process's start to its last's) whose means bound its drift. Five
// covered the other run best in the reproducibility runs (10 and 20
// windows, each shorter than the drift, covered 26 and 25 of 32): few
// windows are wide, but their means are close to independent.
const DriftWindows = 5

// DriftMinProcesses is the fewest processes a cell needs for drift
// windows: four a window on average. A window of one or two processes
// has a mean that is that process's own noise, untrimmed, so one slow
// process would widen the interval beyond what the cell's processes say
// (a 10-process cell with one 350 µs process among 30 µs ones read
// ±146%); over processes alone, Yuen's trimming keeps it in bounds.
const DriftMinProcesses = 4 * DriftWindows

// DriftAlpha is the level below which a cell's windows are taken to
// differ.
const DriftAlpha = 0.01

// Process is one independent process reduced to one number.
type Process struct {
	// Value is the process's typical spawn time (Typical), in any unit;
	// estimates come out in the same unit.
	Value float64
	// Start is when the process started; zero where unknown (then the
	// cell has no drift windows).
	Start time.Time
}

// Estimate is a cell's figure, computed over its processes.
type Estimate struct {
	// Center is the cell's typical value: the exponentiated 20% trimmed
	// mean of the log process values.
	Center float64
	// Low and High bound it at Confidence; NaN when the cell has fewer
	// than MinIntervalProcesses processes.
	Low, High float64
	// Processes is the number of independent processes behind it.
	Processes int
	// Precision is the interval's relative half-width, (High − Low) / 2
	// / Center; +Inf when there is no interval.
	Precision float64
	// Windowed is true when the cell's time windows, not its processes,
	// set the interval.
	Windowed bool
	// Drifted is true when, moreover, the windows differ beyond chance
	// (Kruskal–Wallis over the processes grouped by window, p <
	// DriftAlpha): the cell moved during the run.
	Drifted bool

	loc spread
}

// Bounded is true when the estimate has an interval.
func (e *Estimate) Bounded() bool {
	return e != nil && !math.IsNaN(e.Low) && !math.IsNaN(e.High) && !math.IsInf(e.High, 0)
}

// Summarize computes a cell's figure and interval from its processes;
// nil for none.
func Summarize(procs []Process) *Estimate {
	if len(procs) == 0 {
		return nil
	}
	logs := make([]float64, len(procs))
	for i, p := range procs {
		logs[i] = safeLog(p.Value)
	}
	y := yuenOf(logs)
	e := &Estimate{Center: math.Exp(y.tm), Processes: len(procs), Low: math.NaN(), High: math.NaN(), Precision: math.Inf(1)}
	if len(procs) >= MinIntervalProcesses {
		if w, ok := windowSpread(procs, logs); ok && w.half() > y.half() {
			y.d, y.df = w.d, w.df
			e.Windowed = true
			p, ok := KruskalWallis(w.groups)
			e.Drifted = ok && p < DriftAlpha
		}
		half := y.half()
		e.Low, e.High = math.Exp(y.tm-half), math.Exp(y.tm+half)
		e.Precision = (e.High - e.Low) / 2 / e.Center
	}
	e.loc = y
	return e
}

// windowSpread is the batch-means spread of a cell's log process values:
// the squared standard error of the mean of its DriftWindows window means
// (each window's trimmed mean), with k − 1 degrees of freedom for k
// windows that hold a process, and those windows' logs. Not ok for fewer
// than DriftMinProcesses processes, when a start time is unknown, the
// processes all started at once, or fewer than three windows hold one.
func windowSpread(procs []Process, logs []float64) (windowed, bool) {
	if len(procs) < DriftMinProcesses {
		return windowed{}, false
	}
	first, last := procs[0].Start, procs[0].Start
	for _, p := range procs {
		if p.Start.IsZero() {
			return windowed{}, false
		}
		if p.Start.Before(first) {
			first = p.Start
		}
		if p.Start.After(last) {
			last = p.Start
		}
	}
	span := last.Sub(first)
	if span <= 0 {
		return windowed{}, false
	}
	windows := make([][]float64, DriftWindows)
	for i, p := range procs {
		w := min(int(float64(p.Start.Sub(first))/float64(span)*DriftWindows), DriftWindows-1)
		windows[w] = append(windows[w], logs[i])
	}
	var out windowed
	var means []float64
	for _, w := range windows {
		if len(w) > 0 {
			slices.Sort(w)
			means = append(means, trimmedMeanSorted(w))
			out.groups = append(out.groups, w)
		}
	}
	k := len(means)
	if k < 3 {
		return windowed{}, false
	}
	out.d, out.df = mstats.Variance(means)/float64(k), float64(k-1)
	return out, true
}

// windowed is a batch-means spread and the groups behind it.
type windowed struct {
	spread
	groups [][]float64
}

// Ratio is a / b with its Yuen–Welch interval at Confidence; unbounded
// (low 0, high +Inf) when either side has too few processes.
func Ratio(a, b *Estimate) (ratio, low, high float64) {
	ratio = math.Exp(a.loc.tm - b.loc.tm)
	if a.Processes < MinIntervalProcesses || b.Processes < MinIntervalProcesses {
		return ratio, 0, math.Inf(1)
	}
	diff, se, df := welch(a.loc, b.loc)
	if se == 0 {
		return ratio, ratio, ratio
	}
	half := tQuantile(df) * se
	return ratio, math.Exp(diff - half), math.Exp(diff + half)
}

// Test is the two-sided Yuen–Welch test of equal trimmed means of the
// log process values: the p-value compare reports. NaN when either side
// has too few processes.
func Test(a, b *Estimate) float64 {
	if a.Processes < MinIntervalProcesses || b.Processes < MinIntervalProcesses {
		return math.NaN()
	}
	diff, se, df := welch(a.loc, b.loc)
	if se == 0 {
		if diff == 0 {
			return 1
		}
		return 0
	}
	t := math.Abs(diff) / se
	return 2 * (1 - mstats.TDist{V: df}.CDF(t))
}

// spread is the location of one sample of logs and its uncertainty: tm,
// its trimmed mean; d, the squared standard error of tm; df, the degrees
// of freedom behind d.
type spread struct {
	tm, d, df float64
}

// half is the half-width of tm's interval at Confidence.
func (s spread) half() float64 { return tQuantile(s.df) * math.Sqrt(s.d) }

// yuenOf is the Yuen spread of values: the trimmed mean, its squared
// standard error from the winsorized variance (Tukey–McLaughlin), and
// h − 1 degrees of freedom for the h values left after trimming.
func yuenOf(values []float64) spread {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	n := len(sorted)
	g := int(math.Floor(TrimFraction * float64(n)))
	h := n - 2*g
	y := spread{tm: trimmedMeanG(sorted, g), df: float64(h - 1)}
	if h < 2 {
		y.d = math.Inf(1)
		return y
	}
	// Winsorize: the g smallest become the (g+1)th, the g largest the
	// (n−g)th.
	lo, hi := sorted[g], sorted[n-g-1]
	var sum, sum2 float64
	for _, v := range sorted {
		v = min(max(v, lo), hi)
		sum += v
		sum2 += v * v
	}
	mean := sum / float64(n)
	varW := (sum2 - float64(n)*mean*mean) / float64(n-1)
	y.d = max(varW, 0) * float64(n-1) / (float64(h) * float64(h-1))
	return y
}

// welch is the difference of two locations, its standard error and
// Welch–Satterthwaite's degrees of freedom.
func welch(a, b spread) (diff, se, df float64) {
	diff = a.tm - b.tm
	se = math.Sqrt(a.d + b.d)
	num := (a.d + b.d) * (a.d + b.d)
	den := a.d*a.d/a.df + b.d*b.d/b.df
	if den == 0 {
		return diff, se, a.df + b.df
	}
	return diff, se, num / den
}

// tQuantile is Student's t quantile for a two-sided interval at
// Confidence.
func tQuantile(df float64) float64 {
	if df < 1 {
		df = 1
	}
	return mstats.InvCDF(mstats.TDist{V: df})(1 - (1-Confidence)/2)
}

// safeLog is the log of a time; a time that is not positive (a clock
// coarser than the spawn) counts as a thousandth of the unit (1 ns for
// µs).
func safeLog(v float64) float64 {
	return math.Log(max(v, 1e-3))
}

// KruskalWallis is the p-value of the Kruskal–Wallis test that the groups
// come from one distribution (with the tie correction), and false when it
// cannot be computed (fewer than two groups, or every value tied).
func KruskalWallis(groups [][]float64) (float64, bool) {
	type obs struct {
		v float64
		g int
	}
	var all []obs
	for gi, g := range groups {
		for _, v := range g {
			all = append(all, obs{v, gi})
		}
	}
	n := len(all)
	if len(groups) < 2 || n < 3 {
		return math.NaN(), false
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	rankSum := make([]float64, len(groups))
	var ties float64
	for i := 0; i < n; {
		j := i
		for j < n && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // ranks i+1..j, averaged
		for k := i; k < j; k++ {
			rankSum[all[k].g] += rank
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	fn := float64(n)
	var h float64
	for gi, g := range groups {
		h += rankSum[gi] * rankSum[gi] / float64(len(g))
	}
	h = 12/(fn*(fn+1))*h - 3*(fn+1)
	c := 1 - ties/(fn*fn*fn-fn)
	if c <= 0 {
		return math.NaN(), false
	}
	h /= c
	df := float64(len(groups) - 1)
	return mathx.GammaIncComp(df/2, h/2), true
}
