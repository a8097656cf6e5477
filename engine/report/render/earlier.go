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
		if c.Holds == "not measured" {
			unmeasured = append(unmeasured, strconv.Itoa(i+1))
			continue
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), c.Claim, c.Earlier, c.Measured, c.Holds})
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
