package render

import (
	"fmt"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"
)

// writePlacementRatios renders the ratios that have a figure within each
// placement.
func writePlacementRatios(r *report.Report, b *strings.Builder) {
	var rows [][]string
	for _, q := range r.Ratios {
		if !q.MixesPlacements {
			continue
		}
		row := []string{q.Environment, q.Mode, columnLabel(q.Column), textfmt.Ratio(float64(q.Ratio)) + "× " + ratioInterval(&q)}
		for _, p := range q.Placements {
			row = append(row, fmt.Sprintf("%s× %s (%.0f%% : %.0f%% of spawns)", textfmt.Ratio(float64(p.Ratio)), plainInterval(p.Low, p.High),
				100*float64(p.Share), 100*float64(p.BaselineShare)))
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "### Ratios to %s within one placement\n\n", r.Baseline)
	mdTable(b, []string{"Environment", "Mode", "n", "Pooled", "Child on the parent's CPU", "Child on another CPU"}, "lll", rows)
	fmt.Fprintf(b, "The cells whose children start on the parent's CPU in shares more than %.0f points apart from %s's: there the pooled ratio is partly the scheduler's choice, "+
		"and the ratio within each placement sets the runtimes' costs apart from it (both environments record where each child first ran). "+
		"Shares: this environment's : %s's. Every ratio's placements are in the JSON format.\n\n", 100*report.MixShareGap, r.Baseline, r.Baseline)
}
