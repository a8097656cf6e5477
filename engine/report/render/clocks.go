package render

import (
	"fmt"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"
)

// writeClockWarnings puts clock problems first, in proportion
// (stats.ClockRule): a failed calibration check warns about its whole
// environment; untrusted samples warn about the cells they could move,
// by name, and take one line where they could move none. Environments
// without calibration are named only in a set that calibrated others:
// the run's own per-sample checks stand without it, and a set that never
// asked for calibration is not missing it.
func writeClockWarnings(r *report.Report, b *strings.Builder) {
	var uncalibrated []string
	calibrated := false
	for _, v := range r.Clocks {
		calibrated = calibrated || v.Calibrated()
		if !v.Calibrated() {
			uncalibrated = append(uncalibrated, v.Environment)
		}
		if v.Trusted() {
			continue
		}
		untrusted := fmt.Sprintf("%d of %d samples %s clock_trusted = false", v.Untrusted, v.Samples, map[bool]string{true: "has", false: "have"}[v.Untrusted == 1])
		switch {
		case v.CalibrationFailed():
			fmt.Fprintf(b, "> [!WARNING]\n> **CLOCK NOT TRUSTED: %s.** ", v.Environment)
			var what []string
			if v.SleepPassed < v.SleepChecks {
				what = append(what, fmt.Sprintf("%d of %d sleep checks failed", v.SleepChecks-v.SleepPassed, v.SleepChecks))
			}
			if v.CoherencePassed < v.CoherenceChecks {
				what = append(what, fmt.Sprintf("%d of %d coherence checks failed", v.CoherenceChecks-v.CoherencePassed, v.CoherenceChecks))
			}
			if v.Untrusted > 0 {
				what = append(what, untrusted)
			}
			fmt.Fprintf(b, "%s. Its numbers below are marked %s; do not draw conclusions from them.\n", strings.Join(what, "; "), untrustedMark)
			for _, f := range v.Failed[:min(5, len(v.Failed))] {
				fmt.Fprintf(b, "> - %s\n", mdEscape(truncate(failedCheckText(f), 200)))
			}
			b.WriteString("\n")
		case len(v.Cells) > 0:
			var names []string
			for _, id := range v.Cells {
				names = append(names, id.Mode+" "+columnText(id.Column))
			}
			fmt.Fprintf(b, "> [!WARNING]\n> **CLOCK NOT TRUSTED in %s of %s:** %s, enough to move the figure outside its interval of %s. "+
				"Those are marked %s below; do not draw conclusions from them. Its other cells stand as measured (the clock rule is in the legend of the typical times).\n\n",
				textfmt.Plural(len(v.Cells), "cell", "cells"), v.Environment, untrusted, strings.Join(names[:min(len(names), 12)], ", ")+more(len(names)-12), untrustedMark)
		default:
			fmt.Fprintf(b, "Clock: in %s, %s, which could move no cell's figure outside its interval (the clock rule is in the legend of the typical times).\n\n", v.Environment, untrusted)
		}
	}
	if calibrated && len(uncalibrated) > 0 {
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

// failedCheckText names a failed calibration check: "sleep check,
// process 3: detail".
func failedCheckText(f report.FailedCheck) string {
	what := fmt.Sprintf("%s check, process %d", f.Check, f.Process)
	if f.Detail != "" {
		what += ": " + f.Detail
	}
	return what
}
