package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// A cell's spawns often fall into regimes (stats.Modes): one figure for
// such a cell says nothing of the shares, so the report gives each regime
// its share and its own figure, over the processes that have spawns in
// it.

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
	logs := make([]float64, len(samples))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, s := range samples {
		logs[i] = math.Log(max(float64(s.SpawnNS)/1e3, 1e-3))
		lo, hi = min(lo, logs[i]), max(hi, logs[i])
	}
	cuts := stats.Modes(logs)
	if cuts == nil {
		return nil
	}
	cuts = append(append([]float64{math.Inf(-1)}, cuts...), math.Inf(1))
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

// writeClusters lists the cells whose processes fall into two clusters,
// each with its share of the processes and its own figure.
func (r *Report) writeClusters(b *strings.Builder) {
	var rows [][]string
	for _, c := range r.Cells {
		if c.Stats == nil {
			continue
		}
		for k, g := range c.Stats.Clusters {
			rows = append(rows, []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), viewLabel(c.Last),
				fmt.Sprintf("%d of %d", k+1, len(c.Stats.Clusters)), fmt.Sprintf("%.0f%%", 100*float64(g.Share)), estimateText(&g.Estimate)})
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Process clusters\n\n")
	mdTable(b, []string{"Environment", "Mode", "n", "View", "Cluster", "Share of processes", "Typical [95% CI] (processes)"}, "llrllll", rows)
	fmt.Fprintf(b, "A cell whose processes, each reduced to its typical spawn, fall into two groups: the best split of their logarithms explains more of their variance "+
		"than a single skewed peak does in %.0f%% of simulated cells, and the groups are at least %.1f× apart. Its headline figure lies between the clusters and describes neither; "+
		"natively a cluster is usually the processes whose children keep starting on the parent's CPU (fast) or on another one (slow). Such cells are judged unstable.\n\n",
		100*stats.ClusterAlpha, stats.ClusterMinRatio)
}
