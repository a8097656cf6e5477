package render

import (
	"fmt"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"
)

// precisionText is a cell's precision as a number, with the processes
// behind it and about how many the target would take: "±14.2% (10
// processes; about 21 for ±10%)".
func precisionText(e *report.Estimate, n report.Judgement) string {
	if !e.Bounded() {
		return "—"
	}
	s := fmt.Sprintf("±%.1f%% (%s", 100*float64(e.Precision), textfmt.Plural(e.Processes, "process", "processes"))
	if e.Occasions > 0 {
		s += fmt.Sprintf(" on %d occasions, the interval over occasions", e.Occasions)
	}
	switch {
	case n.Target == 0 || float64(e.Precision) <= float64(n.Target):
	case n.Needed > 0:
		s += fmt.Sprintf("; about %d for ±%.0f%%", n.Needed, 100*float64(n.Target))
	case e.Windowed:
		s += "; it drifted, so more processes will not narrow it"
	}
	return s + ")"
}

// flagText is a cell's flags in brackets, for appending to a table cell;
// a cell too small to judge says so with its process count.
func flagText(n report.Judgement, processes int) string {
	var f []string
	if n.Busy {
		f = append(f, "busy")
	}
	switch n.Verdict {
	case report.Unstable:
		f = append(f, report.Unstable)
	case report.NotJudged:
		f = append(f, fmt.Sprintf("not judged: %s", textfmt.Plural(processes, "process", "processes")))
	}
	if len(f) == 0 {
		return ""
	}
	return " [" + strings.Join(f, ", ") + "]"
}

// flags are the cell's verdicts in brackets, for appending to a figure
// or to a ratio of which the cell is the numerator: a ratio is flagged
// by its own environment's cell, never by its baseline's (the report
// names the baseline's evidence once, above the ratios).
func flags(c *report.Cell) string {
	if c.Stats == nil {
		return "" // a status or n/a: no figure to judge
	}
	return flagText(c.Judgement, c.Stats.Processes)
}

// reasonText says, in a few words, why a cell is unstable or not judged,
// from its judgement's evidence; "" for a stable cell.
func reasonText(n report.Judgement) string {
	switch n.Verdict {
	case report.NotJudged:
		return fmt.Sprintf("%s; a verdict needs %d", textfmt.Plural(n.Processes, "process", "processes"), report.MinIntervalProcesses)
	case report.Unstable:
		var why []string
		if n.Drifted {
			why = append(why, fmt.Sprintf("drifted: its later half of processes differs from its earlier half (p = %.2g)", float64(n.DriftP)))
		}
		if len(n.Clusters) == 2 {
			lo, hi := n.Clusters[0], n.Clusters[1]
			why = append(why, fmt.Sprintf("two clusters of processes, %.0f%% at %s and %.0f%% at %s",
				100*float64(lo.Share), textfmt.TimeUS(float64(lo.TypicalUS)), 100*float64(hi.Share), textfmt.TimeUS(float64(hi.TypicalUS))))
		}
		return strings.Join(why, "; ")
	}
	return ""
}

// verdictFlags spells a cell's verdicts for a table: "busy", "unstable",
// "not judged", or a pair of them; "" for a stable cell on a quiet
// machine.
func verdictFlags(n report.Judgement) string {
	var f []string
	if n.Busy {
		f = append(f, "busy")
	}
	if n.Verdict == report.Unstable || n.Verdict == report.NotJudged {
		f = append(f, n.Verdict)
	}
	return strings.Join(f, ", ")
}

// busyEvidence is what makes a cell busy, with its numbers
// (textfmt.BusyEvidence); "" for a cell that is not.
func busyEvidence(n report.Judgement) string { return textfmt.BusyEvidence(n.Load()) }
