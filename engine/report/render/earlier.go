package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"
)

// writeEarlier renders the claims and the table.
func writeEarlier(r *report.Report, b *strings.Builder) {
	bl := r.BottomLine
	var rows [][]string
	var unmeasured []string
	for i, c := range bl.Claims {
		if c.Holds == report.ClaimNotMeasured {
			unmeasured = append(unmeasured, strconv.Itoa(i+1))
			continue
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), c.Claim, claimEarlierText(c), claimMeasuredText(c), claimHoldsText(c)})
	}
	if len(rows) > 0 {
		b.WriteString("### The earlier study's claims, checked\n\n")
		mdTable(b, []string{"#", "Claim", "Its own figures", "Measured here (95% interval over processes)", "Holds?"}, "lllll", rows)
		var stands []string
		for _, role := range []string{"native", "wasi-threads", "emscripten", "emscripten-pool", "manual"} {
			if env := report.StandIn(r, role); env != "" {
				stands = append(stands, fmt.Sprintf("%s (%s) by %s", role, report.Earlier.StandsFor[role].Text, env))
			}
		}
		fmt.Fprintf(b, "Source: %s. Its environments are stood for here as follows: %s. "+
			"A claim holds when every interval it is about lies inside the range it states (\"roughly x\": x/2 to 2x; \"2–3 orders of magnitude\": 100× to 1000×), "+
			"does not hold when none overlaps it, and holds partly otherwise; a figure without an interval (under 5 processes) is judged by itself.\n\n",
			report.Earlier.Source, strings.Join(stands, ", "))
		if len(unmeasured) > 0 {
			fmt.Fprintf(b, "Claims %s need environments or cells this set did not measure.\n\n", strings.Join(unmeasured, ", "))
		}
	}
	if len(bl.Earlier) == 0 {
		return
	}
	b.WriteString("### The earlier study's table beside this set's\n\n")
	header := append([]string{"Earlier environment", "Here", "Mode"}, report.EarlierColumns...)
	rows = nil
	for _, row := range bl.Earlier {
		line := []string{row.Role, row.Environment, row.Mode}
		for _, c := range row.Cells {
			then := "n/a"
			switch {
			case c.Note != "":
				then = c.Note
			case !math.IsNaN(float64(c.EarlierUS)):
				then = textfmt.TimeUS(float64(c.EarlierUS))
			}
			now := "n/a"
			if !math.IsNaN(float64(c.MeanUS)) {
				now = textfmt.TimeUS(float64(c.MeanUS))
			}
			line = append(line, then+" / "+now)
		}
		rows = append(rows, line)
	}
	mdTable(b, header, "lll", rows)
	fmt.Fprintf(b, "Each cell: the earlier study's %s / the same statistic here (every spawn of the cell's ok processes pooled, warm-ups excluded). "+
		"The pooled mean is the earlier study's statistic, kept for this comparison only; the figures to quote are the typical times with their intervals.\n\n", report.Earlier.Statistic)
}

// claimEarlierText is what the earlier study's own table says of a
// claim's ratios (or, for a series, its figures).
func claimEarlierText(c report.ClaimResult) string {
	var parts []string
	for _, s := range c.EarlierSeries {
		var seq []string
		for _, v := range s.US {
			seq = append(seq, strconv.FormatFloat(float64(v), 'g', -1, 64))
		}
		parts = append(parts, fmt.Sprintf("%s %s µs", s.Environment, strings.Join(seq, " → ")))
	}
	for _, q := range c.EarlierRatios {
		parts = append(parts, fmt.Sprintf("%s ÷ %s at %s: %s×", q.Numerator, q.Denominator, columnText(q.Column), textfmt.Ratio(float64(q.Ratio))))
	}
	if c.Kind == "pool" && len(parts) == 0 {
		return "(no pooled figures in its table)"
	}
	return strings.Join(parts, "; ")
}

// claimMeasuredText is what this set measured of a claim, with intervals.
func claimMeasuredText(c report.ClaimResult) string {
	if c.Holds == report.ClaimNotMeasured {
		return "not measured in this set"
	}
	switch c.Kind {
	case "decreasing":
		var parts []string
		for _, s := range c.Series {
			var seq []string
			for _, v := range s.US {
				seq = append(seq, textfmt.TimeUS(float64(v)))
			}
			parts = append(parts, s.Environment+" "+strings.Join(seq, " → "))
		}
		return strings.Join(parts, "; ") + fmt.Sprintf(" (typical; %d of %d steps fall, %d rise)", c.Agree, c.Checks, c.Disagree)
	case "pool":
		spawn, wall := c.Ratios[0], c.Ratios[1]
		return fmt.Sprintf("%s ÷ %s at %s: first spawn %s× %s, whole process (wall time) %s× %s",
			spawn.Numerator, spawn.Denominator, columnText(spawn.Column), textfmt.Ratio(float64(spawn.Ratio)), plainInterval(spawn.Low, spawn.High),
			textfmt.Ratio(float64(wall.Ratio)), plainInterval(wall.Low, wall.High))
	}
	var parts []string
	for _, q := range c.Ratios {
		interval := plainInterval(q.Low, q.High)
		if math.IsInf(float64(q.High), 0) {
			interval = fmt.Sprintf("(not judged: %d : %d processes)", q.Processes, q.DenominatorProcesses)
		}
		parts = append(parts, fmt.Sprintf("%s ÷ %s at %s: %s× %s", q.Numerator, q.Denominator, columnText(q.Column), textfmt.Ratio(float64(q.Ratio)), interval))
	}
	return strings.Join(parts, "; ")
}

// claimHoldsText is a claim's verdict in words, with its counts where
// it holds partly.
func claimHoldsText(c report.ClaimResult) string {
	switch {
	case c.Holds == report.ClaimUnclear:
		return "unclear: every interval straddles the claim's bound"
	case c.Holds != report.ClaimPartly || c.Kind == "pool":
		return c.Holds
	}
	agree, disagree := "inside the range", "outside it"
	if c.Kind == "decreasing" {
		agree, disagree = "steps fall", "rise"
	}
	return fmt.Sprintf("partly: %d of %d %s, %d %s, the rest unclear", c.Agree, c.Checks, agree, c.Disagree, disagree)
}
