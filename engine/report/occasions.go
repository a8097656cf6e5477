package report

import (
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
	c := stats.VarianceComponents(StatsProcesses(procs))
	occasion, process, spawn := c.SDs()
	return &VarianceComponents{OccasionSD: Float(occasion), ProcessSD: Float(process), SpawnSD: Float(spawn),
		Occasions: c.Occasions, Dominant: c.Dominant}
}
