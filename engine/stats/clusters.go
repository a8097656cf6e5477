package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// A cell's processes can fall into separate clusters: natively, whole
// processes whose children keep landing on the parent's CPU spawn twice
// as fast as processes whose children keep waking the other one. One
// figure for such a cell describes no process, so the cell is reported
// as its clusters, each with its share and figure, and judged unstable.
//
// The test looks for the best split of the sorted log process values
// into a lower and an upper group, each of at least ClusterMinShare of
// the processes (and two), and measures it by the share of the
// variance the split explains, R² = between-group / total sum of
// squares. Two clusters explain nearly all of it; one peak explains less.
// How much less depends on the peak's shape and on the number of
// processes, so the threshold is the 1 − ClusterAlpha quantile of R²
// under single-peaked, skewed shapes (clusterNulls), found by simulation
// for each number of processes and kept. The clusters' figures must also
// differ by ClusterMinRatio, the bar a regime of spawns must clear too
// (ModeMinRatio): a figure between two clusters closer than that is
// within a fifth of each, and misleads nobody.
const (
	ClusterAlpha    = 0.01
	ClusterMinShare = 0.2
	ClusterMinRatio = ModeMinRatio
	// clusterReps is the number of simulated cells per shape behind each
	// threshold.
	clusterReps = 4000
	clusterMaxK = 500
)

// ModeMinRatio is how far apart two modes must be to count as two, for
// the clusters of a cell's processes and the regimes of its spawns
// alike.
const ModeMinRatio = 1.5

// clusterNulls are the single-peaked shapes of log process values the
// threshold is calibrated on: normal, and right-skewed ones up to a
// skewness of 1.4 (skew-normal with shape 4, Gumbel, gamma with shape 2).
// R² is unchanged by location and scale, so only the shape matters.
var clusterNulls = []func(*rand.Rand) float64{
	func(r *rand.Rand) float64 { return r.NormFloat64() },
	func(r *rand.Rand) float64 {
		const delta = 4 / 4.123105625617661 // α / √(1+α²), α = 4
		return delta*math.Abs(r.NormFloat64()) + math.Sqrt(1-delta*delta)*r.NormFloat64()
	},
	func(r *rand.Rand) float64 { return -math.Log(-math.Log(1 - r.Float64())) },
	func(r *rand.Rand) float64 { return r.ExpFloat64() + r.ExpFloat64() },
}

// clustersOf finds a cell's two process clusters; nil when its processes
// form one.
func clustersOf(procs []Process, logs []float64) []Cluster {
	k := len(logs)
	if k < MinIntervalProcesses {
		return nil
	}
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return logs[order[a]] < logs[order[b]] })
	sorted := make([]float64, k)
	for i, j := range order {
		sorted[i] = logs[j]
	}
	r2, at := bestSplit(sorted)
	if r2 <= clusterThreshold(k) {
		return nil
	}
	group := func(idx []int) []Process {
		out := make([]Process, len(idx))
		for i, j := range idx {
			out[i] = procs[j]
		}
		return out
	}
	lower, upper := summarize(group(order[:at])), summarize(group(order[at:]))
	if upper.Center < ClusterMinRatio*lower.Center {
		return nil
	}
	return []Cluster{
		{Share: float64(at) / float64(k), Estimate: lower, Max: procs[order[at-1]].Value},
		{Share: float64(k-at) / float64(k), Estimate: upper, Max: procs[order[k-1]].Value},
	}
}

// Divisor is what a ratio divides by when e, over procs, is its
// baseline: e itself, or, where procs fall into two clusters, the lower
// cluster, summarized over its own processes (in), with its share of
// procs, where it holds processes enough for an interval. A cell whose processes fall into two clusters moves between
// runs with the clusters' shares (a 20% trimmed mean sits on the edge
// of the upper cluster when it holds 20–30% of the processes), while
// each cluster's own figure does not: five runs of the bottom line on
// one machine moved the ratios by up to 26% over the whole cell and 16%
// over its lower cluster. The lower, since it is the one every run has
// (the fast state the baseline reaches); the upper is said beside it.
func Divisor(procs []Process, e *Estimate) (d *Estimate, in []Process, share float64) {
	if e == nil || len(e.Clusters) != 2 {
		return e, procs, 1
	}
	lower := e.Clusters[0]
	for _, p := range procs {
		if p.Value <= lower.Max {
			in = append(in, p)
		}
	}
	if len(in) < MinIntervalProcesses || len(in) == len(procs) {
		return e, procs, 1 // too few for an interval, or procs are not e's
	}
	return Summarize(in), in, lower.Share
}

// bestSplit is the largest R² of a split of sorted values into a lower
// and an upper group of at least clusterMinSide values each, and the
// size of the lower group; 0 when no split can be made or every value is
// equal.
func bestSplit(sorted []float64) (r2 float64, at int) {
	k := len(sorted)
	m := clusterMinSide(k)
	if k < 2*m {
		return 0, 0
	}
	sum := make([]float64, k+1)
	for i, v := range sorted {
		sum[i+1] = sum[i] + v
	}
	mean := sum[k] / float64(k)
	var total float64
	for _, v := range sorted {
		total += (v - mean) * (v - mean)
	}
	if total <= 0 {
		return 0, 0
	}
	for i := m; i <= k-m; i++ {
		n1, n2 := float64(i), float64(k-i)
		d := sum[i]/n1 - (sum[k]-sum[i])/n2
		if b := n1 * n2 / float64(k) * d * d / total; b > r2 {
			r2, at = b, i
		}
	}
	return r2, at
}

// clusterMinSide is the fewest processes a cluster of a k-process cell
// may hold.
func clusterMinSide(k int) int {
	return max(2, int(math.Ceil(ClusterMinShare*float64(k))))
}

// clusterThreshold is the R² that a single-peaked cell of k processes
// passes with probability ClusterAlpha at most, over clusterNulls. It is
// read from clusterThresholdByK, which simulateClusterThreshold wrote
// once (go test ./engine/stats -run TestClusterThresholdTable -update),
// because the simulation costs up to a second per k and every report
// needs several. Past clusterMaxK processes the threshold of clusterMaxK
// is used: it falls with k, so that errs towards fewer alarms.
func clusterThreshold(k int) float64 {
	return clusterThresholdByK[min(k, clusterMaxK)]
}

// simulateClusterThreshold is the largest of the shapes' 1 − ClusterAlpha
// quantiles of R² for k processes, simulated with a fixed seed per k and
// shape, so the table and any check of it compute the same.
func simulateClusterThreshold(k int) float64 {
	t := 0.0
	for i, draw := range clusterNulls {
		t = max(t, simulatedR2Quantile(rand.New(rand.NewPCG(uint64(k), uint64(i))), draw, k, clusterReps, 1-ClusterAlpha))
	}
	return t
}

// simulatedR2Quantile is the q-quantile of bestSplit's R² over reps
// cells of k values drawn from draw.
func simulatedR2Quantile(rng *rand.Rand, draw func(*rand.Rand) float64, k, reps int, q float64) float64 {
	r2s := make([]float64, reps)
	v := make([]float64, k)
	for i := range r2s {
		for j := range v {
			v[j] = draw(rng)
		}
		slices.Sort(v)
		r2s[i], _ = bestSplit(v)
	}
	slices.Sort(r2s)
	return SortedQuantile(r2s, q)
}
