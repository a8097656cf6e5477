package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/results"
)

// share returns a constant share of wall time for every process.
func share(v float64) func(int) float64 { return func(int) float64 { return v } }

func TestBusyFlagOnSyntheticSet(t *testing.T) {
	cases := []struct {
		name          string
		others, steal func(int) float64
		busy, known   bool
	}{
		{"idle machine", share(0.01), share(0), false, true},
		{"other work above 10%", share(0.30), share(0), true, true},
		{"steal above 10%", share(0.02), share(0.15), true, true},
		{"just under the threshold", share(0.09), share(0.09), false, true},
		// Pooled over the cell: one process in five with 40% is 8%.
		{"one busy process of five", func(p int) float64 { return []float64{0.4, 0, 0, 0, 0}[p] }, nil, false, true},
		// Two of five with 50% is 20%, but five processes cannot tell it
		// from two that happened to see other work.
		{"two busy processes of five", func(p int) float64 { return []float64{0.5, 0.5, 0, 0, 0}[p] }, nil, false, true},
		{"every process a little over", func(p int) float64 { return []float64{0.25, 0.3, 0.2, 0.28, 0.22}[p] }, nil, true, true},
		{"load not recorded", nil, nil, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &results.Set{Provenance: fixtureProvenance("", "")}
			addCell(s, cellSpec{env: "native", mode: "sequential", n: 10, processes: 5, wallNS: 200e6,
				spawnNS: lognormalSpawns(40e3, 1), others: tc.others, steal: tc.steal})
			r := build(t, s)
			c := r.Cell("native", "sequential", Column{N: 10})
			if c.Judgement.Busy != tc.busy || c.Judgement.BusyKnown != tc.known {
				t.Errorf("busy, known = %v, %v; want %v, %v (noise %+v)", c.Judgement.Busy, c.Judgement.BusyKnown, tc.busy, tc.known, c.Judgement)
			}
			var md bytes.Buffer
			if err := r.Write(&md, FormatMarkdown, nil); err != nil {
				t.Fatal(err)
			}
			out := md.String()
			flagged := strings.Contains(out, "| native | sequential | ") && (strings.Contains(out, " [busy] |") || strings.Contains(out, " [busy, "))
			if flagged != tc.busy || strings.Contains(out, "BUSY MACHINE") != tc.busy {
				t.Errorf("markdown shows busy = %v, want %v:\n%s", flagged, tc.busy, out)
			}
		})
	}
}

func TestUnstableFlag(t *testing.T) {
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
		reason    string
	}{
		{"processes agree", 6, 10, func(p int) float64 { return 100e3 * (1 + 0.01*float64(p)) }, Stable, ""},
		{"two clusters of processes", 6, 10, func(p int) float64 { return 100e3 * float64(1+p%2) }, Unstable, "two clusters"},
		{"too few processes to judge", 4, 10, func(p int) float64 { return 100e3 * float64(1+2*(p%2)) }, NotJudged, "4 processes; a verdict needs 5"},
		// A wide interval is a number, not a verdict.
		{"one spawn a process, wide and single-peaked", 20, 1, spread, Stable, ""},
		{"a step halfway through the run", 20, 1, func(p int) float64 { return 100e3 * (1 + 0.6*float64(p/10)) * (1 + 0.01*float64(p%10)) }, Unstable, "drifted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &results.Set{Provenance: fixtureProvenance("", "")}
			addCell(s, cellSpec{env: "native", mode: "sequential", n: tc.n, processes: tc.processes, spawnNS: cell(tc.level), startEvery: time.Second})
			c := build(t, s).Cell("native", "sequential", Column{N: tc.n})
			if c.Judgement.Verdict != tc.verdict || c.Judgement.Unstable != (tc.verdict == Unstable) || !strings.Contains(c.Judgement.Reason, tc.reason) {
				t.Errorf("verdict %q (%s; spread %.3f), want %q (%s)", c.Judgement.Verdict, c.Judgement.Reason, c.Judgement.Spread, tc.verdict, tc.reason)
			}
		})
	}
}

func TestCompareWarnsWhenBusyLevelsDiffer(t *testing.T) {
	set := func(others float64) *results.Set {
		s := &results.Set{Provenance: fixtureProvenance("", "")}
		addCell(s, cellSpec{env: "native", mode: "sequential", n: 100, processes: 6, wallNS: 200e6,
			spawnNS: lognormalSpawns(50e3, 3), others: share(others)})
		return s
	}
	for _, tc := range []struct {
		old, new float64
		warn     bool
	}{{0.01, 0.02, false}, {0.01, 0.4, true}, {0.4, 0.5, false}} {
		cmp, err := Compare(Input{Dir: "old", Set: set(tc.old)}, Input{Dir: "new", Set: set(tc.new)}, CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var md bytes.Buffer
		if err := cmp.Write(&md, FormatMarkdown); err != nil {
			t.Fatal(err)
		}
		if cmp.BusyDiffers != tc.warn || strings.Contains(md.String(), "BUSY LEVELS DIFFER") != tc.warn {
			t.Errorf("others %.2f then %.2f: busy levels differ = %v, want %v", tc.old, tc.new, cmp.BusyDiffers, tc.warn)
		}
		if tc.new > 0.1 && !strings.Contains(md.String(), "old: —; new: busy") && tc.old < 0.1 {
			t.Errorf("compare table does not flag the busy side:\n%s", md.String())
		}
	}
}
