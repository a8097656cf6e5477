package report_test

import (
	"math"
	"testing"
	"time"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
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
