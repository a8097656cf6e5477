package render

import (
	"fmt"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/stats"
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
			rows = append(rows, []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), report.ViewLabel(c.Last),
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
