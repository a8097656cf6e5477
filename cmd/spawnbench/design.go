package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"spawnbench/engine/report"
)

// writeDesign prints (on standard output) plan --precision P --from SET: for every cell SET
// measured, the occasions and processes per occasion that reach ±P at the
// least wall time, from SET's variance components and costs.
func (c *cli) writeDesign(from string, precision float64, format string, wide bool) error {
	if !(precision > 0 && precision < 1) {
		return usageError{fmt.Errorf("plan --precision %g: give a relative half-width between 0 and 1, e.g. 0.05 for ±5%%", precision)}
	}
	inputs, err := c.readResultDirs([]string{from})
	if err != nil {
		return err
	}
	r, err := report.Build(inputs, report.Options{NoRegimes: true})
	if err != nil {
		return err
	}
	designs := r.Design(precision)
	if format == "json" {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(designs)
	}
	// The default drops a process's wall time and shortens two cells to
	// fit; wide keeps them.
	t := table{right: map[int]bool{2: true, 3: true, 4: true, 5: true, 6: true, 7: true}}
	if wide {
		t.add("ENVIRONMENT", "MODE", "N", "OCCASIONS", "PROCESSES/OCCASION", "PRECISION", "PROCESS", "EXPECTED")
	} else {
		t.add("ENVIRONMENT", "MODE", "N", "OCCASIONS", "PER OCCASION", "PRECISION", "EXPECTED")
	}
	row := func(env, mode string, n int32, occasions, processes, precision, process, expected string) {
		if wide {
			t.add(env, mode, strconv.Itoa(int(n)), occasions, processes, precision, process, expected)
		} else {
			t.add(env, mode, strconv.Itoa(int(n)), occasions, processes, precision, expected)
		}
	}
	var total float64
	unreached, unmeasured := 0, 0
	maxOccasions := 0
	for _, d := range designs {
		if !d.OccasionsMeasured {
			unmeasured++
		}
		if !d.Reached {
			unreached++
			not := "unreached"
			if wide {
				not = fmt.Sprintf("not within %d occasions", report.DesignMaxOccasions)
			}
			row(d.Environment, d.Mode, d.N, "—", "—", not, seconds(float64(d.ProcessS)), "—")
			continue
		}
		total += float64(d.ExpectedS)
		maxOccasions = max(maxOccasions, d.Occasions)
		row(d.Environment, d.Mode, d.N, strconv.Itoa(d.Occasions), strconv.Itoa(d.Processes),
			fmt.Sprintf("±%.1f%%", 100*float64(d.Precision)), seconds(float64(d.ProcessS)), seconds(float64(d.ExpectedS)))
	}
	var b strings.Builder
	say := lineWriter(&b, wide)
	b.WriteString(t.String() + "\n")
	say("%d cells for ±%.3g%%: expected %s of processes and occasion overhead in all (the costs of %s), up to %d occasions.",
		len(designs), 100*precision, seconds(total), from, maxOccasions)
	if unreached > 0 {
		say("%d cells reach ±%.3g%% within no %d occasions: their occasions alone are wider than that.", unreached, 100*precision, report.DesignMaxOccasions)
	}
	if unmeasured > 0 {
		say("%s has one occasion for %d cells, so their between-occasion variance is unknown and the design assumes none; "+
			"measure occasions (run --occasions K, or runs merged with merge --occasions) and design again from them.", from, unmeasured)
	}
	say("Measure a design with schedule.occasions (or run --occasions K) and each cell's processes (samples.processes, or an environment's processes) = occasions × processes per occasion; " +
		"the figure and interval are then computed over occasions.")
	_, err = io.WriteString(c.stdout, b.String())
	return err
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
