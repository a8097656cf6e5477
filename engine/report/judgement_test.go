package report_test

import (
	"math"
	"testing"
	"time"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

func TestUnstableFlag(t *testing.T) {
	t.Parallel()
	// level gives process p's level; each spawn adds its thread number in
	// ns, so no two values tie.
	cell := func(level func(p int) float64) func(p, t int) int64 {
		return func(p, t int) int64 { return int64(level(p)) + int64(t) }
	}
	spread := func(p int) float64 { return 100e3 * math.Exp(0.3*math.Sin(float64(7*p))) }
	cases := []struct {
		name      string
		processes int
		n         int32
		level     func(p int) float64
		verdict   string
		// clusters and drifted are the evidence the verdict must carry.
		clusters int
		drifted  bool
	}{
		{"processes agree", 6, 10, func(p int) float64 { return 100e3 * (1 + 0.01*float64(p)) }, report.Stable, 0, false},
		{"two clusters of processes", 6, 10, func(p int) float64 { return 100e3 * float64(1+p%2) }, report.Unstable, 2, false},
		{"too few processes to judge", 4, 10, func(p int) float64 { return 100e3 * float64(1+2*(p%2)) }, report.NotJudged, 0, false},
		// A wide interval is a number, not a verdict.
		{"one spawn a process, wide and single-peaked", 20, 1, spread, report.Stable, 0, false},
		{"a step halfway through the run", 20, 1, func(p int) float64 { return 100e3 * (1 + 0.6*float64(p/10)) * (1 + 0.01*float64(p%10)) }, report.Unstable, 2, true}, // a step is two clusters too
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &results.Set{Provenance: reporttest.Provenance("", "")}
			reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: tc.n, Processes: tc.processes, SpawnNS: cell(tc.level), StartEvery: time.Second})
			c := reporttest.Build(t, s).Cell("native", "sequential", report.Column{N: tc.n})
			n := c.Judgement
			if n.Verdict != tc.verdict || n.Unstable != (tc.verdict == report.Unstable) || len(n.Clusters) != tc.clusters || n.Drifted != tc.drifted || n.Processes != tc.processes {
				t.Errorf("verdict %q (%+v), want %q from %d processes, %d clusters, drifted %v", n.Verdict, n, tc.verdict, tc.processes, tc.clusters, tc.drifted)
			}
			if n.Drifted && !(n.DriftP > 0 && n.DriftP < report.DriftAlpha) {
				t.Errorf("drifted with p = %v, want 0 < p < %v", n.DriftP, report.DriftAlpha)
			}
			if len(n.Clusters) == 2 && !(n.Clusters[0].TypicalUS < n.Clusters[1].TypicalUS && n.Clusters[0].Share+n.Clusters[1].Share > 0.99) {
				t.Errorf("clusters %+v, want the lower first and shares summing to 1", n.Clusters)
			}
		})
	}
}

// TestBusyRuleOnSyntheticSet: a cell is busy only where its processes
// say the load moved its figure, with the kind of evidence that did;
// its load is a number either way.
func TestBusyRuleOnSyntheticSet(t *testing.T) {
	t.Parallel()
	half, slowedHalf := reporttest.Half, reporttest.SlowedHalf
	cases := []struct {
		name                     string
		processes                int
		spawnNS                  func(p, t int) int64
		others, steal            func(int) float64
		known, throughout, rises bool
		othersShare, stealShare  float64
	}{
		{"idle machine", 5, nil, reporttest.Share(0.01), reporttest.Share(0), true, false, false, 0.01, 0},
		// Load that moved no figure is a number, not a flag.
		{"steady other work of 30%", 20, nil, reporttest.Share(0.30), reporttest.Share(0), true, false, false, 0.30, 0},
		{"a hypervisor stealing 15%", 20, nil, reporttest.Share(0.02), reporttest.Share(0.15), true, false, false, 0.02, 0.15},
		{"other work beside the faster half", 20, slowedHalf, half(0, 0.8), reporttest.Share(0), true, false, false, 0.4, 0},
		{"other work of 80% in every process", 5, nil, reporttest.Share(0.8), reporttest.Share(0), true, true, false, 0.8, 0},
		// Pooled over the cell: one process in five with 40% is 8%.
		{"one busy process of five", 5, nil, func(p int) float64 { return []float64{0.4, 0, 0, 0, 0}[p] }, nil, true, false, false, 0.08, 0},
		{"other work that slows half the processes", 20, slowedHalf, half(0.8, 0), reporttest.Share(0), true, false, true, 0.4, 0},
		{"steal that slows half the processes", 20, slowedHalf, reporttest.Share(0), half(0.4, 0.05), true, false, true, 0, 0.225},
		{"load not recorded", 5, nil, nil, nil, false, false, false, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := reporttest.LoadedSet(tc.processes, tc.spawnNS, tc.others, tc.steal)
			n := reporttest.Build(t, s).Cell("native", "sequential", report.Column{N: 10}).Judgement
			if n.BusyKnown != tc.known || n.BusyThroughout != tc.throughout || n.BusyRises != tc.rises || n.Busy != (tc.throughout || tc.rises) {
				t.Errorf("known %v, throughout %v, rises %v, busy %v; want %v, %v, %v (%+v)", n.BusyKnown, n.BusyThroughout, n.BusyRises, n.Busy, tc.known, tc.throughout, tc.rises, n)
			}
			if math.Abs(float64(n.OthersShare)-tc.othersShare) > 0.005 || math.Abs(float64(n.StealShare)-tc.stealShare) > 0.005 {
				t.Errorf("shares %v, %v; want %v, %v", n.OthersShare, n.StealShare, tc.othersShare, tc.stealShare)
			}
			if n.BusyRises && !(n.LoadTested > 0 && n.LoadRho > 0 && float64(n.LoadP) < stats.BusyAlpha && float64(n.LoadRatio) >= stats.BusyMinRatio) {
				t.Errorf("rises without its evidence: tested %d, ρ %v, p %v, ratio %v", n.LoadTested, n.LoadRho, n.LoadP, n.LoadRatio)
			}
			if load := n.Load(); load.Busy != n.Busy || load.Tested != n.LoadTested {
				t.Errorf("Load() = %+v, does not give back the judgement %+v", load, n)
			}
		})
	}
}
