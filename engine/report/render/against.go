package render

import (
	"fmt"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"
)

// writeAgainst is the side-by-side table: one row per (environment, mode).
func writeAgainst(r *report.Report, b *strings.Builder) {
	if len(r.Against) == 0 {
		return
	}
	fmt.Fprintf(b, "## Side by side (each environment ÷ the one it is set against, over processes)\n\n")
	header := []string{"Environment", "Against", "Mode"}
	for _, col := range r.Columns {
		header = append(header, columnLabel(col))
	}
	type rowKey struct{ env, mode string }
	byRow := map[rowKey]map[report.Column]*report.Ratio{}
	var order []rowKey
	for i := range r.Against {
		q := &r.Against[i]
		k := rowKey{q.Environment, q.Mode}
		if byRow[k] == nil {
			byRow[k] = map[report.Column]*report.Ratio{}
			order = append(order, k)
		}
		byRow[k][q.Column] = q
	}
	var rows [][]string
	for _, k := range order {
		row := []string{k.env, "", k.mode}
		for _, col := range r.Columns {
			text := "n/a"
			if q := byRow[k][col]; q != nil {
				row[1] = q.Baseline
				text = textfmt.Ratio(float64(q.Ratio)) + "× " + ratioInterval(q) + flags(r.Cell(q.Environment, q.Mode, col))
			}
			row = append(row, text)
		}
		rows = append(rows, row)
	}
	mdTable(b, header, "lll", rows)
	fmt.Fprintf(b, "Each environment declares in its spec what it is set against (`against`). Each ratio's %.0f%% interval is Yuen–Welch's over the two cells' processes. "+
		"Below 1×: faster than the other.\n\n", 100*r.Confidence)
}
