package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Two clusters of processes whose shares move between runs (70% fast in
// one, 80% in another, as native's first spawn on one CPU did): the
// whole cell's figure moves with the shares, the divisor (the lower
// cluster's figure) does not.
func TestDivisorDoesNotMoveWithTheClustersShares(t *testing.T) {
	cell := func(seed uint64, fastShare float64) []Process {
		rng := rand.New(rand.NewPCG(seed, 7))
		procs := make([]Process, 300)
		for i := range procs {
			center := 135.0
			if float64(i) < fastShare*float64(len(procs)) {
				center = 50
			}
			procs[i] = Process{Value: center * math.Exp(0.08*rng.NormFloat64())}
		}
		return procs
	}
	a, b := cell(1, 0.70), cell(2, 0.80)
	ea, eb := Summarize(a), Summarize(b)
	if len(ea.Clusters) != 2 || len(eb.Clusters) != 2 {
		t.Fatalf("clusters %d and %d, want two in each cell", len(ea.Clusters), len(eb.Clusters))
	}
	da, inA, shareA := Divisor(a, ea)
	db, inB, shareB := Divisor(b, eb)
	if math.Abs(shareA-0.70) > 0.02 || math.Abs(shareB-0.80) > 0.02 {
		t.Errorf("shares %.2f and %.2f, want the fast clusters' 0.70 and 0.80", shareA, shareB)
	}
	if len(inA) != da.Processes || len(inB) != db.Processes || da.Processes != int(math.Round(shareA*300)) {
		t.Errorf("divisors over %d and %d processes (returned %d and %d), want the lower clusters'", da.Processes, db.Processes, len(inA), len(inB))
	}
	whole, divided := eb.Center/ea.Center, db.Center/da.Center
	t.Logf("whole cell %.1f → %.1f µs (×%.3f), lower cluster %.1f → %.1f µs (×%.3f)", ea.Center, eb.Center, whole, da.Center, db.Center, divided)
	if math.Abs(math.Log(whole)) < 0.10 {
		t.Errorf("the whole cell moved ×%.3f with the shares: the case does not show the problem", whole)
	}
	if math.Abs(math.Log(divided)) > 0.03 {
		t.Errorf("the divisor moved ×%.3f with the shares, want within 3%%", divided)
	}
	if !da.Bounded() || da.High/da.Low > ea.High/ea.Low {
		t.Errorf("divisor interval [%.1f, %.1f] not inside the width of the whole cell's [%.1f, %.1f]", da.Low, da.High, ea.Low, ea.High)
	}
}

// A cell of one peak is its own divisor, and so is a cell whose lower
// cluster is too small for an interval.
func TestDivisorOfOnePeakIsTheCell(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	procs := make([]Process, 100)
	for i := range procs {
		procs[i] = Process{Value: 60 * math.Exp(0.2*rng.NormFloat64())}
	}
	e := Summarize(procs)
	if d, in, share := Divisor(procs, e); d != e || share != 1 || len(in) != len(procs) {
		t.Errorf("one peak: divisor %p over %d processes, share %v; want the cell itself (%p), all %d, 1", d, len(in), share, e, len(procs))
	}
	few := []Process{{Value: 10}, {Value: 11}, {Value: 40}, {Value: 41}, {Value: 42}, {Value: 43}, {Value: 44}, {Value: 40.5}}
	ef := Summarize(few)
	if d, _, share := Divisor(few, ef); len(ef.Clusters) == 2 && (d != ef || share != 1) {
		t.Errorf("a lower cluster of 2 processes: divisor share %v, want the whole cell", share)
	}
}
