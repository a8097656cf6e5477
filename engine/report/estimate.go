package report

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/aclements/go-moremath/mathx"
	"github.com/aclements/go-moremath/stats"

	"spawnbench/engine/results"
)

// The process is the unit of replication. Spawns of one process share its
// heap, its threads' placement and its runtime's warm state, so they are
// correlated (native sequential n = 1000 alternates slow and fast spawns
// for hundreds of spawns, then stays in one regime): an interval over the
// pooled spawns of a cell claims a certainty the cell does not have.
// Every figure and interval of a report is therefore computed in two
// stages:
//
//  1. each process is reduced to one number, its typical spawn in the
//     view: the 20% trimmed mean of its spawn times (for n = 1 the one
//     spawn; the slow first spawn of a longer process falls in the
//     trimmed tail);
//  2. a cell's figure is the 20% trimmed mean of the logarithms of its
//     process summaries, exponentiated, with Yuen's interval for a
//     trimmed mean (Tukey and McLaughlin's winsorized standard error,
//     Student's t with h − 1 degrees of freedom), computed over processes;
//  3. for a cell of DriftMinProcesses or more, the interval is widened,
//     where it is the larger, to the batch-means interval of
//     DriftWindows equal windows of the cell's time span.
//
// Trimmed means, not medians: a cell whose spawns or processes fall into
// two regimes (a child on the parent's CPU or on the other one) has a
// median on a knife edge that jumps from one regime to the other when
// their shares move by a few percent; a trimmed mean moves with the
// shares. Logarithms, because spawn times are multiplicative (a ratio to
// native is the question), so a ratio's interval is the difference of two
// such means with Welch's degrees of freedom, and compare's test is the
// same Yuen–Welch test, so "significant" and "the ratio's interval
// excludes 1" always agree.
//
// Why the windows: processes of one cell are independent of each other
// but not of the machine, whose state drifts over minutes (frequency,
// cache and page-cache state, other tenants). Two back-to-back runs of
// specs/reproducibility.cue differed by more than the intervals over
// processes allowed in 13 of 32 figures; the same processes grouped in
// five equal windows of their run's time, each window's mean one value,
// gave intervals that held the other run's figure in 30 of 32 (README,
// "Reproducibility"). That is the method of non-overlapping batch means
// for a series whose values are correlated in time: a few long batches,
// so that their means are nearly independent. The cell's interval is the
// wider of the two, so a cell that does not drift keeps the interval
// over its processes.

// TrimFraction is the share trimmed from each end, at both stages:
// Wilcox's recommended 20%, robust to the first spawn and to tails while
// keeping most of the data.
const TrimFraction = 0.2

// MinIntervalProcesses is the fewest process summaries a cell needs for
// an interval; with fewer the cell's figure is printed but not judged.
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

// HeterogeneityAlpha is the Kruskal–Wallis level below which a cell's
// processes are taken to differ, and HeterogeneitySpread the effect they
// must also show (the interquartile range of the process summaries over
// their median): with 1000 spawns a process, a test alone would flag
// differences of a percent that matter to nobody.
const (
	HeterogeneityAlpha  = 0.001
	HeterogeneitySpread = 0.10
)

// ProcessSummary is one process's spawns in one view, reduced.
type ProcessSummary struct {
	Process int32 `json:"process"`
	// Spawns is the number of spawns in the view.
	Spawns int `json:"spawns"`
	// TypicalUS is the 20% trimmed mean of the spawn times, µs.
	TypicalUS float64 `json:"typical_us"`
	// StartedAt is when the process started; zero where unknown (then
	// the cell's interval has no drift windows).
	StartedAt time.Time `json:"-"`
}

// Estimate is a cell's figure, computed over its processes.
type Estimate struct {
	// TypicalUS is the cell's typical spawn time: the exponentiated 20%
	// trimmed mean of the log process summaries, µs.
	TypicalUS Float `json:"typical_us"`
	// LowUS and HighUS bound it at Confidence; NaN (null in JSON) when
	// the cell has fewer than MinIntervalProcesses processes.
	LowUS  Float `json:"low_us"`
	HighUS Float `json:"high_us"`
	// Processes is the number of independent processes behind the figure.
	Processes int `json:"processes"`
	// Precision is the interval's relative half-width, (High − Low) / 2 /
	// Typical; infinite when the interval is.
	Precision Float `json:"precision"`
	// Windowed is true when the cell's time windows, not its processes,
	// set the interval.
	Windowed bool `json:"windowed"`
	// Drifted is true when, moreover, the windows differ beyond chance
	// (Kruskal–Wallis over the processes grouped by window, p <
	// DriftAlpha): the cell moved during the run. A window interval can
	// be the wider by chance alone; only this says drift.
	Drifted bool `json:"drifted"`

	logs spread
}

// Bounded is true when the estimate has an interval.
func (e *Estimate) Bounded() bool {
	return e != nil && !math.IsNaN(float64(e.LowUS)) && !math.IsInf(float64(e.HighUS), 0) && !math.IsNaN(float64(e.HighUS))
}

// processStarts are the start times of a cell's measured processes, by
// process number; nil where unknown.
type processStarts map[int32]time.Time

// startsOf collects the start times of a cell's measured runs.
func startsOf(runs []results.ProcessRun) processStarts {
	starts := processStarts{}
	for _, r := range runs {
		if !r.Warmup {
			starts[r.Process] = r.StartedAt
		}
	}
	return starts
}

// summarizeProcesses reduces each process's samples (already cut to the
// view) to its ProcessSummary, in process order.
func summarizeProcesses(samples []results.SpawnSample, starts processStarts) []ProcessSummary {
	byProcess := map[int32][]float64{}
	for _, s := range samples {
		byProcess[s.Process] = append(byProcess[s.Process], float64(s.SpawnNS)/1e3)
	}
	out := make([]ProcessSummary, 0, len(byProcess))
	for p, vs := range byProcess {
		slices.Sort(vs)
		out = append(out, ProcessSummary{Process: p, Spawns: len(vs), TypicalUS: trimmedMean(vs), StartedAt: starts[p]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Process < out[j].Process })
	return out
}

// estimate computes a cell's figure and interval from its process
// summaries.
func estimate(procs []ProcessSummary) *Estimate {
	if len(procs) == 0 {
		return nil
	}
	logs := make([]float64, len(procs))
	for i, p := range procs {
		logs[i] = safeLog(p.TypicalUS)
	}
	y := yuenOf(logs)
	e := &Estimate{TypicalUS: Float(math.Exp(y.tm)), Processes: len(procs),
		LowUS: Float(math.NaN()), HighUS: Float(math.NaN()), Precision: Float(math.Inf(1))}
	if len(procs) >= MinIntervalProcesses {
		if w, ok := windowSpread(procs, logs); ok && w.half() > y.half() {
			y.d, y.df = w.d, w.df
			e.Windowed = true
			p, ok := kruskalWallis(w.groups)
			e.Drifted = ok && p < DriftAlpha
		}
		half := y.half()
		e.LowUS, e.HighUS = Float(math.Exp(y.tm-half)), Float(math.Exp(y.tm+half))
		e.Precision = (e.HighUS - e.LowUS) / 2 / e.TypicalUS
	}
	e.logs = y
	return e
}

// windowSpread is the batch-means spread of a cell's log process
// summaries: the squared standard error of the mean of its DriftWindows
// window means (each window's trimmed mean), with k − 1 degrees of
// freedom for k windows that hold a process, and those windows' logs.
// Not ok for fewer than DriftMinProcesses processes, when a start time
// is unknown, the processes all started at once, or fewer than three
// windows hold one.
func windowSpread(procs []ProcessSummary, logs []float64) (windowed, bool) {
	if len(procs) < DriftMinProcesses {
		return windowed{}, false
	}
	first, last := procs[0].StartedAt, procs[0].StartedAt
	for _, p := range procs {
		if p.StartedAt.IsZero() {
			return windowed{}, false
		}
		if p.StartedAt.Before(first) {
			first = p.StartedAt
		}
		if p.StartedAt.After(last) {
			last = p.StartedAt
		}
	}
	span := last.Sub(first)
	if span <= 0 {
		return windowed{}, false
	}
	windows := make([][]float64, DriftWindows)
	for i, p := range procs {
		w := min(int(float64(p.StartedAt.Sub(first))/float64(span)*DriftWindows), DriftWindows-1)
		windows[w] = append(windows[w], logs[i])
	}
	var out windowed
	var means []float64
	for _, w := range windows {
		if len(w) > 0 {
			slices.Sort(w)
			means = append(means, trimmedMean(w))
			out.groups = append(out.groups, w)
		}
	}
	k := len(means)
	if k < 3 {
		return windowed{}, false
	}
	out.d, out.df = stats.Variance(means)/float64(k), float64(k-1)
	return out, true
}

// windowed is a batch-means spread and the groups behind it.
type windowed struct {
	spread
	groups [][]float64
}

// ratioEstimate is a / b with its Yuen–Welch interval at Confidence;
// unbounded when either side has too few processes.
func ratioEstimate(a, b *Estimate) (ratio, low, high float64) {
	ratio = math.Exp(a.logs.tm - b.logs.tm)
	if a.Processes < MinIntervalProcesses || b.Processes < MinIntervalProcesses {
		return ratio, 0, math.Inf(1)
	}
	diff, se, df := welch(a.logs, b.logs)
	if se == 0 {
		return ratio, ratio, ratio
	}
	half := tQuantile(df) * se
	return ratio, math.Exp(diff - half), math.Exp(diff + half)
}

// yuenTest is the two-sided Yuen–Welch test of equal trimmed means of
// the log process summaries: the p-value compare reports. NaN when either
// side has too few processes.
func yuenTest(a, b *Estimate) float64 {
	if a.Processes < MinIntervalProcesses || b.Processes < MinIntervalProcesses {
		return math.NaN()
	}
	diff, se, df := welch(a.logs, b.logs)
	if se == 0 {
		if diff == 0 {
			return 1
		}
		return 0
	}
	t := math.Abs(diff) / se
	return 2 * (1 - stats.TDist{V: df}.CDF(t))
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

// trimmedMean is the TrimFraction trimmed mean of sorted values.
func trimmedMean(sorted []float64) float64 {
	return trimmedMeanG(sorted, int(math.Floor(TrimFraction*float64(len(sorted)))))
}

func trimmedMeanG(sorted []float64, g int) float64 {
	kept := sorted[g : len(sorted)-g]
	if len(kept) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, v := range kept {
		sum += v
	}
	return sum / float64(len(kept))
}

// tQuantile is Student's t quantile for a two-sided interval at
// Confidence.
func tQuantile(df float64) float64 {
	if df < 1 {
		df = 1
	}
	return stats.InvCDF(stats.TDist{V: df})(1 - (1-Confidence)/2)
}

// safeLog is the log of a spawn time in µs; a time that is not positive
// (a clock coarser than the spawn) counts as one nanosecond.
func safeLog(us float64) float64 {
	return math.Log(max(us, 1e-3))
}

// kruskalWallis is the p-value of the Kruskal–Wallis test that the groups
// come from one distribution (with the tie correction), and false when it
// cannot be computed (fewer than two groups, or every value tied).
func kruskalWallis(groups [][]float64) (float64, bool) {
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

// CellPrecision is what adaptive stopping asks of a cell: the relative
// half-width of its all-spawns figure's interval (+Inf while it has too
// few processes) and the number of processes behind it, from the
// samples of its measured, ok processes (warm-ups excluded) and its runs
// (for their start times).
func CellPrecision(samples []results.SpawnSample, runs []results.ProcessRun) (precision float64, processes int) {
	e := CellEstimate(samples, runs)
	if e == nil {
		return math.Inf(1), 0
	}
	return float64(e.Precision), e.Processes
}

// CellEstimate is the all-spawns figure of a cell over its processes,
// from the samples of its measured, ok processes (warm-ups excluded) and
// its runs (for their start times); nil for none.
func CellEstimate(samples []results.SpawnSample, runs []results.ProcessRun) *Estimate {
	return estimate(summarizeProcesses(samples, startsOf(runs)))
}

// Text is the figure with its interval and the processes behind it, as
// the reports print it.
func (e *Estimate) Text() string { return estimateText(e) }

// TypicalSpawnNS is one process's typical spawn, as reports reduce it:
// the 20% trimmed mean of its spawn times in ns (NaN for none). The runner
// records it in runs.parquet, so a notebook has the process summaries
// without recomputing them.
func TypicalSpawnNS(spawnNS []int64) float64 {
	v := make([]float64, len(spawnNS))
	for i, s := range spawnNS {
		v[i] = float64(s)
	}
	slices.Sort(v)
	return trimmedMean(v)
}
