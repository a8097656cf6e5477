package render

import (
	"fmt"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/stats"
	"spawnbench/engine/textfmt"
)

// writeBusyWarning puts busy cells above the tables, each with its
// evidence: their numbers carry the machine's load.
func writeBusyWarning(b *strings.Builder, cells []report.Cell) {
	var busy []string
	for i := range cells {
		c := &cells[i]
		if c.Judgement.Busy && c.Last == 0 {
			busy = append(busy, fmt.Sprintf("%s (%s)", loadCellName(c), busyEvidence(c.Judgement)))
		}
	}
	if len(busy) == 0 {
		return
	}
	fmt.Fprintf(b, "> [!WARNING]\n> **BUSY MACHINE: %s** whose processes say the machine's load moved their figures: %s. Marked [busy] below; re-measure them on an idle machine. Every cell's load is in the load table.\n\n",
		textfmt.Plural(len(busy), "cell", "cells"), strings.Join(busy[:min(len(busy), 12)], "; ")+more(len(busy)-12))
}

// loadCellName names a cell without its view: its load is the same in
// every view.
func loadCellName(c *report.Cell) string {
	return fmt.Sprintf("%s %s n=%d", c.Environment, c.Mode, c.N)
}

// writeLoad renders each cell's load as numbers, with the test of
// whether it moved the figure: the evidence behind [busy], and the load
// of the cells it does not flag.
func writeLoad(r *report.Report, b *strings.Builder) {
	grouped := grouped(r)
	var rows [][]string
	family := ""
	cells, busy := 0, 0
	var others, steal float64 // the most of any cell
	for i := range r.Cells {
		c := &r.Cells[i]
		n := c.Judgement
		if c.Last != 0 || !n.BusyKnown {
			continue
		}
		if grouped && c.Family != family {
			family = c.Family
			rows = append(rows, familyRow(family, 7))
		}
		effect := fmt.Sprintf("— (a test needs %d processes with a figure)", stats.BusyMinProcesses)
		if n.LoadTested > 0 {
			effect = fmt.Sprintf("%s (%d processes)", textfmt.LoadEffect(n.Load()), n.LoadTested)
		}
		var verdict []string
		if n.BusyThroughout {
			verdict = append(verdict, "busy throughout")
		}
		if n.BusyRises {
			verdict = append(verdict, "figure rises with load")
		}
		if len(verdict) == 0 {
			verdict = []string{"no"}
		} else {
			busy++
		}
		cells++
		others, steal = max(others, float64(n.OthersShare)), max(steal, float64(n.StealShare))
		rows = append(rows, []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), sharePercent(float64(n.OthersShare)), sharePercent(float64(n.StealShare)), effect, strings.Join(verdict, "; ")})
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Load while measured\n\n")
	if busy == 0 {
		// A table of "no" says nothing its numbers' files do not.
		fmt.Fprintf(b, "No cell busy: the processes of no cell (of %d) say the machine's load moved its figure (the [busy] rule is in the legend of the means); "+
			"others' CPU took at most %s and steal at most %s of a cell's wall time. Each cell's load and its test are in cells.parquet, the CSV and the JSON "+
			"(others_share, steal_share, load_rho, load_p, load_ratio).\n\n", cells, sharePercent(others), sharePercent(steal))
		return
	}
	mdTable(b, []string{"Environment", "Mode", "n", "Others' CPU", "Steal", "Figure against load", "Busy"}, "llrrrll", rows)
	fmt.Fprintf(b, "Others' CPU is the CPU time the rest of the machine used (others_cpu_ns less spawnbench's own work, own_work_ns) and steal the hypervisor's (steal_ns), "+
		"each summed over the cell's measured processes over their summed wall time (100%% is one CPU's worth; /proc/stat counts in 10 ms ticks, so a short process reads no tick or a whole one and only the sum means much). "+
		"The test asks whether the processes that saw more load are the slower ones: ρ correlates each process's load share (others' CPU plus steal over its wall time) with the rank of its figure, "+
		"p is one-sided, and the ratio is the median figure of the most-loaded half of the processes (by load share) over the least-loaded half's, "+
		"which alone is no evidence: a process shorter than a few ticks reads a coarse share, and the halves differ in whatever else differs between processes. "+
		"A cell is busy where p < %g and the ratio is at least %.2g×, or where others' work took %.0f%% of the wall time or more, pooled and clearly so over its processes; "+
		"a steady load that moved no figure, such as a hypervisor's steal, is a number here and no flag.\n\n",
		stats.BusyAlpha, stats.BusyMinRatio, 100*stats.SaturatedShare)
}

// sharePercent is a share of wall time in percent, to two significant
// digits below 10%.
func sharePercent(v float64) string {
	if v < 0.1 {
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	return fmt.Sprintf("%.0f%%", 100*v)
}
