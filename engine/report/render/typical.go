package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/stats"
	"spawnbench/engine/textfmt"
)

// estimateText is a cell's figure with its interval and the processes
// behind it (textfmt.Figure).
func estimateText(e *report.Estimate) string {
	if e == nil {
		return "n/a"
	}
	return textfmt.Figure(float64(e.TypicalUS), float64(e.LowUS), float64(e.HighUS), e.Processes)
}

func formatInterval(lo, hi float64, format func(float64) string) string {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return fmt.Sprintf("not judged (fewer than %d processes)", report.MinIntervalProcesses)
	}
	return "[" + format(lo) + ", " + format(hi) + "]"
}

// writeTypical renders the typical-time table: every cell's figure with
// its interval, precision and verdict.
func writeTypical(r *report.Report, b *strings.Builder) {
	grouped := grouped(r)
	var rows [][]string
	family := ""
	fmt.Fprintf(b, "## Typical spawn time with %.0f%% confidence interval, over processes\n\n", 100*r.Confidence)
	for _, c := range r.Cells {
		if c.Stats == nil {
			continue
		}
		if grouped && c.Family != family {
			family = c.Family
			rows = append(rows, familyRow(family, 8))
		}
		mark := ""
		if c.ClockCouldMove {
			mark = untrustedMark
		}
		e := &c.Stats.Estimate
		precision := precisionText(e, c.Judgement)
		verdict := c.Judgement.Verdict
		if reason := reasonText(c.Judgement); reason != "" {
			verdict += ": " + reason
		}
		if c.Judgement.Busy {
			verdict = "busy; " + verdict
		}
		rows = append(rows, []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), viewLabel(c.Last),
			textfmt.TimeUS(float64(e.TypicalUS)) + mark,
			formatInterval(float64(e.LowUS), float64(e.HighUS), textfmt.TimeUS), precision, verdict})
	}
	if len(rows) == 0 {
		b.WriteString("No spawns were measured.\n\n")
	} else {
		mdTable(b, []string{"Environment", "Mode", "n", "View", "Typical", "95% CI", "Precision (processes)", "Verdict"}, "llrlrrrl", rows)
		fmt.Fprintf(b, "%s\n\n", estimateLegend(r.Precision))
	}

}

// estimateLegend says how the figures of the typical-time table are made,
// and what precision is (stats.PrecisionRule) against the set's target.
func estimateLegend(target float64) string {
	targetText := "The set's spec named no samples.precision, so no count is worked out."
	if target > 0 {
		targetText = fmt.Sprintf("Where a cell is wider than ±%.3g%% (samples.precision), the Precision column says about how many processes that would take.", 100*target)
	}
	return fmt.Sprintf("The process is the unit of replication: each process is reduced to its typical spawn (the %.0f%% trimmed mean of its spawns in the view), "+
		"and a cell's typical time is the %.0f%% trimmed mean of their logarithms, with Yuen's %.0f%% interval over processes. "+
		"%s %s "+
		"The pooled median and 95th percentile of every spawn, and the spawn counts, are in the CSV and JSON formats. %s: %s",
		100*stats.TrimFraction, 100*stats.TrimFraction, 100*report.Confidence, stats.PrecisionRule.Definition, targetText, untrustedMark, stats.ClockRule.Definition)
}
