package report_test

import (
	"math"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

// TestClaimsAreCheckedAsNumbers: each of the earlier study's claims comes
// with the ratios (or series) it was checked on and a verdict that
// follows from its counts; a claim about environments the set lacks is
// not measured.
func TestClaimsAreCheckedAsNumbers(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.RealisticSet(t))
	claims := r.BottomLine.Claims
	if len(claims) != len(report.Earlier.Claims) {
		t.Fatalf("%d claims checked, want all %d", len(claims), len(report.Earlier.Claims))
	}
	measured := 0
	for _, c := range claims {
		if c.Holds == report.ClaimNotMeasured {
			if len(c.Ratios) != 0 || len(c.Series) != 0 {
				t.Errorf("%q: not measured, yet %+v %+v", c.Claim, c.Ratios, c.Series)
			}
			continue
		}
		measured++
		switch c.Kind {
		case "range", "about":
			if len(c.Ratios) != c.Checks || !(c.RangeLow > 0 && c.RangeLow < c.RangeHigh) {
				t.Errorf("%q: %d ratios for %d checks, range [%v, %v]", c.Claim, len(c.Ratios), c.Checks, c.RangeLow, c.RangeHigh)
			}
			for _, q := range c.Ratios {
				if !(q.Ratio > 0) || q.Processes == 0 || q.DenominatorProcesses == 0 || (!math.IsInf(float64(q.High), 0) && !(q.Low <= q.Ratio && q.Ratio <= q.High)) {
					t.Errorf("%q: ratio %+v, want a positive ratio inside its interval, with its processes", c.Claim, q)
				}
			}
		case "decreasing":
			if len(c.Series) == 0 || c.Checks == 0 {
				t.Errorf("%q: series %+v, %d steps", c.Claim, c.Series, c.Checks)
			}
		}
		want := report.ClaimPartly
		switch {
		case c.Kind == "pool":
			want = c.Holds // judged on its two ratios, not on counts
		case c.Agree == c.Checks:
			want = report.ClaimHolds
		case c.Disagree == c.Checks:
			want = report.ClaimFails
		case c.Agree == 0 && c.Disagree == 0:
			want = report.ClaimUnclear
		}
		if c.Holds != want || c.Agree+c.Disagree > c.Checks {
			t.Errorf("%q: holds %q with %d agreeing and %d disagreeing of %d, want %q", c.Claim, c.Holds, c.Agree, c.Disagree, c.Checks, want)
		}
	}
	if measured == 0 {
		t.Error("no claim measured on a set of native, wasi-threads and emscripten")
	}
}
