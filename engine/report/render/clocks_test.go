package render

import (
	"fmt"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
	"spawnbench/engine/textfmt"
)

// TestClockWarningIsInProportion: untrusted samples that could move no
// cell's figure take one line and mark nothing; those that could move a
// cell's figure warn about that cell by name and mark it †, and only it;
// a set that never calibrated does not ask for calibration.
func TestClockWarningIsInProportion(t *testing.T) {
	t.Parallel()
	build := func(untrustedProcesses int) (*report.Report, string) {
		s := &results.Set{Provenance: reporttest.Provenance("", `{"native":"gcc 12"}`)}
		for _, n := range []int32{1, 10} {
			reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: n, Processes: 40,
				SpawnNS: reporttest.LognormalSpawns(50e3, uint64(n))})
		}
		// The untrusted samples: one spawn in each of the first processes
		// of n = 10, set far above the rest.
		tainted := map[int32]bool{}
		for i := range s.Samples {
			sm := &s.Samples[i]
			if sm.N == 10 && !sm.Warmup && sm.Thread == 0 && int(sm.Process) < untrustedProcesses && !tainted[sm.Process] {
				sm.ClockTrusted, sm.SpawnNS = false, 50*sm.SpawnNS
				tainted[sm.Process] = true
			}
		}
		r := reporttest.Build(t, s)
		return r, markdownOf(t, r).String()
	}

	r, few := build(1)
	if c := r.Cell("native", "sequential", report.Column{N: 10}); c == nil || c.Untrusted != 1 || c.ClockCouldMove {
		t.Fatalf("one untrusted sample in 40 processes: cell %+v, want 1 untrusted that could move nothing", c)
	}
	if strings.Contains(few, "CLOCK NOT TRUSTED") || strings.Contains(few, typicalRow(r, 10)+untrustedMark) ||
		!strings.Contains(few, "Clock: in native, 1 of 440 samples has clock_trusted = false") || !strings.Contains(few, "which could move no cell's figure outside its interval") {
		t.Errorf("one untrusted sample is not one line without a mark:\n%s", few)
	}
	if strings.Contains(few, "Not calibrated") {
		t.Errorf("a set that never calibrated asks for calibration:\n%s", few)
	}

	r, many := build(20)
	c10, c1 := r.Cell("native", "sequential", report.Column{N: 10}), r.Cell("native", "sequential", report.Column{N: 1})
	if !c10.ClockCouldMove || c1.ClockCouldMove {
		t.Fatalf("untrusted samples in half of n = 10's processes: could move n = 10 %v, n = 1 %v; want true, false", c10.ClockCouldMove, c1.ClockCouldMove)
	}
	if !strings.Contains(many, "**CLOCK NOT TRUSTED in 1 cell of native:** 20 of ") || !strings.Contains(many, "of sequential n = 10.") ||
		!strings.Contains(many, typicalRow(r, 10)+untrustedMark+" |") || strings.Contains(many, typicalRow(r, 1)+untrustedMark) {
		t.Errorf("the warning does not name and mark only the cell its samples could move:\n%s", many)
	}
}

// typicalRow is the start of the typical-time table's row of native's
// sequential cell of n, up to its figure.
func typicalRow(r *report.Report, n int32) string {
	c := r.Cell("native", "sequential", report.Column{N: n})
	return fmt.Sprintf("| native | sequential | %d | all | %s", n, textfmt.TimeUS(float64(c.Stats.TypicalUS)))
}
