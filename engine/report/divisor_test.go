package report_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

// clusteredBaselineSet is native at n = 1 in two clusters of processes
// (fastShare at 50 µs, the rest at 135 µs) beside a host of one peak at
// 150 µs, 200 processes each.
func clusteredBaselineSet(seed uint64, fastShare float64) *results.Set {
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	draw := func(center func(p int) float64) func(p, t int) int64 {
		return func(p, t int) int64 {
			rng := rand.New(rand.NewPCG(seed, uint64(p)))
			return int64(1e3 * center(p) * math.Exp(0.08*rng.NormFloat64()))
		}
	}
	reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 1, Processes: 200, SpawnNS: draw(func(p int) float64 {
		if float64(p) < fastShare*200 {
			return 50
		}
		return 135
	})})
	reporttest.AddCell(s, reporttest.Cell{Env: "wasmtime", Mode: "sequential", N: 1, Processes: 200, SpawnNS: draw(func(int) float64 { return 150 })})
	return s
}

// TestRatiosDivideByTheBaselinesLowerCluster: where the baseline's
// processes fall into two clusters, the ratio divides by the lower one,
// says so, and stays put when the clusters' shares move (70% → 80%); the
// bottom line's note and answer carry the same divisor.
func TestRatiosDivideByTheBaselinesLowerCluster(t *testing.T) {
	t.Parallel()
	var got []float64
	for i, share := range []float64{0.70, 0.80} {
		r := reporttest.Build(t, clusteredBaselineSet(uint64(i+1), share))
		q := r.RatioOn("", "wasmtime", "sequential", report.Column{N: 1})
		if q == nil {
			t.Fatal("no ratio of wasmtime at n = 1")
		}
		if q.Divisor != report.DivideByLowerCluster || math.Abs(float64(q.DivisorShare)-share) > 0.02 || q.BaselineProcesses != int(math.Round(float64(q.DivisorShare)*200)) {
			t.Errorf("share %.2f: divisor %q of share %.2f over %d processes, want the lower cluster's", share, q.Divisor, float64(q.DivisorShare), q.BaselineProcesses)
		}
		if d := float64(q.DivisorUS); d < 45 || d > 55 {
			t.Errorf("share %.2f: divisor %.1f µs, want the lower cluster's (about 50)", share, d)
		}
		got = append(got, float64(q.Ratio))
		bl := r.BottomLine
		if bl == nil || bl.Answer == nil || len(bl.Answer.BaselineClusters) != 1 || len(bl.Answer.BaselineUnstable) != 0 {
			t.Fatalf("share %.2f: answer %+v, want the first spawn's baseline clusters and no column that moves with the baseline", share, bl.Answer)
		}
		if n := bl.Answer.BaselineClusters[0]; n.Divisor != report.DivideByLowerCluster || n.Environment != "native" || n.Column != bl.First {
			t.Errorf("share %.2f: note %+v, want native's first spawn divided by its lower cluster", share, n)
		}
	}
	if m := got[1] / got[0]; math.Abs(math.Log(m)) > 0.04 {
		t.Errorf("ratios %.3f and %.3f: moved ×%.3f as native's shares moved, want within 4%%", got[0], got[1], m)
	}
}

// A baseline of one peak divides whole.
func TestRatiosDivideByAStableBaselineWhole(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, clusteredBaselineSet(3, 1))
	q := r.RatioOn("", "wasmtime", "sequential", report.Column{N: 1})
	if q == nil || q.Divisor != report.DivideByCell || q.DivisorShare != 1 || q.BaselineProcesses != 200 {
		t.Errorf("ratio %+v, want the whole cell of 200 processes as divisor", q)
	}
}
