package render

import (
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/results"
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

// failureLabel names the statuses of a cell whose processes all failed.
func failureLabel(failures map[string]int) string {
	var labels []string
	for _, st := range slices.Sorted(maps.Keys(failures)) {
		labels = append(labels, statusLabel(st))
	}
	return strings.Join(labels, "/")
}

// statusLabel spells a run status as the earlier study's tables did.
func statusLabel(status string) string {
	if status == results.StatusOOM {
		return "OOM"
	}
	return status
}

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

// mdTable writes a Markdown table. align has one letter per column: 'l'
// for text, 'r' for numbers; columns past its end are numbers.
func mdTable(b *strings.Builder, header []string, align string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i < len(align) && align[i] == 'l' {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = mdEscape(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// mdEscape keeps free text (error tails, details) inside one table cell.
func mdEscape(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// writeSources describes where each result set came from: every
// invocation that wrote into it, oldest first.
func writeSources(b *strings.Builder, label string, sources []report.Source) {
	for _, src := range sources {
		fmt.Fprintf(b, "- **%s** `%s`", label, src.Dir)
		if len(src.Incomplete) > 0 {
			b.WriteString(" (**incomplete**)")
		}
		b.WriteString("\n")
		for _, inv := range src.Provenance.Invocations {
			fmt.Fprintf(b, "  - invocation %d: `%s`, spec %s", inv.ID, invocationCommand(inv), report.OrDash(inv.SpecName))
			if h := inv.SpecHash; h != "" {
				fmt.Fprintf(b, " (sha256 %s)", h[:min(12, len(h))])
			}
			fmt.Fprintf(b, ", spawnbench %s, %s; %s to %s", report.OrDash(inv.Version), report.OrDash(inv.Machine.GoVersion),
				formatTime(&inv.StartedAt), formatTime(inv.EndedAt))
			switch {
			case inv.Interrupted:
				b.WriteString(" (**interrupted**)")
			case inv.EndedAt == nil:
				b.WriteString(" (**never ended**)")
			}
			if inv.Order != "" {
				fmt.Fprintf(b, "; order %s, seed %d", inv.Order, inv.Seed)
			}
			if inv.Shard != nil {
				fmt.Fprintf(b, "; shard %s (from %s)", inv.Shard, inv.Shard.Source)
			}
			if o := inv.Origin; o != nil {
				fmt.Fprintf(b, "; merged from `%s` (invocation %d there)", o.Dir, o.ID)
			}
			b.WriteString("\n")
			m := inv.Machine
			fmt.Fprintf(b, "    - machine `%s`: %s, %s, %d cores, kernel %s, %s; pinning %s\n",
				m.Identity(), report.OrDash(m.Hostname), report.OrDash(m.CPUModel), m.Cores, report.OrDash(m.Kernel), report.OrDash(m.Arch), textfmt.CPUs(inv.CPUs))
		}
	}
	b.WriteString("\n")
}

// writeHeader is the report's opening: each set in a line, and where the
// rest of its provenance is.
func writeHeader(b *strings.Builder, sources []report.Source) {
	for _, src := range sources {
		invs := src.Provenance.Invocations
		machines := map[string]results.Machine{}
		var from, to *time.Time
		for i := range invs {
			inv := &invs[i]
			machines[inv.Machine.Identity()] = inv.Machine
			if from == nil || inv.StartedAt.Before(*from) {
				from = &inv.StartedAt
			}
			if inv.EndedAt != nil && (to == nil || inv.EndedAt.After(*to)) {
				to = inv.EndedAt
			}
		}
		var where []string
		for _, id := range slices.Sorted(maps.Keys(machines)) {
			m := machines[id]
			where = append(where, fmt.Sprintf("%s (%s, %d cores)", report.OrDash(m.Hostname), report.OrDash(m.CPUModel), m.Cores))
		}
		spec := "—"
		if last := src.Provenance.LastMeasuring(); last != nil {
			spec = report.OrDash(last.SpecName)
		}
		fmt.Fprintf(b, "Result set `%s`: spec %s, %s in %s on %s, %s to %s.", src.Dir, spec,
			textfmt.Plural(src.Processes, "process", "processes"), textfmt.Plural(len(invs), "invocation", "invocations"), strings.Join(where, ", "), formatTime(from), formatTime(to))
		if len(src.Incomplete) > 0 {
			b.WriteString(" **Incomplete** (see below).")
		}
		b.WriteString("\n")
	}
	b.WriteString("Invocations, machines, toolchains, the clock checks and the pooled means are in the appendix.\n\n")
}

// writeProvenance renders every invocation of every set, then each
// environment's toolchain once.
func writeProvenance(b *strings.Builder, sources []report.Source) {
	b.WriteString("### Provenance\n\n")
	writeSources(b, "Result set", sources)
	byEnv := map[string][]string{}
	for _, src := range sources {
		for _, inv := range src.Provenance.Invocations {
			for env, tc := range inv.Toolchains {
				if !slices.Contains(byEnv[env], tc) {
					byEnv[env] = append(byEnv[env], tc)
				}
			}
		}
	}
	if len(byEnv) == 0 {
		return
	}
	b.WriteString("### Toolchains\n\n")
	var rows [][]string
	for _, env := range slices.Sorted(maps.Keys(byEnv)) {
		rows = append(rows, []string{env, strings.Join(byEnv[env], "; ")})
	}
	mdTable(b, []string{"Environment", "Toolchain (as each invocation recorded it)"}, "ll", rows)
}

// invocationCommand is the command line an invocation ran, with the
// program spelled "spawnbench" whatever path it was started by.
func invocationCommand(inv results.Invocation) string {
	args := inv.Args
	if len(args) > 0 && args[0] != inv.Command && args[0] != "run" && args[0] != "calibrate" {
		args = args[1:] // argv[0], the binary's path
	}
	if len(args) == 0 {
		return "spawnbench " + inv.Command
	}
	return "spawnbench " + strings.Join(args, " ")
}

func formatTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "—"
	}
	return t.UTC().Format(time.RFC3339)
}

func writeReportMarkdown(r *report.Report, w io.Writer, plots []Plot) error {
	var b strings.Builder
	if len(r.Machines) > 0 {
		if err := writeMarkdownPerMachine(r, &b, plots); err != nil {
			return err
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("# spawnbench report\n\n")
	writeHeader(&b, r.Sources)
	writeIncomplete(&b, r.Incomplete)
	writeBusyWarning(&b, r.Cells)
	writeClockWarnings(r, &b)

	if len(r.Cells) == 0 {
		b.WriteString("No spawns were measured in this result set.\n\n")
		writeAppendix(r, &b)
		_, err := io.WriteString(w, b.String())
		return err
	}
	writeBottomLine(r, &b)
	writeTypical(r, &b)
	writeReportRatios(r, &b)
	writeAgainst(r, &b)
	writeVariance(r, &b)
	writeRegimes(r, &b)
	writeClusters(r, &b)
	writeLoad(r, &b)
	writePlacement(r, &b)
	writeParallel(r, &b)
	writeReleases(r, &b, plots)
	writeToolReleases(r, &b)
	writeFailures(r, &b)
	writePlots(r, &b, plots)
	writeAppendix(r, &b)
	writeNotes(&b, r.Warnings)
	_, err := io.WriteString(w, b.String())
	return err
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
		if c.Untrusted > 0 {
			mark = untrustedMark
		}
		e := &c.Stats.Estimate
		precision := precisionText(e, c.Judgement)
		verdict := c.Judgement.Verdict
		if c.Judgement.Reason != "" && c.Judgement.Verdict != report.Stable {
			verdict += ": " + c.Judgement.Reason
		}
		if c.Judgement.Busy {
			verdict = "busy; " + verdict
		}
		rows = append(rows, []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), report.ViewLabel(c.Last),
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
				fmt.Fprintf(b, "- The baseline's cell %s is unstable (%s): every ratio of its column divides by it.\n", report.CellName(&c), c.Judgement.Reason)
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
		header = append(header, col.Label())
	}
	return header
}

// writeFailures lists the processes that did not end ok, and the
// skipped environments.
func writeFailures(r *report.Report, b *strings.Builder) {
	var rows [][]string
	if len(r.Failures) > 0 {
		b.WriteString("## Failed processes\n\n")
		const shown = 30
		for i, f := range r.Failures {
			if i == shown {
				break
			}
			rows = append(rows, []string{f.Environment, f.Mode, strconv.Itoa(int(f.N)), strconv.Itoa(int(f.Process)),
				statusLabel(f.Status), strconv.Itoa(int(f.ExitCode)), f.Signal, truncate(f.Error, 120)})
		}
		mdTable(b, []string{"Environment", "Mode", "n", "Process", "Status", "Exit", "Signal", "Error (tail)"}, "llrrlrll", rows)
		if len(r.Failures) > shown {
			fmt.Fprintf(b, "… and %d more; see runs.parquet.\n\n", len(r.Failures)-shown)
		}
	}
	if len(r.Skipped) > 0 {
		b.WriteString("## Skipped environments\n\n")
		for _, env := range slices.Sorted(maps.Keys(r.Skipped)) {
			fmt.Fprintf(b, "- **%s**: %s\n", env, mdEscape(r.Skipped[env]))
		}
		b.WriteString("\n")
	}
}

// writePlots links the plots (the release plot is shown with its table).
func writePlots(r *report.Report, b *strings.Builder, plots []Plot) {
	plots = slices.DeleteFunc(slices.Clone(plots), func(p Plot) bool { return filepath.Base(p.Path) == releasesPlotBase+".png" })
	if len(plots) > 0 {
		b.WriteString("## Plots\n\n")
		for _, p := range plots {
			fmt.Fprintf(b, "![%s](%s)\n\n", p.Title, p.Path)
		}
	}
}

// writeAppendix renders what a reader looks up rather than reads: the
// pooled means (the earlier study's statistic), the clock calibration and
// the provenance of every invocation, toolchains once.
func writeAppendix(r *report.Report, b *strings.Builder) {
	b.WriteString("## Appendix\n\n")
	if len(r.Cells) > 0 {
		writeMeans(r, b)
	}
	writeCalibration(r, b)
	writeProvenance(b, r.Sources)
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

// writeNotes renders the caveats of a report or a comparison.
func writeNotes(b *strings.Builder, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	b.WriteString("## Statistical notes\n\n")
	for _, w := range warnings {
		fmt.Fprintf(b, "- %s\n", w)
	}
	b.WriteString("\n")
}

// writeClockWarnings puts clock problems first, where nobody can miss them.
func writeClockWarnings(r *report.Report, b *strings.Builder) {
	var uncalibrated []string
	for _, v := range r.Clocks {
		if v.Trusted() {
			if !v.Calibrated() {
				uncalibrated = append(uncalibrated, v.Environment)
			}
			continue
		}
		fmt.Fprintf(b, "> [!WARNING]\n> **CLOCK NOT TRUSTED: %s.** ", v.Environment)
		var what []string
		if v.SleepPassed < v.SleepChecks {
			what = append(what, fmt.Sprintf("%d of %d sleep checks failed", v.SleepChecks-v.SleepPassed, v.SleepChecks))
		}
		if v.CoherencePassed < v.CoherenceChecks {
			what = append(what, fmt.Sprintf("%d of %d coherence checks failed", v.CoherenceChecks-v.CoherencePassed, v.CoherenceChecks))
		}
		if v.Untrusted > 0 {
			what = append(what, fmt.Sprintf("%d of %d samples have clock_trusted = false", v.Untrusted, v.Samples))
		}
		fmt.Fprintf(b, "%s. Its numbers below are marked %s; do not draw conclusions from them.\n", strings.Join(what, "; "), untrustedMark)
		for _, f := range v.Failed[:min(5, len(v.Failed))] {
			fmt.Fprintf(b, "> - %s\n", mdEscape(truncate(f, 200)))
		}
		b.WriteString("\n")
	}
	if len(uncalibrated) > 0 {
		fmt.Fprintf(b, "Not calibrated (run `spawnbench calibrate`): %s.\n\n", strings.Join(uncalibrated, ", "))
	}
}

// writeCalibration renders each environment's clock checks.
func writeCalibration(r *report.Report, b *strings.Builder) {
	var rows [][]string
	for _, v := range r.Clocks {
		if !v.Calibrated() {
			continue
		}
		verdict := "trusted"
		if !v.Trusted() {
			verdict = "**NOT TRUSTED**"
		}
		step, read := "—", "—"
		if v.ObservedStepNS > 0 {
			step = textfmt.TimeUS(float64(v.ObservedStepNS) / 1e3)
		}
		if v.ClockReadNS > 0 {
			read = textfmt.TimeUS(float64(v.ClockReadNS) / 1e3)
		}
		rows = append(rows, []string{v.Environment,
			fmt.Sprintf("%d/%d", v.SleepPassed, v.SleepChecks),
			fmt.Sprintf("%d/%d", v.CoherencePassed, v.CoherenceChecks),
			fmt.Sprintf("%d/%d", v.Untrusted, v.Samples), step, read, verdict})
	}
	if len(rows) > 0 {
		b.WriteString("### Clock calibration\n\n")
		mdTable(b, []string{"Environment", "Sleep checks passed", "Coherence checks passed", "Untrusted samples", "Clock step", "One reading", "Verdict"}, "lrrrrrl", rows)
		b.WriteString("Clock step: the smallest difference between two successive readings that differ (a coarsened clock's grain; for a fine clock, about the cost of a reading). One reading: the mean cost of one clock read, the median over the calibration processes.\n\n")
	}
}

// flagLegend explains the flags wherever they appear: each in the words
// of its rule (stats.Rules), which state the bars the rule applies.
var flagLegend = "[busy]: " + stats.BusyRule.Definition + " " +
	"[unstable]: " + stats.UnstableRule.Definition + " " +
	"[not judged: k processes]: " + stats.NotJudgedRule.Definition + " " +
	"A ratio carries its own environment's flags, never its baseline's."

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
		"The pooled median and 95th percentile of every spawn, and the spawn counts, are in the CSV and JSON formats.",
		100*stats.TrimFraction, 100*stats.TrimFraction, 100*report.Confidence, stats.PrecisionRule.Definition, targetText)
}

// grouped is true when the environments span more than one host family,
// so that tables put a heading row above each family.
func grouped(r *report.Report) bool {
	seen := map[string]bool{}
	for _, env := range r.Environments {
		seen[r.Family(env)] = true
	}
	return len(seen) > 1
}

// familyRow is a table row naming a host family in bold.
func familyRow(family string, width int) []string {
	row := make([]string, width)
	row[0] = "**" + family + "**"
	return row
}

// writeIncomplete says plainly that a set is not everything it meant to be.
func writeIncomplete(b *strings.Builder, notes []string) {
	if len(notes) == 0 {
		return
	}
	b.WriteString("> [!WARNING]\n> **INCOMPLETE RESULT SET.**\n")
	for _, n := range notes {
		fmt.Fprintf(b, "> - %s\n", mdEscape(n))
	}
	b.WriteString("\n")
}

// writeBusyWarning puts busy cells above the tables, each with its
// evidence: their numbers carry the machine's load.
func writeBusyWarning(b *strings.Builder, cells []report.Cell) {
	var busy []string
	for i := range cells {
		c := &cells[i]
		if c.Judgement.Busy && c.Last == 0 {
			busy = append(busy, fmt.Sprintf("%s (%s)", loadCellName(c), c.Judgement.BusyEvidence))
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
			effect = fmt.Sprintf("%s (%d processes)", n.LoadEffect, n.LoadTested)
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
		}
		rows = append(rows, []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), sharePercent(float64(n.OthersShare)), sharePercent(float64(n.StealShare)), effect, strings.Join(verdict, "; ")})
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Load while measured\n\n")
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

func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" and %d more", n)
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

// writeRegimes lists the cells whose spawns fall into two or more regimes,
// each regime with its share and its own figure.
func writeRegimes(r *report.Report, b *strings.Builder) {
	var rows [][]string
	for _, c := range r.Cells {
		for k, g := range c.Regimes {
			rows = append(rows, []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), report.ViewLabel(c.Last),
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

// ratioInterval is a ratio's interval, or why it has none.
func ratioInterval(q *report.Ratio) string {
	lo, hi := float64(q.Low), float64(q.High)
	if math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return fmt.Sprintf("(not judged: %d and %d processes)", q.Processes, q.BaselineProcesses)
	}
	return "[" + textfmt.Ratio(lo) + ", " + textfmt.Ratio(hi) + "]"
}

// writeParallel shows, for parallel-mode cells, the first thread's
// latency, the makespan and the start rate (parallel.go), and the
// makespan's ratio to the baseline's.
func writeParallel(r *report.Report, b *strings.Builder) {
	var rows [][]string
	for i := range r.Cells {
		c := &r.Cells[i]
		p := c.Parallel
		if p == nil {
			continue
		}
		ratio := "n/a"
		if q := p.MakespanRatio; q != nil {
			ratio = textfmt.Ratio(float64(q.Ratio)) + "× " + ratioInterval(q)
		}
		after := "—" // one thread always starts after its one create
		if c.N > 1 {
			after = fmt.Sprintf("%.0f%%", 100*float64(p.AfterLoop))
		}
		rows = append(rows, []string{c.Environment, strconv.Itoa(int(c.N)), estimateText(&p.First), estimateText(&p.Makespan),
			formatRate(float64(p.StartsPerSecond)), after, ratio})
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Parallel mode: first thread, makespan and start rate\n\n")
	mdTable(b, []string{"Environment", "n", "First thread's latency", "Makespan (first create to last child start)", "Threads started per second",
		"Started after the create loop", "Makespan ÷ " + r.Baseline}, "lrrrrrr", rows)
	b.WriteString("A parallel cell's spawn times include each thread's wait behind the threads created before it: where a host starts one worker at a time, " +
		"the k-th spawn's time is mostly that queue, so its median grows with n by construction. " +
		"These quantities do not: the first thread's latency (spawn 0, behind nothing), the makespan (first pthread_create to the last child's first clock reading, " +
		"rebuilt from the create times, a lower bound short by the create loop's own work), and n over the makespan. " +
		"\"Started after the create loop\" is the median over processes of the share of threads that started only once every create had returned: near 100% is a queue. " +
		"Each figure is over processes, as every figure here.\n\n")
}

// formatRate prints a rate per second to about three digits.
func formatRate(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return textfmt.Ratio(v) + "/s"
}

// Sections are the parts of the Markdown report that docs quote by name
// (between <!-- spawnbench ... --> markers, regenerated from a committed
// set by the docs test): the bottom line's table and notes, the earlier
// study's claims, and its table beside the set's.
var Sections = []string{"bottom-line", "claims", "earlier-table"}

// WriteSection writes one of Sections, without its heading.
func WriteSection(r *report.Report, w io.Writer, name string) error {
	var b strings.Builder
	switch name {
	case "bottom-line", "claims", "earlier-table":
		if r.BottomLine == nil {
			return &inputerr.Error{Msg: "the set has no bottom line: it holds no cell of the baseline"}
		}
		var all strings.Builder
		writeBottomLine(r, &all)
		text := all.String()
		cut := func(from, to string) string {
			i := strings.Index(text, from)
			if i < 0 {
				return ""
			}
			rest := text[i+len(from):]
			if j := strings.Index(rest, to); to != "" && j >= 0 {
				rest = rest[:j]
			}
			return strings.TrimLeft(rest, "\n")
		}
		switch name {
		case "bottom-line":
			b.WriteString(cut("## Bottom line\n", "### The earlier study's claims"))
		case "claims":
			b.WriteString(cut("### The earlier study's claims, checked\n", "### The earlier study's table"))
		case "earlier-table":
			b.WriteString(cut("### The earlier study's table beside this set's\n", ""))
		}
	default:
		return &inputerr.Error{Msg: fmt.Sprintf("unknown report section %q: use one of %s", name, strings.Join(Sections, ", "))}
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}
