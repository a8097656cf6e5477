package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

// TestBusyFlagOnSyntheticSet: a busy cell is flagged and its evidence
// named in words, and the report shows every cell's load as numbers
// either way (engine/report tests the busy rule's verdicts).
func TestBusyFlagOnSyntheticSet(t *testing.T) {
	t.Parallel()
	half, slowedHalf := reporttest.Half, reporttest.SlowedHalf
	cases := []struct {
		name          string
		processes     int
		spawnNS       func(p, t int) int64
		others, steal func(int) float64
		busy, known   bool
		evidence      string
	}{
		{"idle machine", 5, nil, reporttest.Share(0.01), reporttest.Share(0), false, true, ""},
		// Load that moved no figure is a number, not a flag.
		{"steady other work of 30%", 20, nil, reporttest.Share(0.30), reporttest.Share(0), false, true, ""},
		{"a hypervisor stealing 15%", 20, nil, reporttest.Share(0.02), reporttest.Share(0.15), false, true, ""},
		{"other work beside the faster half", 20, slowedHalf, half(0, 0.8), reporttest.Share(0), false, true, ""},
		{"other work of 80% in every process", 5, nil, reporttest.Share(0.8), reporttest.Share(0), true, true, "busy throughout: others' work took 80% of wall time"},
		// Pooled over the cell: one process in five with 40% is 8%.
		{"one busy process of five", 5, nil, func(p int) float64 { return []float64{0.4, 0, 0, 0, 0}[p] }, nil, false, true, ""},
		{"other work that slows half the processes", 20, slowedHalf, half(0.8, 0), reporttest.Share(0), true, true, "busy: figure rises with load (ρ = "},
		{"steal that slows half the processes", 20, slowedHalf, reporttest.Share(0), half(0.4, 0.05), true, true, "busy: figure rises with load (ρ = "},
		{"load not recorded", 5, nil, nil, nil, false, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := reporttest.LoadedSet(tc.processes, tc.spawnNS, tc.others, tc.steal)
			r := reporttest.Build(t, s)
			c := r.Cell("native", "sequential", report.Column{N: 10})
			n := c.Judgement
			if n.Busy != tc.busy || n.BusyKnown != tc.known || !strings.HasPrefix(busyEvidence(n), tc.evidence) || (tc.evidence == "") != (busyEvidence(n) == "") {
				t.Errorf("busy, known = %v, %v, evidence %q; want %v, %v, %q… (%+v)", n.Busy, n.BusyKnown, busyEvidence(n), tc.busy, tc.known, tc.evidence, n)
			}
			md := markdownOf(t, r)
			out := md.String()
			flagged := strings.Contains(out, "| native | sequential | ") && strings.Contains(out, "| busy; ")
			if flagged != tc.busy || strings.Contains(out, "BUSY MACHINE") != tc.busy {
				t.Errorf("markdown shows busy = %v, want %v:\n%s", flagged, tc.busy, out)
			}
			if tc.busy && !strings.Contains(out, "native sequential n=10 ("+busyEvidence(n)+")") {
				t.Errorf("the warning does not name the cell with its evidence %q:\n%s", busyEvidence(n), out)
			}
			// The load is a number whether or not it flags the cell: a
			// row of the table beside a busy cell, else one line with
			// the most any cell saw (a table of "no" collapses).
			row := fmt.Sprintf("| native | sequential | 10 | %s | %s |", sharePercent(float64(n.OthersShare)), sharePercent(float64(n.StealShare)))
			if !tc.busy {
				row = fmt.Sprintf("No cell busy: the processes of no cell (of 1) say the machine's load moved its figure (the [busy] rule is in the legend of the means); others' CPU took at most %s and steal at most %s of a cell's wall time.",
					sharePercent(float64(n.OthersShare)), sharePercent(float64(n.StealShare)))
			}
			if strings.Contains(out, "## Load while measured") != tc.known || (tc.known && !strings.Contains(out, row)) || strings.Contains(out, "| no |") {
				t.Errorf("the load section lacks %q (or has a row of \"no\"):\n%s", row, out)
			}
		})
	}
}

// TestCompareWarnsWhenBusyLevelsDiffer: a set with busy cells beside one
// without is a warning, with each set's median load; a steady load that
// flags neither set is none.
func TestCompareWarnsWhenBusyLevelsDiffer(t *testing.T) {
	t.Parallel()
	set := reporttest.OthersSet
	for _, tc := range []struct {
		old, new float64
		warn     bool
	}{{0.01, 0.02, false}, {0.01, 0.8, true}, {0.6, 0.8, false}, {0.01, 0.4, false}} {
		cmp, err := report.Compare(report.Input{Dir: "old", Set: set(tc.old)}, report.Input{Dir: "new", Set: set(tc.new)}, report.CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var md bytes.Buffer
		if err := WriteComparison(cmp, &md, FormatMarkdown); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(md.String(), "BUSY LEVELS DIFFER") != tc.warn {
			t.Errorf("others %.2f then %.2f: busy levels differ = %v, want %v", tc.old, tc.new, cmp.BusyDiffers, tc.warn)
		}
		if tc.new > 0.5 && !strings.Contains(md.String(), "old: —; new: busy") && tc.old < 0.5 {
			t.Errorf("compare table does not flag the busy side:\n%s", md.String())
		}
		if loads := fmt.Sprintf("took %s and 0.0%% of its wall time in old, %s and 0.0%% in new", sharePercent(tc.old), sharePercent(tc.new)); tc.warn && !strings.Contains(md.String(), loads) {
			t.Errorf("the warning does not give the loads %q:\n%s", loads, md.String())
		}
	}
}
