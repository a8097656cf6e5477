package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/stats"
	"spawnbench/engine/textfmt"
)

// ClassicText is a cell as the classic table shows it: the mean in µs,
// "n/a" when nothing was measured, the failure status when every process
// failed, and the count of failed processes beside a mean of the rest.
func ClassicText(c *report.Cell) string {
	if c.Skipped != "" {
		return "skipped"
	}
	if c.Stats == nil {
		if len(c.Failures) > 0 {
			return failureLabel(c.Failures)
		}
		return "n/a"
	}
	s := textfmt.TimeUS(float64(c.Stats.MeanUS))
	if c.Untrusted > 0 {
		s += untrustedMark
	}
	if len(c.Failures) > 0 {
		var parts []string
		for _, st := range slices.Sorted(maps.Keys(c.Failures)) {
			parts = append(parts, fmt.Sprintf("%d %s", c.Failures[st], statusLabel(st)))
		}
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// writeMeans renders the pooled means: the earlier study's statistic.
func writeMeans(r *report.Report, b *strings.Builder) {
	grouped := grouped(r)
	b.WriteString("### Mean spawn time (the earlier study's statistic)\n\n")
	header := columnHeader(r)
	var rows [][]string
	family := ""
	for _, env := range r.Environments {
		for _, mode := range r.Modes {
			if !r.Ran(env, mode) {
				continue
			}
			if f := r.Family(env); grouped && f != family {
				family = f
				rows = append(rows, familyRow(f, len(header)))
			}
			row := []string{env, mode}
			for _, col := range r.Columns {
				c := r.Cell(env, mode, col)
				row = append(row, ClassicText(c)+flags(c))
			}
			rows = append(rows, row)
		}
	}
	mdTable(b, header, "ll", rows)
	fmt.Fprintf(b, "Warm-up spawns are excluded. \"(last %d)\" columns keep only the last %d spawns of each process, for n ≥ %d. "+
		"n/a: nothing measured. A status such as OOM or timeout: every process of the cell ended so. "+
		"\"(2 timeout)\" beside a number: that many processes failed and the mean is of the rest. "+
		"%s: includes samples whose clock failed its check. "+
		"Each is the mean of every spawn of the cell, the earlier study's statistic, for comparison with it; the figures to quote, with their intervals over processes, are the typical times above. "+
		"Means, medians and counts use samples of ok processes only; failed processes' samples stay in samples.parquet. %s\n\n",
		r.ViewLast, r.ViewLast, r.ViewMinN, untrustedMark, flagLegend)

}

// flagLegend explains the flags wherever they appear: each in the words
// of its rule (stats.Rules), which state the bars the rule applies.
var flagLegend = "[busy]: " + stats.BusyRule.Definition + " " +
	"[unstable]: " + stats.UnstableRule.Definition + " " +
	"[not judged: k processes]: " + stats.NotJudgedRule.Definition + " " +
	"A ratio carries its own environment's flags, never its baseline's."
