package report

import (
	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// A cell's spawns often fall into regimes (stats.Modes): one figure for
// such a cell says nothing of the shares, so the report gives each regime
// its share and its own figure, over the processes that have spawns in
// it.

// Regime is one mode of a cell's spawn times.
type Regime struct {
	// FromUS and ToUS bound the spawn times assigned to the regime (the
	// valleys either side; the extremes at the ends).
	FromUS Float `json:"from_us"`
	ToUS   Float `json:"to_us"`
	// Share is the regime's share of the view's spawns.
	Share Float `json:"share"`
	// Estimate is the regime's figure, over the processes that have
	// spawns in it.
	Estimate
}

// regimesOf finds the regimes of a view's spawns (values: their times in
// µs, the processes' spawns one after another); nil when there is one (or
// too few spawns to tell).
func regimesOf(procs []process, values []float64) []Regime {
	regimes := stats.Regimes(values)
	if regimes == nil {
		return nil
	}
	// in[i] is the regime of the i-th spawn of the view.
	in := make([]int, len(values))
	for k, g := range regimes {
		for _, i := range g.Members {
			in[i] = k
		}
	}
	out := make([]Regime, 0, len(regimes))
	for k, g := range regimes {
		members := where(procs, func(i int, _ results.SpawnSample) bool { return in[i] == k })
		out = append(out, Regime{
			FromUS: Float(g.From), ToUS: Float(g.To),
			Share:    Float(float64(len(g.Members)) / float64(len(values))),
			Estimate: *estimate(viewSummaries(members)),
		})
	}
	return out
}
