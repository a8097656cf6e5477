package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Write renders c in format (md, csv or json).
func (c *Comparison) Write(w io.Writer, format string) error {
	switch format {
	case FormatMarkdown:
		return c.writeMarkdown(w)
	case FormatCSV:
		return c.writeCSV(w)
	case FormatJSON:
		return writeJSON(w, c)
	}
	return CheckCompareFormat(format)
}

func formatP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

func formatChange(ch *Change) string {
	return fmt.Sprintf("%+.1f%%", float64(ch.ChangePct))
}

func (c *Comparison) writeMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# spawnbench compare\n\n")
	writeSources(&b, "old", []Source{c.Old})
	writeSources(&b, "new", []Source{c.New})
	writeIncomplete(&b, c.Incomplete)
	if c.DifferentMachines {
		fmt.Fprintf(&b, "> [!WARNING]\n> **DIFFERENT MACHINES:** old was measured on %s, new on %s. A change may be the machine's, not the code's; cells are matched machine by machine where the sets share machines.\n\n",
			strings.Join(c.OldMachines, ", "), strings.Join(c.NewMachines, ", "))
	}
	if c.BusyDiffers {
		fmt.Fprintf(&b, "> [!WARNING]\n> **BUSY LEVELS DIFFER:** %d of %d cells busy in old, %d of %d in new. Changes may be the machine's load, not the code; re-measure both on an idle machine.\n\n",
			c.OldBusy.Busy, c.OldBusy.Judged, c.NewBusy.Busy, c.NewBusy.Judged)
	}
	for _, env := range c.Untrusted {
		fmt.Fprintf(&b, "> [!WARNING]\n> **CLOCK NOT TRUSTED: %s** in at least one set. Its rows are marked %s; do not draw conclusions from them.\n\n",
			env, untrustedMark)
	}
	if len(c.Differences) == 0 {
		b.WriteString("Same spec, spawnbench, toolchains and machine.\n\n")
	} else {
		b.WriteString("## Provenance differences\n\nThese differ between the sets and may explain any change:\n\n")
		var rows [][]string
		for _, d := range c.Differences {
			rows = append(rows, []string{d.Key, orDash(d.Old), orDash(d.New)})
		}
		mdTable(&b, []string{"", "old", "new"}, "lll", rows)
	}
	b.WriteString("## Median spawn time (µs)\n\n")
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
		}
		env := ch.Environment
		if len(c.OldMachines) > 1 || len(c.NewMachines) > 1 {
			env += " on " + ch.Machine
		}
		rows = append(rows, []string{env + mark, ch.Mode, strconv.Itoa(int(ch.N)), viewLabel(ch.Last),
			formatUS(float64(ch.Old.MedianUS)) + " " + formatInterval(float64(ch.Old.CILowUS), float64(ch.Old.CIHighUS), formatUS),
			formatUS(float64(ch.New.MedianUS)) + " " + formatInterval(float64(ch.New.CILowUS), float64(ch.New.CIHighUS), formatUS),
			formatChange(ch), formatP(float64(ch.P)) + fmt.Sprintf(" n=%d+%d", ch.OldSamples, ch.NewSamples), sig,
			noiseSides(ch.OldNoise, ch.NewNoise)})
	}
	mdTable(&b, []string{"Environment", "Mode", "n", "View", "Old median [95% CI]", "New median [95% CI]", "Change", "U test", "Significant", "Noise"}, "llrlrrrlll", rows)
	fmt.Fprintf(&b, "Significant: the Mann-Whitney U test rejects \"same distribution\" at α = %.2f. A change that is not significant is noise until more samples show otherwise. "+
		"The test takes spawns as independent; spawns of one process are not quite, so with few processes (large n) p is optimistic.\n\n",
		benchmath.DefaultThresholds.CompareAlpha)
	b.WriteString(noiseLegend + "\n\n")
	if len(c.OnlyOld) > 0 {
		fmt.Fprintf(&b, "Only in old: %s.\n\n", strings.Join(c.OnlyOld, ", "))
	}
	if len(c.OnlyNew) > 0 {
		fmt.Fprintf(&b, "Only in new: %s.\n\n", strings.Join(c.OnlyNew, ", "))
	}
	writeNotes(&b, c.Warnings)
	_, err := io.WriteString(w, b.String())
	return err
}

func (c *Comparison) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"environment", "mode", "n", "view_last", "old_median_us", "old_ci_low_us", "old_ci_high_us",
		"new_median_us", "new_ci_low_us", "new_ci_high_us", "change_pct", "p", "old_samples", "new_samples", "significant", "untrusted",
		"old_busy", "new_busy", "old_unstable", "new_unstable", "machine"}); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	for _, ch := range c.Changes {
		row := []string{ch.Environment, ch.Mode, strconv.Itoa(int(ch.N)), strconv.Itoa(ch.Last),
			csvFloat(ch.Old.MedianUS), csvFloat(ch.Old.CILowUS), csvFloat(ch.Old.CIHighUS),
			csvFloat(ch.New.MedianUS), csvFloat(ch.New.CILowUS), csvFloat(ch.New.CIHighUS),
			csvFloat(ch.ChangePct), csvFloat(ch.P), strconv.Itoa(ch.OldSamples), strconv.Itoa(ch.NewSamples),
			strconv.FormatBool(ch.Significant), strconv.FormatBool(ch.Untrusted),
			strconv.FormatBool(ch.OldNoise.Busy), strconv.FormatBool(ch.NewNoise.Busy),
			strconv.FormatBool(ch.OldNoise.Unstable), strconv.FormatBool(ch.NewNoise.Unstable), ch.Machine}
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

// noiseSides spells the two sides' flags of a compared cell.
func noiseSides(o, n Noise) string {
	if o.Flags() == "" && n.Flags() == "" {
		return ""
	}
	return "old: " + orDash(o.Flags()) + "; new: " + orDash(n.Flags())
}
