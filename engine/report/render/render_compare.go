package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/engine/textfmt"
)

// WriteComparisons renders comparisons of one base set against each
// later one: Markdown one after another, CSV as one table (old and new
// naming the sets), JSON as one comparison or, for several, a list.
func WriteComparisons(w io.Writer, format string, cs []*report.Comparison) error {
	switch {
	case len(cs) == 1:
		return WriteComparison(cs[0], w, format)
	case format == FormatJSON:
		return writeJSON(w, struct {
			Comparisons []*report.Comparison `json:"comparisons"`
		}{cs})
	case format == FormatCSV:
		for i, c := range cs {
			if err := writeCSVRows(c, w, i == 0); err != nil {
				return err
			}
		}
		return nil
	}
	for _, c := range cs {
		if err := WriteComparison(c, w, format); err != nil {
			return err
		}
	}
	return nil
}

// percent is a confidence level as "95%".
func percent(level float64) string {
	return strconv.FormatFloat(100*level, 'g', 4, 64) + "%"
}

// Write renders c in format (md, csv or json).
func WriteComparison(c *report.Comparison, w io.Writer, format string) error {
	switch format {
	case FormatMarkdown:
		return writeMarkdown(c, w)
	case FormatCSV:
		return writeCSV(c, w)
	case FormatJSON:
		return writeJSON(w, c)
	}
	return CheckCompareFormat(format)
}

func formatP(p float64) string {
	if math.IsNaN(p) {
		return "no test"
	}
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

func formatChange(ch *report.Change) string {
	if math.IsInf(float64(ch.ChangeHighPct), 0) {
		return fmt.Sprintf("%+.1f%%", float64(ch.ChangePct))
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", float64(ch.ChangePct), float64(ch.ChangeLowPct), float64(ch.ChangeHighPct))
}

func writeMarkdown(c *report.Comparison, w io.Writer) error {
	var b strings.Builder
	b.WriteString("# spawnbench compare\n\n")
	writeSources(&b, "old", []report.Source{c.Old})
	writeSources(&b, "new", []report.Source{c.New})
	writeIncomplete(&b, c.Incomplete)
	writeWarnings(c, &b)
	writeChanges(c, &b)
	writeRatios(c, &b)
	b.WriteString(flagLegend + "\n\n")
	if len(c.OnlyOld) > 0 {
		fmt.Fprintf(&b, "Only in old: %s.\n\n", strings.Join(cellNames(c.OnlyOld), ", "))
	}
	if len(c.OnlyNew) > 0 {
		fmt.Fprintf(&b, "Only in new: %s.\n\n", strings.Join(cellNames(c.OnlyNew), ", "))
	}
	writeNotes(&b, warningTexts(c.Warnings))
	_, err := io.WriteString(w, b.String())
	return err
}

// writeWarnings writes the comparison's warnings: different machines,
// different busy levels, untrusted clocks.
func writeWarnings(c *report.Comparison, b *strings.Builder) {
	if c.DifferentMachines {
		fmt.Fprintf(b, "> [!WARNING]\n> **DIFFERENT MACHINES:** old was measured on %s, new on %s. A change may be the machine's, not the code's; cells are matched machine by machine where the sets share machines.\n\n",
			strings.Join(c.OldMachines, ", "), strings.Join(c.NewMachines, ", "))
	}
	if c.BusyDiffers {
		fmt.Fprintf(b, "> [!WARNING]\n> **BUSY LEVELS DIFFER:** %d of %d cells busy (the machine's load moved their figures) in old, %d of %d in new; "+
			"the median cell's others' CPU and steal took %s and %s of its wall time in old, %s and %s in new. Changes may be the machine's load, not the code; re-measure both on an idle machine.\n\n",
			c.OldBusy.Busy, c.OldBusy.Judged, c.NewBusy.Busy, c.NewBusy.Judged,
			sharePercent(float64(c.OldBusy.OthersShare)), sharePercent(float64(c.OldBusy.StealShare)), sharePercent(float64(c.NewBusy.OthersShare)), sharePercent(float64(c.NewBusy.StealShare)))
	}
	for _, env := range c.Untrusted {
		fmt.Fprintf(b, "> [!WARNING]\n> **CLOCK NOT TRUSTED: %s** in at least one set. Its rows are marked %s; do not draw conclusions from them.\n\n",
			env, untrustedMark)
	}
}

// writeChanges writes the provenance differences and the table of each
// cell's change, with what the changes say together.
func writeChanges(c *report.Comparison, b *strings.Builder) {
	if len(c.Differences) == 0 {
		b.WriteString("Same spec, spawnbench, toolchains and machine.\n\n")
	} else {
		b.WriteString("## Provenance differences\n\nThese differ between the sets and may explain any change:\n\n")
		var rows [][]string
		for _, d := range c.Differences {
			rows = append(rows, []string{d.Key, provenanceValue(d.Old), provenanceValue(d.New)})
		}
		mdTable(b, []string{"", "old", "new"}, "lll", rows)
	}
	b.WriteString("## Typical spawn time, over processes\n\n")
	var rows [][]string
	for i := range c.Changes {
		ch := &c.Changes[i]
		mark := ""
		if ch.Untrusted {
			mark = untrustedMark
		}
		sig := "no"
		if ch.Significant {
			sig = "yes"
		} else if math.IsNaN(float64(ch.P)) {
			sig = "not judged"
		}
		env := ch.Environment
		if len(c.OldMachines) > 1 || len(c.NewMachines) > 1 {
			env += " on " + ch.Machine
		}
		rows = append(rows, []string{env + mark, ch.Mode, strconv.Itoa(int(ch.N)), viewLabel(ch.Last),
			estimateText(&ch.Old.Estimate), estimateText(&ch.New.Estimate),
			formatChange(ch), formatP(float64(ch.P)) + fmt.Sprintf(" (%d+%d processes)", ch.OldProcesses, ch.NewProcesses), sig,
			flagSides(ch.OldJudgement, ch.NewJudgement)})
	}
	mdTable(b, []string{"Environment", "Mode", "n", "View", "Old [95% CI]", "New [95% CI]", fmt.Sprintf("Change [%s CI]", percent(c.Confidence)), "Yuen test", "Significant", "Flags"}, "llrlrrrlll", rows)
	fmt.Fprintf(b, "Each side is its processes' typical spawn times (one number a process: the 20%% trimmed mean of its spawns), combined by a 20%% trimmed mean of their logarithms. "+
		"Significant: Yuen's test of equal trimmed means with Welch's degrees of freedom, over processes, rejects at α = %g, exactly when the change's %s interval excludes 0 (at α = 1 − confidence). "+
		"Spawns of one process are not independent, so no test here counts them as such; a side with fewer than %d processes is not judged.\n\n",
		c.Alpha, percent(c.Confidence), report.MinIntervalProcesses)
	if c.Judged > 0 {
		fmt.Fprintf(b, "**%d of %d** cells' new figures lie inside the old 95%% interval (%.0f%%). "+
			"Two measurements of one quantity by intervals that hold land inside each other's interval about 83%% of the time, not 95%%: both vary.\n\n",
			c.Inside, c.Judged, 100*float64(c.Inside)/float64(c.Judged))
	}
	if c.MachineMoved() {
		fmt.Fprintf(b, "**The machine moved**: the median cell changed by %+.1f%%, and %d of %d cells moved the same way. "+
			"When most cells move together, what changed between the sets is the state of the machine (for example its host's other tenants or its clock frequency), "+
			"which no interval computed within one set can see: repeat the run on different occasions and `merge` them for a figure of the machine.\n\n",
			float64(c.MedianChangePct), c.SameWay, len(c.Changes))
	}
}

// writeRatios writes the ratios to the baseline, old and new.
func writeRatios(c *report.Comparison, b *strings.Builder) {
	if len(c.Ratios) == 0 {
		return
	}
	fmt.Fprintf(b, "## Ratios to %s, old and new\n\n", c.Ratios[0].Baseline)
	var rows [][]string
	var outside []string
	for _, q := range c.Ratios {
		mark := ""
		if q.Judged && !q.InsideOld {
			mark = " (outside)"
			outside = append(outside, fmt.Sprintf("%s %s n=%d %s (%+.1f%%)", q.Environment, q.Mode, q.N, viewLabel(q.Last), float64(q.ChangePct)))
		}
		rows = append(rows, []string{q.Environment, q.Mode, strconv.Itoa(int(q.N)), viewLabel(q.Last),
			textfmt.Ratio(float64(q.Old.Ratio)) + "× " + ratioInterval(&q.Old), textfmt.Ratio(float64(q.New.Ratio)) + "× " + ratioInterval(&q.New) + mark,
			fmt.Sprintf("%+.1f%%", float64(q.ChangePct))})
	}
	mdTable(b, []string{"Environment", "Mode", "n", "View", "Old ratio [95% CI]", "New ratio [95% CI]", "Change"}, "llrlrrr", rows)
	fmt.Fprintf(b, "%d of %d ratios moved by at most 10%%; %d of %d new ratios lie inside the old ratio's 95%% interval", c.RatiosWithin10Pct, len(c.Ratios), c.RatiosInside, c.RatiosJudged)
	if c.RatiosOverOccasions > 0 {
		fmt.Fprintf(b, " (%d of the old ratios computed over occasions, within each occasion and then combined)", c.RatiosOverOccasions)
	}
	b.WriteString(".")
	if len(outside) > 0 {
		fmt.Fprintf(b, " Outside: %s. One interval in twenty misses by chance alone; more, or misses the same way, say the ratio itself moved between the sets (the old set's occasions did not span what changed).", strings.Join(outside, ", "))
	}
	b.WriteString("\n\n")
}

func writeCSV(c *report.Comparison, w io.Writer) error { return writeCSVRows(c, w, true) }

// writeCSVRows writes c's rows, after the header when header is true.
func writeCSVRows(c *report.Comparison, w io.Writer, header bool) error {
	cw := csv.NewWriter(w)
	if header {
		if err := cw.Write([]string{"environment", "mode", "n", "view_last", "old_typical_us", "old_low_us", "old_high_us",
			"new_typical_us", "new_low_us", "new_high_us", "change_pct", "change_low_pct", "change_high_pct", "p",
			"old_samples", "new_samples", "old_processes", "new_processes", "significant", "untrusted",
			"old_busy", "new_busy", "old_unstable", "new_unstable", "machine", "old", "new"}); err != nil {
			return fmt.Errorf("write CSV: %w", err)
		}
	}
	for _, ch := range c.Changes {
		row := []string{ch.Environment, ch.Mode, strconv.Itoa(int(ch.N)), strconv.Itoa(ch.Last),
			csvFloat(ch.Old.TypicalUS), csvFloat(ch.Old.LowUS), csvFloat(ch.Old.HighUS),
			csvFloat(ch.New.TypicalUS), csvFloat(ch.New.LowUS), csvFloat(ch.New.HighUS),
			csvFloat(ch.ChangePct), csvFloat(ch.ChangeLowPct), csvFloat(ch.ChangeHighPct), csvFloat(ch.P),
			strconv.Itoa(ch.OldSamples), strconv.Itoa(ch.NewSamples), strconv.Itoa(ch.OldProcesses), strconv.Itoa(ch.NewProcesses),
			strconv.FormatBool(ch.Significant), strconv.FormatBool(ch.Untrusted),
			strconv.FormatBool(ch.OldJudgement.Busy), strconv.FormatBool(ch.NewJudgement.Busy),
			strconv.FormatBool(ch.OldJudgement.Unstable), strconv.FormatBool(ch.NewJudgement.Unstable), ch.Machine, c.Old.Dir, c.New.Dir}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("write CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	return nil
}

// flagSides spells the two sides' flags of a compared cell.
func flagSides(o, n report.Judgement) string {
	if verdictFlags(o) == "" && verdictFlags(n) == "" {
		return ""
	}
	return "old: " + orDash(verdictFlags(o)) + "; new: " + orDash(verdictFlags(n))
}

// provenanceValue spells one side of a provenance difference; a dash
// where the set does not say.
func provenanceValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "—"
	case string:
		return orDash(v)
	case int:
		return strconv.Itoa(v)
	case []int:
		return textfmt.CPUs(v)
	case results.Views:
		return fmt.Sprintf("last %d for n >= %d", v.Last, v.MinN)
	}
	return fmt.Sprint(v)
}
