package report

import (
	"fmt"
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

// regimesOf finds the regimes of a view's spawns (values: their times in
// µs, the processes' spawns one after another); nil when there is one (or
// too few spawns to tell).
func regimesOf(procs []process, values []float64) []Regime {
	regimes := stats.Regimes(values)
	if regimes == nil {
		return nil
	}
	// in[i] is the regime of the i-th spawn of the view.
	in := make([]int, len(values))
	for k, g := range regimes {
		for _, i := range g.Members {
			in[i] = k
		}
	}
	out := make([]Regime, 0, len(regimes))
	for k, g := range regimes {
		members := where(procs, func(i int, _ results.SpawnSample) bool { return in[i] == k })
		out = append(out, Regime{
			FromUS: Float(g.From), ToUS: Float(g.To),
			Share:    Float(float64(len(g.Members)) / float64(len(values))),
			Estimate: *estimate(viewSummaries(members)),
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
