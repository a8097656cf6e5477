package textfmt

import (
	"math"
	"strings"
	"testing"

	"spawnbench/engine/stats"
)

// TestTimeUSPicksTheUnit: each time in the unit its size calls for, to
// about three significant digits, and an unbounded one as ∞.
func TestTimeUSPicksTheUnit(t *testing.T) {
	for _, c := range []struct {
		us   float64
		want string
	}{
		{0, "0"}, {0.0123, "12.3 ns"}, {41.63, "41.6 µs"}, {4.2, "4.20 µs"}, {1234, "1.23 ms"},
		{15103775, "15.1 s"}, {-250, "-250 µs"}, {math.Inf(1), "∞"}, {math.NaN(), "∞"},
	} {
		if got := TimeUS(c.us); got != c.want {
			t.Errorf("TimeUS(%v) = %q, want %q", c.us, got, c.want)
		}
	}
	if got := Ratio(12.345); got != "12.3" {
		t.Errorf("Ratio(12.345) = %q", got)
	}
}

// TestFigureSaysWhenItHasNoInterval: a bounded figure prints its
// interval, an unbounded one says it is not judged, with its processes.
func TestFigureSaysWhenItHasNoInterval(t *testing.T) {
	if got, want := Figure(41.6, 39, 44.1, 10), "41.6 µs [39.0 µs, 44.1 µs] (10 processes)"; got != want {
		t.Errorf("Figure = %q, want %q", got, want)
	}
	if got, want := Figure(41.6, math.NaN(), math.NaN(), 1), "41.6 µs (1 process, not judged)"; got != want {
		t.Errorf("Figure = %q, want %q", got, want)
	}
	if got := Estimate(nil); got != "n/a" {
		t.Errorf("Estimate(nil) = %q", got)
	}
	if got := RatioInterval(0, math.Inf(1)); got != "(no interval)" {
		t.Errorf("RatioInterval(0, +Inf) = %q", got)
	}
}

// TestBusyEvidenceNamesItsNumbers: busy throughout names others' share,
// busy by its effect names the test's numbers, both join, and a cell
// that is not busy has no evidence.
func TestBusyEvidenceNamesItsNumbers(t *testing.T) {
	rises := stats.Load{Busy: true, Rises: true, Tested: 20, Rho: 0.64, P: 2.1e-7, Ratio: 1.45}
	if got, want := BusyEvidence(rises), "busy: figure rises with load (ρ = 0.64, p = 2.1e-07, most-loaded half 1.45× the least)"; got != want {
		t.Errorf("BusyEvidence = %q, want %q", got, want)
	}
	both := rises
	both.Throughout, both.OthersShare = true, 0.82
	if got := BusyEvidence(both); !strings.HasPrefix(got, "busy throughout: others' work took 82% of wall time, and its figure rises with load (ρ = 0.64") {
		t.Errorf("BusyEvidence = %q", got)
	}
	if got := BusyEvidence(stats.Load{Tested: 20, Rho: 0.1, P: 0.4, Ratio: 1}); got != "" {
		t.Errorf("a cell that is not busy has evidence %q", got)
	}
	if got := LoadEffect(stats.Load{}); got != "" {
		t.Errorf("an untested cell has an effect %q", got)
	}
}

// TestCPUsSortsAPinning: a pinning is spelled sorted; none is "none".
func TestCPUsSortsAPinning(t *testing.T) {
	if got := CPUs([]int{3, 0, 2}); got != "0,2,3" {
		t.Errorf("CPUs = %q", got)
	}
	if got := CPUs(nil); got != "none" {
		t.Errorf("CPUs(nil) = %q", got)
	}
}

func TestListJoinsAsASentence(t *testing.T) {
	for _, c := range []struct {
		items []string
		want  string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := List(c.items, "or"); got != c.want {
			t.Errorf("List(%q, or) = %q, want %q", c.items, got, c.want)
		}
	}
}
