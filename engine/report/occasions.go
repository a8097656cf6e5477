package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"spawnbench/engine/stats"
)

// A set measured on several occasions (run --occasions K, or runs merged
// with merge --occasions) has a level above its processes: each cell's
// figure and interval are then computed over occasions (stats), and the
// report shows how the cell's variance splits between occasions,
// processes and spawns, and which level sets its interval.

// VarianceComponents are stats.Components as standard deviations of the
// log spawn time (0.1 is about ±10%).
type VarianceComponents struct {
	OccasionSD Float `json:"occasion_sd"`
	ProcessSD  Float `json:"process_sd"`
	SpawnSD    Float `json:"spawn_sd"`
	Occasions  int   `json:"occasions"`
	// Dominant is the level that contributes most to the figure's
	// variance as measured: "occasions", "processes" or "spawns".
	Dominant string `json:"dominant"`
}

func varianceOf(procs []ProcessSummary) *VarianceComponents {
	c := stats.VarianceComponents(statsProcesses(procs))
	occasion, process, spawn := c.SDs()
	return &VarianceComponents{OccasionSD: Float(occasion), ProcessSD: Float(process), SpawnSD: Float(spawn),
		Occasions: c.Occasions, Dominant: c.Dominant}
}

// writeVariance lists, for a set with cells of several occasions, where
// each such cell's variance is.
func (r *Report) writeVariance(b *strings.Builder) {
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
func sdText(v Float) string {
	if math.IsNaN(float64(v)) {
		return "—"
	}
	return strconv.FormatFloat(float64(v), 'f', 3, 64)
}
