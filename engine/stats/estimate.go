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

// A cell drifts when its process summaries move over the run: the
// processes, in the order they started, are cut into the first and the
// second half, and the Kruskal–Wallis test of the two halves (the
// Mann–Whitney test) rejects at DriftAlpha; a cell needs
// DriftBatchProcesses processes in each half. It is a test on processes,
// each one independent value, so its level holds; the spawns of one
// process never enter it. Two halves, not more batches: a step or a
// trend in the run's time puts one half below the other, and with few
// processes more batches only spread them thinner (over 20 processes, a
// tripling halfway was found in 27% of cells with five batches, 59% with
// three and all with two).
//
// Only a drifted cell's interval is widened: to the batch-means interval
// of DriftBatches batches (each batch's trimmed mean one value, Student's
// t on batches − 1 degrees of freedom), where that is the wider, and only
// for cells of DriftMinProcesses or more, since a batch of one or two
// processes is one process's own noise, untrimmed (a 10-process cell with
// one 350 µs process among 30 µs ones read ±146%). A cell that does not
// drift keeps Yuen's interval over its processes.
const (
	DriftTestBatches    = 2
	DriftBatches        = 5
	DriftBatchProcesses = 4
	DriftMinProcesses   = DriftBatches * DriftBatchProcesses
	DriftAlpha          = 0.01
)

// Process is one independent process reduced to one number.
type Process struct {
	// Value is the process's typical spawn time (Typical), in any unit;
	// estimates come out in the same unit.
	Value float64
	// Start is when the process started; zero where unknown (then the
	// cell has no drift test).
	Start time.Time
	// Occasion is the occasion the process ran on (see MinOccasions); 0
	// where unknown, which is one occasion like any other.
	Occasion int
	// Spawns and SpawnVar are the process's spawn count and the variance
	// of its log spawn times (NaN where unknown or one spawn), for the
	// variance components only.
	Spawns   int
	SpawnVar float64
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
	// Drifted is true when the cell's process summaries moved over the
	// run (see DriftAlpha), with DriftP the test's p-value (NaN when the
	// cell is too small to test).
	Drifted bool
	DriftP  float64
	// Windowed is true when the drifted cell's batch means, not its
	// processes, set the interval.
	Windowed bool
	// Clusters holds the cell's process clusters when its processes fall
	// into two separate groups (see ClusterAlpha), lower first; nil
	// otherwise.
	Clusters []Cluster
	// Occasions is the number of occasions the figure and interval are
	// computed over (MinOccasions or more), 0 when they are over
	// processes.
	Occasions int

	loc spread
	// varW is the winsorized variance of the log process values, for
	// ProcessesFor.
	varW float64
	// occasions are the per-occasion log figures behind an estimate over
	// occasions, for ratios formed within occasions.
	occasions map[int]float64
}

// Cluster is one group of a cell's processes.
type Cluster struct {
	// Share is the cluster's share of the cell's processes.
	Share float64
	// Estimate is the cluster's own figure, over its processes.
	Estimate *Estimate
	// Max is the largest process value in the cluster: the lower
	// cluster holds the processes of at most its Max, the upper the rest.
	Max float64
}

// Unstable is true when the evidence of the cell's processes says its
// figure depends on when or how it was measured: it drifted during the
// run, or its processes fall into separate clusters. A cell too small to
// judge is never unstable.
func (e *Estimate) Unstable() bool {
	return e != nil && e.Judged() && (e.Drifted || len(e.Clusters) > 0)
}

// Judged is true when the cell has processes enough for an interval and
// a verdict.
func (e *Estimate) Judged() bool { return e != nil && e.Processes >= MinIntervalProcesses }

// Bounded is true when the estimate has an interval.
func (e *Estimate) Bounded() bool {
	return e != nil && !math.IsNaN(e.Low) && !math.IsNaN(e.High) && !math.IsInf(e.High, 0)
}

// Summarize computes a cell's figure and interval from its processes,
// and judges them (Drifted, Clusters); nil for none.
func Summarize(procs []Process) *Estimate {
	e := summarize(procs)
	if e == nil || !e.Judged() {
		return e
	}
	logs := logsOf(procs)
	e.Clusters = clustersOf(procs, logs)
	if figures := occasionFigures(procs, logs); figures != nil {
		// Over occasions: what moves between occasions is in the
		// interval already, so drift within the run is no verdict.
		e.occasions, e.Occasions = figures, len(figures)
		e.loc, _ = yuenOf(values(figures))
		e.setInterval()
		return e
	}
	if b, ok := batchesOf(procs, logs, DriftTestBatches); ok {
		e.DriftP, _ = KruskalWallis(b.groups)
		e.Drifted = e.DriftP < DriftAlpha
	}
	if e.Drifted && len(procs) >= DriftMinProcesses {
		if b, ok := batchesOf(procs, logs, DriftBatches); ok && b.half() > e.loc.half() {
			e.loc.d, e.loc.df = b.d, b.df
			e.Windowed = true
			e.setInterval()
		}
	}
	return e
}

// summarize is a cell's figure and Yuen's interval over its processes,
// unjudged.
func summarize(procs []Process) *Estimate {
	if len(procs) == 0 {
		return nil
	}
	logs := logsOf(procs)
	e := &Estimate{Processes: len(procs), DriftP: math.NaN()}
	e.loc, e.varW = yuenOf(logs)
	e.setInterval()
	return e
}

// setInterval sets the figure, its interval and precision from loc.
func (e *Estimate) setInterval() {
	e.Center, e.Low, e.High, e.Precision = math.Exp(e.loc.tm), math.NaN(), math.NaN(), math.Inf(1)
	if e.Processes >= MinIntervalProcesses {
		half := e.loc.half()
		e.Low, e.High = math.Exp(e.loc.tm-half), math.Exp(e.loc.tm+half)
		e.Precision = (e.High - e.Low) / 2 / e.Center
	}
}

func logsOf(procs []Process) []float64 {
	logs := make([]float64, len(procs))
	for i, p := range procs {
		logs[i] = safeLog(p.Value)
	}
	return logs
}

// ProcessesFor is about how many processes the cell would need for a
// relative half-width of target, from its own spread (its winsorized
// variance over processes): the smallest count whose Yuen interval is
// that narrow. 0 when the cell cannot say (too few processes, or a
// drifted cell whose batches set its interval: more processes do not
// narrow a drift, nor an interval over occasions: plan --precision
// designs those); the cell's own count when it is already there.
func (e *Estimate) ProcessesFor(target float64) int {
	if !e.Judged() || e.Windowed || e.Occasions > 0 || !(target > 0) {
		return 0
	}
	if e.Precision <= target {
		return e.Processes
	}
	want := math.Asinh(target) // precision = sinh(half) on the log scale
	half := func(m int) float64 {
		g := int(math.Floor(TrimFraction * float64(m)))
		h := float64(m - 2*g)
		return tQuantile(h-1) * math.Sqrt(e.varW*float64(m-1)/(h*(h-1)))
	}
	lo, hi := e.Processes, e.Processes
	for half(hi) > want {
		if hi > 10_000_000 {
			return 0
		}
		lo, hi = hi, hi*2
	}
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if half(mid) > want {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// batchesOf cuts a cell's processes, in the order they started, into
// most equal batches, or fewer of at least DriftBatchProcesses each. Not
// ok when a start time is unknown, the processes all started at once, or
// fewer than two batches can be made.
func batchesOf(procs []Process, logs []float64, most int) (batches, bool) {
	k := min(most, len(procs)/DriftBatchProcesses)
	if k < 2 {
		return batches{}, false
	}
	order := make([]int, len(procs))
	for i := range order {
		order[i] = i
		if procs[i].Start.IsZero() {
			return batches{}, false
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return procs[order[a]].Start.Before(procs[order[b]].Start) })
	if !procs[order[len(order)-1]].Start.After(procs[order[0]].Start) {
		return batches{}, false
	}
	var out batches
	means := make([]float64, k)
	for b := range k {
		from, to := b*len(order)/k, (b+1)*len(order)/k
		g := make([]float64, 0, to-from)
		for _, i := range order[from:to] {
			g = append(g, logs[i])
		}
		slices.Sort(g)
		means[b] = trimmedMeanSorted(g)
		out.groups = append(out.groups, g)
	}
	out.d, out.df = mstats.Variance(means)/float64(k), float64(k-1)
	return out, true
}

// batches is the batch-means spread of a cell's logs and the batches
// behind it.
type batches struct {
	spread
	groups [][]float64
}

// Ratio is a / b with its Yuen–Welch interval at Confidence; unbounded
// (low 0, high +Inf) when either side has too few processes.
func Ratio(a, b *Estimate) (ratio, low, high float64) { return RatioAt(a, b, Confidence) }

// RatioAt is Ratio with its interval at confidence instead.
func RatioAt(a, b *Estimate, confidence float64) (ratio, low, high float64) {
	ratio = math.Exp(a.loc.tm - b.loc.tm)
	if a.Processes < MinIntervalProcesses || b.Processes < MinIntervalProcesses {
		return ratio, 0, math.Inf(1)
	}
	if r, lo, hi, ok := pairedRatio(a, b, confidence); ok {
		return r, lo, hi
	}
	diff, se, df := welch(a.loc, b.loc)
	if se == 0 {
		return ratio, ratio, ratio
	}
	half := tQuantileAt(df, confidence) * se
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
// h − 1 degrees of freedom for the h values left after trimming; and the
// winsorized variance itself.
func yuenOf(values []float64) (spread, float64) {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	n := len(sorted)
	g := int(math.Floor(TrimFraction * float64(n)))
	h := n - 2*g
	y := spread{tm: trimmedMeanG(sorted, g), df: float64(h - 1)}
	if h < 2 {
		y.d = math.Inf(1)
		return y, math.NaN()
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
	varW = max(varW, 0)
	y.d = varW * float64(n-1) / (float64(h) * float64(h-1))
	return y, varW
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
func tQuantile(df float64) float64 { return tQuantileAt(df, Confidence) }

func tQuantileAt(df, confidence float64) float64 {
	if df < 1 {
		df = 1
	}
	return mstats.InvCDF(mstats.TDist{V: df})(1 - (1-confidence)/2)
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
