package report_test

import (
	"fmt"
	"spawnbench/internal/fulltest"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

// TestBottomRowsCarryTheirCellsJudgements: a bottom-line row's verdict is
// its shown cells' judgements, each with its column, as data.
func TestBottomRowsCarryTheirCellsJudgements(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.RealisticSet(t))
	bl := r.BottomLine
	if bl == nil || len(bl.Rows) == 0 {
		t.Fatalf("bottom line %+v", bl)
	}
	notJudged := 0
	for _, row := range bl.Rows {
		shown := 0
		for _, col := range []report.Column{bl.First, bl.Steady} {
			if c := r.Cell(row.Environment, bl.Mode, col); c != nil && c.Stats != nil {
				shown++
			}
		}
		if len(row.Judgements) != shown {
			t.Errorf("%s: %d judgements for %d cells shown", row.Environment, len(row.Judgements), shown)
		}
		for _, cj := range row.Judgements { // compared as printed: untested load figures are NaN
			if cj.Column != bl.First && cj.Column != bl.Steady {
				t.Errorf("%s: a judgement of column %+v, not a bottom-line column", row.Environment, cj.Column)
			}
			if c := r.Cell(row.Environment, bl.Mode, cj.Column); c == nil || fmt.Sprint(c.Judgement) != fmt.Sprint(cj.Judgement) {
				t.Errorf("%s %+v: judgement %+v, not its cell's", row.Environment, cj.Column, cj.Judgement)
			}
			if cj.Judgement.Verdict == report.NotJudged {
				notJudged++
			}
		}
	}
	// The fixture's n = 100 cells have one process each.
	if notJudged == 0 {
		t.Error("no row has a not-judged cell, though the fixture's steady state has one process a cell")
	}
}

func TestReferenceVerdictsAreQuietOnGoodData(t *testing.T) {
	t.Parallel()
	fulltest.Only(t, "reads a committed result set whole and builds its report")
	r := reporttest.ReferenceReport(t)
	judged, unstable := 0, 0
	for _, c := range r.Cells {
		if c.Stats == nil || c.Judgement.Verdict == report.NotJudged {
			continue
		}
		judged++
		if c.Judgement.Unstable {
			unstable++
		}
	}
	t.Logf("%d of %d judged cells unstable", unstable, judged)
	if judged < 100 || unstable*10 > judged {
		t.Errorf("%d of %d judged cells unstable, want at most 10%%", unstable, judged)
	}
	// Native sequential n = 1000 is two regimes, and says so.
	if c := r.Cell("native", "sequential", report.Column{N: 1000}); c == nil || len(c.Regimes) != 2 {
		t.Errorf("native sequential n = 1000: regimes %+v, want two", c.Regimes)
	}
}
