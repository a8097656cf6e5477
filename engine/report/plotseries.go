package report

import (
	"maps"
	"math"
	"slices"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// The plots draw what was measured (Report.Groups); what they draw over
// the samples, a line of the typical spawn by spawn number, is computed
// here with the rest of the model.

// minProcessesForMedian is how many processes a spawn-order line needs
// before the median over processes at each spawn number is smooth enough
// to need only a narrow rolling window.
const minProcessesForMedian = 3

// SpawnOrder is a cell's typical spawn time by spawn number, the line of
// its spawn-order plot, on the plot's log scale.
type SpawnOrder struct {
	// Threads are the spawn numbers that have a positive spawn time,
	// ascending; SmoothLog10US[i] is, at Threads[i], the rolling median
	// over neighbouring spawn numbers (rollingHalfWidth) of the median
	// over processes of log10 of the spawn time in µs.
	Threads       []int32
	SmoothLog10US []float64
}

// SpawnOrder is the group's spawn-order line; empty when no spawn has a
// positive time.
func (g *Group) SpawnOrder() SpawnOrder {
	byThread := map[int32][]float64{}
	for _, s := range g.Samples {
		if s.SpawnNS > 0 {
			byThread[s.Thread] = append(byThread[s.Thread], math.Log10(float64(s.SpawnNS)/1e3))
		}
	}
	threads := slices.Sorted(maps.Keys(byThread))
	medians := make([]float64, len(threads))
	for i, t := range threads {
		medians[i] = stats.Median(byThread[t])
	}
	return SpawnOrder{Threads: threads, SmoothLog10US: stats.RollingMedian(medians, rollingHalfWidth(len(threads), g.OKProcesses()))}
}

// OKProcesses counts the group's processes that ended ok: the processes
// whose samples a plot shows, counted from runs (a short process prints
// fewer than n spawns, so samples ÷ n would undercount).
func (g *Group) OKProcesses() int {
	k := 0
	for _, run := range g.Runs {
		if run.Status == results.StatusOK {
			k++
		}
	}
	return k
}

// rollingHalfWidth is how many neighbours on each side a rolling median
// over m spawn numbers takes: about 1% of them when the median over
// processes has already smoothed each point, 2% (and at least 2) when
// fewer than minProcessesForMedian processes leave each point one or two
// raw spawns. The slow first spawns stay visible: a window shrinks at the
// left edge, and the x axis is logarithmic.
func rollingHalfWidth(m, processes int) int {
	if processes < minProcessesForMedian {
		return min(max(2, m/50), m/2)
	}
	return m / 200
}
