package report_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// TestDesignFromASetOfOccasions: a cell measured on four occasions, with
// occasion-to-occasion moves, gets a design that reaches the target at
// the cost the closed form gives from its own components and costs.
func TestDesignFromASetOfOccasions(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 42))
	const occasions, perOccasion = 4, 10
	shift := make([]float64, occasions)
	for i := range shift {
		shift[i] = 0.1 * rng.NormFloat64()
	}
	level := make([]float64, occasions*perOccasion)
	for p := range level {
		level[p] = 50e3 * math.Exp(shift[p/perOccasion]+0.2*rng.NormFloat64())
	}
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 10, Processes: occasions * perOccasion, WallNS: 4e6,
		SpawnNS: func(p, t int) int64 { return int64(level[p] * (1 + 0.02*float64(t%5))) }})
	for i := range s.Runs {
		if !s.Runs[i].Warmup {
			s.Runs[i].Occasion = s.Runs[i].Process/perOccasion + 1
		}
	}
	r := reporttest.Build(t, s)
	c := r.Cell("native", "sequential", report.Column{N: 10})
	if c.Stats.Occasions != occasions {
		t.Fatalf("the cell's figure is over %d occasions, want %d", c.Stats.Occasions, occasions)
	}
	designs := r.Design(0.05)
	if len(designs) != 1 {
		t.Fatalf("%d designs, want 1", len(designs))
	}
	d := designs[0]
	comp := stats.VarianceComponents(report.StatsProcesses(c.Stats.Summaries))
	want, ok := stats.DesignFor(comp, float64(d.OccasionS), 4e6/1e9, 0.05, report.DesignMaxOccasions)
	if !ok || !d.Reached || !d.OccasionsMeasured || d.Occasions != want.Occasions || d.Processes != want.Processes ||
		float64(d.Precision) > 0.05 || math.Abs(float64(d.ExpectedS)-want.Cost) > 1e-9 || d.ProcessS != 4e-3 {
		t.Errorf("design %+v; want %+v at 4 ms a process, reaching ±5%%", d, want)
	}
	t.Logf("design for ±5%%: %d occasions × %d processes, ±%.2f%%, %.2f s", d.Occasions, d.Processes, 100*float64(d.Precision), float64(d.ExpectedS))
}
