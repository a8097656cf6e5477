package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"
)

// writeRatios renders the ratios to the baseline, and the ratios within
// each placement where both sides record it.
func writeReportRatios(r *report.Report, b *strings.Builder) {
	grouped := grouped(r)
	header := columnHeader(r)
	var rows [][]string
	family := ""
	fmt.Fprintf(b, "## Ratio to %s (typical ÷ typical, over processes)\n\n", r.Baseline)
	if len(r.Ratios) == 0 {
		fmt.Fprintf(b, "No ratios: no other environment shares a measured cell with %s.\n\n", r.Baseline)
	} else {
		var envs []string
		for _, q := range r.Ratios {
			if !slices.Contains(envs, q.Environment) {
				envs = append(envs, q.Environment)
			}
		}
		for _, env := range envs {
			for _, mode := range r.Modes {
				row := []string{env, mode}
				if f := r.Family(env); grouped && f != family && r.Ran(env, mode) {
					family = f
					rows = append(rows, familyRow(f, len(header)))
				}
				measured := false
				for _, col := range r.Columns {
					text := "n/a"
					if q := r.Ratio(env, mode, col); q != nil {
						measured = true
						text = textfmt.Ratio(float64(q.Ratio)) + "× " + ratioInterval(q) + flags(r.Cell(env, mode, col))
					}
					row = append(row, text)
				}
				if measured {
					rows = append(rows, row)
				}
			}
		}
		noted := false
		for _, c := range r.Cells {
			if c.Environment == r.Baseline && c.Judgement.Unstable {
				by := "it"
				if q := r.DividingBy(&c); q != nil && q.Divisor == report.DivideByLowerCluster {
					by = "its lower cluster (" + textfmt.TimeUS(float64(q.DivisorUS)) + "), whose figure does not move with the clusters' shares"
				}
				fmt.Fprintf(b, "- The baseline's cell %s is unstable (%s): every ratio of its column divides by %s.\n", cellName(c.ID()), reasonText(c.Judgement), by)
				noted = true
			}
		}
		if noted {
			b.WriteString("\n")
		}
		mdTable(b, header, "ll", rows)
		fmt.Fprintf(b, "Each ratio's %.0f%% interval is Yuen–Welch's over the two cells' processes (the difference of their log trimmed means). "+
			"[busy], [unstable] or [not judged]: the environment's own cell was so judged; the baseline's evidence is named above the table, once.\n\n",
			100*r.Confidence)
	}

	writePlacementRatios(r, b)
}

// columnHeader is "Environment", "Mode" and a heading per column.
func columnHeader(r *report.Report) []string {
	header := []string{"Environment", "Mode"}
	for _, col := range r.Columns {
		header = append(header, columnLabel(col))
	}
	return header
}

// ratioInterval is a ratio's interval, or why it has none.
func ratioInterval(q *report.Ratio) string {
	lo, hi := float64(q.Low), float64(q.High)
	if math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return fmt.Sprintf("(not judged: %d and %d processes)", q.Processes, q.BaselineProcesses)
	}
	return "[" + textfmt.Ratio(lo) + ", " + textfmt.Ratio(hi) + "]"
}
