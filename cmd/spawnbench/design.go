package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"spawnbench/engine/report"
)

// writeDesign prints plan --precision P --from SET: for every cell SET
// measured, the occasions and processes per occasion that reach ±P at the
// least wall time, from SET's variance components and costs.
func writeDesign(w io.Writer, from string, precision float64, format string) error {
	if !(precision > 0 && precision < 1) {
		return usageError{fmt.Errorf("plan --precision %g: give a relative half-width between 0 and 1, e.g. 0.05 for ±5%%", precision)}
	}
	in, err := readResultDir(from)
	if err != nil {
		return err
	}
	r, err := report.Build([]report.Input{in}, report.Options{})
	if err != nil {
		return err
	}
	designs := r.Design(precision)
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(designs)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ENVIRONMENT\tMODE\tN\tOCCASIONS\tPROCESSES/OCCASION\tPRECISION\tPROCESS\tEXPECTED\t")
	var total float64
	unreached, unmeasured := 0, 0
	maxOccasions := 0
	for _, d := range designs {
		if !d.OccasionsMeasured {
			unmeasured++
		}
		if !d.Reached {
			unreached++
			fmt.Fprintf(tw, "%s\t%s\t%d\t—\t—\tnot within %d occasions\t%s\t—\t\n", d.Environment, d.Mode, d.N, report.DesignMaxOccasions, seconds(float64(d.ProcessS)))
			continue
		}
		total += float64(d.ExpectedS)
		maxOccasions = max(maxOccasions, d.Occasions)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t±%.1f%%\t%s\t%s\t\n", d.Environment, d.Mode, d.N, d.Occasions, d.Processes,
			100*float64(d.Precision), seconds(float64(d.ProcessS)), seconds(float64(d.ExpectedS)))
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d cells for ±%.3g%%: expected %s of processes and occasion overhead in all (the costs of %s), up to %d occasions.\n",
		len(designs), 100*precision, seconds(total), from, maxOccasions)
	if unreached > 0 {
		fmt.Fprintf(w, "%d cells reach ±%.3g%% within no %d occasions: their occasions alone are wider than that.\n", unreached, 100*precision, report.DesignMaxOccasions)
	}
	if unmeasured > 0 {
		fmt.Fprintf(w, "%s has one occasion for %d cells, so their between-occasion variance is unknown and the design assumes none; "+
			"measure occasions (run --occasions K, or runs merged with merge --occasions) and design again from them.\n", from, unmeasured)
	}
	fmt.Fprintln(w, "Measure a design with schedule.occasions (or run --occasions K) and each cell's processes (samples.processes, or an environment's processes) = occasions × processes per occasion;",
		"the figure and interval are then computed over occasions.")
	return nil
}

// seconds prints a duration given in seconds as Go does, rounded.
func seconds(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return "—"
	}
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	}
	return strings.TrimSpace(d.Round(time.Microsecond).String())
}
