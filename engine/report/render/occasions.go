package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/stats"
)

// writeVariance lists, for a set with cells of several occasions, where
// each such cell's variance is.
func writeVariance(r *report.Report, b *strings.Builder) {
	var rows [][]string
	for _, c := range r.Cells {
		if c.Stats == nil || c.Stats.Variance == nil || c.Stats.Variance.Occasions < stats.MinOccasions {
			continue
		}
		v := c.Stats.Variance
		rows = append(rows, []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), strconv.Itoa(v.Occasions),
			strconv.Itoa(c.Stats.Processes), sdText(v.OccasionSD), sdText(v.ProcessSD), sdText(v.SpawnSD), v.Dominant})
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Where the variance is: occasions, processes, spawns\n\n")
	mdTable(b, []string{"Environment", "Mode", "n", "Occasions", "Processes", "Between occasions", "Between processes", "Within a process", "Sets the interval"}, "llrrrrrrl", rows)
	fmt.Fprintf(b, "Each level's standard deviation of the log spawn time, by the method of moments of a nested design (±10%% is about 0.10): between the occasions' figures, "+
		"between processes of one occasion, between spawns of one process. \"Sets the interval\" is the level whose variance, divided by its repetitions, weighs most in the figure's: "+
		"more repetitions there narrow the interval most (`spawnbench plan --precision P --from SET` designs them). "+
		"With %d or more occasions a cell's figure and interval are computed over occasions, and ratios within each occasion.\n\n", stats.MinOccasions)
}

// sdText prints a standard deviation of logs, "—" where unknown.
func sdText(v report.Float) string {
	if math.IsNaN(float64(v)) {
		return "—"
	}
	return strconv.FormatFloat(float64(v), 'f', 3, 64)
}
