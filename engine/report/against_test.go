package report_test

import (
	"math"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

// TestAgainstDividesEachCellByItsPartner: an environment set against
// another in its spec gets a side-by-side ratio per cell, with an
// interval that holds the true ratio (2× here) and the processes behind
// both sides; environments set against nothing get none.
func TestAgainstDividesEachCellByItsPartner(t *testing.T) {
	t.Parallel()
	set := reporttest.AgainstSet()
	r, err := report.Build([]report.Input{{Dir: "d", Set: set}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Against) != 3 {
		t.Fatalf("against ratios %+v, want libc ÷ free at n = 10, 100 and 100 (last 10)", r.Against)
	}
	for _, q := range r.Against {
		if q.Environment != "libc" || q.Baseline != "free" || q.Processes != 10 || q.BaselineProcesses != 10 ||
			!(float64(q.Low) < 2 && 2 < float64(q.High)) || math.Abs(float64(q.Ratio)-2) > 0.3 {
			t.Errorf("against ratio %+v, want libc ÷ free near 2× over 10 + 10 processes, its interval holding 2", q)
		}
	}
}
