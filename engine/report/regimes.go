package report

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"

	"spawnbench/engine/results"
)

// A cell's spawns often fall into regimes: native sequential spawns take
// about 11 µs when the child runs on its parent's CPU and about 32 µs
// when it must wake the other one, and a process may switch between the
// two for hundreds of spawns. One figure for such a cell says nothing of
// the shares, so the report finds the regimes and gives each its share
// and its own figure. Regimes are the modes of a kernel density estimate
// of the log spawn times, split at the valleys between them; a mode
// counts only when it holds at least RegimeMinShare of the spawns, sits
// RegimeMinRatio or more away from its neighbour, and the valley between
// them is at most RegimeValley of the lower peak. Those bounds keep the
// ordinary right-skewed tail of one regime from reading as a second.
const (
	RegimeMinShare = 0.10
	RegimeMinRatio = 1.5
	RegimeValley   = 0.5
	// regimeMinSpawns is the fewest spawns in a view worth looking at.
	regimeMinSpawns = 50
	regimeGrid      = 256
)

// Regime is one mode of a cell's spawn times.
type Regime struct {
	// FromUS and ToUS bound the spawn times assigned to the regime (the
	// valleys either side; the extremes at the ends).
	FromUS Float `json:"from_us"`
	ToUS   Float `json:"to_us"`
	// Share is the regime's share of the view's spawns.
	Share Float `json:"share"`
	// Estimate is the regime's figure, over the processes that have
	// spawns in it.
	Estimate
}

// regimesOf finds the regimes of a view's samples; nil when there is one
// (or too few spawns to tell).
func regimesOf(samples []results.SpawnSample, starts processStarts) []Regime {
	if len(samples) < regimeMinSpawns {
		return nil
	}
	logs := make([]float64, len(samples))
	for i, s := range samples {
		logs[i] = math.Log(max(float64(s.SpawnNS)/1e3, 1e-3))
	}
	sorted := slices.Clone(logs)
	slices.Sort(sorted)
	lo, hi := sorted[0], sorted[len(sorted)-1]
	if hi-lo < math.Log(RegimeMinRatio) {
		return nil
	}
	sample := stats.Sample{Xs: sorted, Sorted: true}
	bw := stats.BandwidthSilverman(sample)
	if !(bw > 0) {
		return nil
	}
	kde := stats.KDE{Sample: sample, Kernel: stats.GaussianKernel, Bandwidth: bw}
	xs := make([]float64, regimeGrid)
	ys := make([]float64, regimeGrid)
	for i := range xs {
		xs[i] = lo + (hi-lo)*float64(i)/float64(regimeGrid-1)
		ys[i] = kde.PDF(xs[i])
	}
	// Peaks and, between consecutive peaks, the lowest point.
	var peaks []int
	for i := 1; i < regimeGrid-1; i++ {
		if ys[i] > ys[i-1] && ys[i] >= ys[i+1] {
			peaks = append(peaks, i)
		}
	}
	if len(peaks) < 2 {
		return nil
	}
	// Merge peaks until every neighbouring pair is separated as the rule
	// says: drop the lower of the closest offending pair each time.
	valley := func(a, b int) int {
		v := a
		for i := a; i <= b; i++ {
			if ys[i] < ys[v] {
				v = i
			}
		}
		return v
	}
	share := func(a, b float64) float64 { // share of logs in [a, b)
		i, _ := slices.BinarySearch(sorted, a)
		j, _ := slices.BinarySearch(sorted, b)
		return float64(j-i) / float64(len(sorted))
	}
	for {
		bad := -1
		for k := 0; k+1 < len(peaks); k++ {
			a, b := peaks[k], peaks[k+1]
			v := valley(a, b)
			if xs[b]-xs[a] < math.Log(RegimeMinRatio) || ys[v] > RegimeValley*min(ys[a], ys[b]) {
				bad = k
				break
			}
		}
		if bad < 0 {
			break
		}
		if ys[peaks[bad]] < ys[peaks[bad+1]] {
			peaks = slices.Delete(peaks, bad, bad+1)
		} else {
			peaks = slices.Delete(peaks, bad+1, bad+2)
		}
		if len(peaks) < 2 {
			return nil
		}
	}
	cuts := []float64{math.Inf(-1)}
	for k := 0; k+1 < len(peaks); k++ {
		cuts = append(cuts, xs[valley(peaks[k], peaks[k+1])])
	}
	cuts = append(cuts, math.Inf(1))
	for k := 0; k+1 < len(cuts); k++ {
		if share(cuts[k], cuts[k+1]) < RegimeMinShare {
			return nil // a mode too small to report: the cell is one regime with a bump
		}
	}
	out := make([]Regime, 0, len(cuts)-1)
	for k := 0; k+1 < len(cuts); k++ {
		var in []results.SpawnSample
		for i, s := range samples {
			if logs[i] >= cuts[k] && logs[i] < cuts[k+1] {
				in = append(in, s)
			}
		}
		from, to := math.Max(cuts[k], lo), math.Min(cuts[k+1], hi)
		out = append(out, Regime{
			FromUS: Float(math.Exp(from)), ToUS: Float(math.Exp(to)),
			Share:    Float(float64(len(in)) / float64(len(samples))),
			Estimate: *estimate(summarizeProcesses(in, starts)),
		})
	}
	return out
}
