package render

import (
	"fmt"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/stats"
	"spawnbench/engine/textfmt"
)

// writeClusters lists the cells whose processes fall into two clusters,
// each with its share of the processes and its own figure.
func writeClusters(r *report.Report, b *strings.Builder) {
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

// writeRegimes lists the cells whose spawns fall into two or more regimes,
// each regime with its share and its own figure.
func writeRegimes(r *report.Report, b *strings.Builder) {
	var rows [][]string
	for _, c := range r.Cells {
		for k, g := range c.Regimes {
			rows = append(rows, []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), viewLabel(c.Last),
				fmt.Sprintf("%d of %d", k+1, len(c.Regimes)), fmt.Sprintf("%.0f%%", 100*float64(g.Share)),
				textfmt.TimeUS(float64(g.FromUS)) + " – " + textfmt.TimeUS(float64(g.ToUS)), estimateText(&g.Estimate)})
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Regimes\n\n")
	mdTable(b, []string{"Environment", "Mode", "n", "View", "Regime", "Share of spawns", "Spawn times", "Typical [95% CI] (processes)"}, "llrlllll", rows)
	fmt.Fprintf(b, "A cell whose spawn times have two or more modes (a kernel density estimate of their logarithms, modes at least %.1f× apart holding %.0f%% of the spawns or more, the valley between them at most %.0f%% of the lower peak) is listed here regime by regime: "+
		"its headline figure above weighs the regimes by their shares, and moves with them, so read it with the shares. "+
		"Natively the two regimes are usually the child starting on its parent's CPU (fast) or on another one (slow).\n\n",
		stats.ModeMinRatio, 100*stats.ModeMinShare, 100*stats.ModeValley)
}
