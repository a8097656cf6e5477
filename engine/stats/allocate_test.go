package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// drawCell is n processes whose log values are normal with variance v.
func drawCell(rng *rand.Rand, n int, v float64) *Estimate {
	procs := make([]Process, n)
	for i := range procs {
		procs[i] = Process{Value: 30 * math.Exp(math.Sqrt(v)*rng.NormFloat64())}
	}
	return summarize(procs)
}

// The allocation reaches its target: ratios of cells drawn with the
// spreads it was given, at the counts it gave, are within the target in
// ReachShare of the draws (and not far below it in half: it spends no
// more than it needs), and the cheap wide side gets the processes, as
// Neyman's allocation says it should.
func TestRatioProcessesReachTheTarget(t *testing.T) {
	// A native cell (wide, cheap) against an embedded host's (narrow,
	// dearer), spreads and costs as a main-job set shows them.
	// Their spreads are winsorized variances, as Estimate.LogVar gives
	// them: of a large draw.
	const nativeVar, hostVar = 0.4, 0.015
	big := rand.New(rand.NewPCG(7, 7))
	native := Side{LogVar: drawCell(big, 20000, nativeVar).LogVar(), CostS: 0.09, Floor: 10}
	host := Side{LogVar: drawCell(big, 20000, hostVar).LogVar(), CostS: 0.25, Floor: 10}
	for _, target := range []float64{0.05, 0.10} {
		na, nb, ok := RatioProcesses(host, native, target)
		if !ok {
			t.Fatalf("±%g: not reachable", target)
		}
		if nb <= na {
			t.Errorf("±%g: native %d processes, host %d; the wide, cheap side should get more", target, nb, na)
		}
		rng := rand.New(rand.NewPCG(1, uint64(1000*target)))
		var precisions []float64
		for range 400 {
			r, lo, hi := Ratio(drawCell(rng, na, hostVar), drawCell(rng, nb, nativeVar))
			precisions = append(precisions, (hi-lo)/2/r)
		}
		slices.Sort(precisions)
		med, reach := precisions[len(precisions)/2], precisions[int(ReachShare*float64(len(precisions)))]
		t.Logf("±%g: host %d, native %d processes: precision ±%.4g in half the runs, ±%.4g in %.0f%%", target, na, nb, med, reach, 100*ReachShare)
		if reach > 1.02*target || med < 0.7*target {
			t.Errorf("±%g: host %d and native %d processes give a precision of ±%.3g in half the runs, ±%.3g in %.0f%%", target, na, nb, med, reach, 100*ReachShare)
		}
		// Neyman's is the cheapest split: moving processes either way
		// costs more for the same precision.
		cost := float64(na)*host.CostS + float64(nb)*native.CostS
		for _, k := range []float64{0.7, 1.4} {
			ma := int(float64(na) * k)
			if mb, ok := ProcessesBeside(native, host.LogVar, ma, target); ok {
				if other := float64(ma)*host.CostS + float64(mb)*native.CostS; other < cost*0.98 {
					t.Errorf("±%g: %d and %d cost %.1f s, less than the allocation's %d and %d at %.1f s", target, ma, mb, other, na, nb, cost)
				}
			}
		}
	}
}

// Floors hold, and a floor that takes up the whole target says so.
func TestRatioProcessesFloorsAndTheUnreachable(t *testing.T) {
	narrow := Side{LogVar: 0.001, CostS: 1, Floor: 40}
	wide := Side{LogVar: 0.2, CostS: 0.1, Floor: 10}
	na, nb, ok := RatioProcesses(narrow, wide, 0.10)
	if !ok || na != 40 || nb <= 10 {
		t.Errorf("floors: %d and %d (%v), want the narrow side at its floor 40 and the wide above 10", na, nb, ok)
	}
	// Two equal sides share the processes equally.
	if na, nb, ok := RatioProcesses(wide, wide, 0.05); !ok || na != nb {
		t.Errorf("equal sides: %d and %d (%v)", na, nb, ok)
	}
	if n, ok := ProcessesBeside(wide, 0.2, 5, 0.05); ok {
		t.Errorf("a baseline of 5 processes at variance 0.2 leaves nothing of ±5%%, yet %d processes were offered", n)
	}
	if _, _, ok := RatioProcesses(wide, wide, 0); ok {
		t.Error("a target of 0 was offered processes")
	}
}

// A dear, narrow side at a floor of 5 (a browser's steady state beside
// native's hundreds) has an interval of few degrees of freedom, whose
// spread scatters widely from run to run: the counts are sized for the
// quantile they have themselves, so their ratios still reach the target
// in ReachShare of the runs.
func TestRatioProcessesAreSizedForTheirOwnDegreesOfFreedom(t *testing.T) {
	const pageVar, nativeVar = 0.005, 0.05
	big := rand.New(rand.NewPCG(3, 3))
	page := Side{LogVar: drawCell(big, 20000, pageVar).LogVar(), CostS: 1.5, Floor: 5}
	native := Side{LogVar: drawCell(big, 20000, nativeVar).LogVar(), CostS: 0.06, Floor: 100}
	na, nb, ok := RatioProcesses(page, native, 0.10)
	if !ok {
		t.Fatal("±10%: not reachable")
	}
	nBeside, okBeside := ProcessesBeside(page, native.LogVar, nb, 0.10)
	if !okBeside || nBeside > na {
		t.Errorf("beside native's %d processes the page needs %d (%v), more than the %d allocated with them", nb, nBeside, okBeside, na)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	var precisions []float64
	for range 400 {
		r, lo, hi := Ratio(drawCell(rng, na, pageVar), drawCell(rng, nb, nativeVar))
		precisions = append(precisions, (hi-lo)/2/r)
	}
	slices.Sort(precisions)
	reach := precisions[int(ReachShare*float64(len(precisions)))]
	t.Logf("page %d, native %d processes: precision ±%.3g in %.0f%% of the runs", na, nb, reach, 100*ReachShare)
	if reach > 0.102 {
		t.Errorf("page %d and native %d processes give a precision of ±%.3g in %.0f%% of the runs, want within ±10%%", na, nb, reach, 100*ReachShare)
	}
}
