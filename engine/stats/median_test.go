package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The order statistics the interval takes are the textbook ones (at
// 95%: none for five values, the extremes for six to eight, the second
// from each end for nine to eleven, x(40) and x(61) for a hundred), and
// the interval holds the true median at least 95% of the time over
// skewed, zero-heavy and negative values alike.
func TestMedianIntervalCoversTheMedian(t *testing.T) {
	for n, want := range map[int]int{5: 0, 6: 1, 8: 1, 9: 2, 11: 2, 12: 3, 20: 6, 100: 40} {
		if got := medianRank(n, Confidence); got != want {
			t.Errorf("medianRank(%d) = %d, want %d", n, got, want)
		}
	}
	m, lo, hi := MedianInterval([]float64{5, 1, 4, 2, 3})
	if m != 3 || !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("five values: %v [%v, %v], want 3 and no interval", m, lo, hi)
	}
	if m, lo, hi := MedianInterval(nil); !math.IsNaN(m) || !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("no values: %v [%v, %v], want NaN", m, lo, hi)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	shapes := map[string]struct {
		draw   func() float64
		median float64
	}{
		"lognormal":                       {func() float64 { return 40 * math.Exp(0.5*rng.NormFloat64()) }, 40},
		"shifted exponential around zero": {func() float64 { return rng.ExpFloat64() - math.Ln2 }, 0},
		"normal, negative":                {func() float64 { return -3 + rng.NormFloat64() }, -3},
	}
	for name, s := range shapes {
		for _, n := range []int{6, 10, 30} {
			covered, trials := 0, 4000
			for range trials {
				v := make([]float64, n)
				for i := range v {
					v[i] = s.draw()
				}
				_, lo, hi := MedianInterval(v)
				if lo <= s.median && s.median <= hi {
					covered++
				}
			}
			if c := float64(covered) / float64(trials); c < 0.94 {
				t.Errorf("%s, %d values: the interval held the median in %.1f%% of %d trials, want 95%% or more", name, n, 100*c, trials)
			}
		}
	}
}
