package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReduceSpawnsIsTheTrimmedMeanAndTheLogVariance: a process's figure
// is the 20% trimmed mean of its spawns to the ns, whatever their order,
// and its spawn variance the variance of their logarithms, which a
// change of unit leaves as it is.
func TestReduceSpawnsIsTheTrimmedMeanAndTheLogVariance(t *testing.T) {
	// Ten spawns: the two slowest and the two fastest are trimmed, and
	// the mean of the middle six is 41_167.5 ns, rounded up.
	spawns := []int64{250_000, 40_000, 41_000, 39_000, 42_000, 40_001, 43_002, 41_002, 9_000, 300_000}
	r := ReduceSpawns(spawns)
	if r.Spawns != 10 || r.TypicalNS != 41_168 {
		t.Errorf("ReduceSpawns = %+v, want 10 spawns and a typical 41168 ns (the mean of the middle six, 41167.5, rounded)", r)
	}
	shuffled := slices.Clone(spawns)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if s := ReduceSpawns(shuffled); s.TypicalNS != r.TypicalNS || math.Abs(s.LogVar-r.LogVar) > 1e-12 {
		t.Errorf("the same spawns in another order reduce to %+v, want %+v", s, r)
	}
	var sum, sum2 float64
	for _, s := range spawns {
		sum += math.Log(float64(s))
	}
	mean := sum / float64(len(spawns))
	for _, s := range spawns {
		sum2 += (math.Log(float64(s)) - mean) * (math.Log(float64(s)) - mean)
	}
	if want := sum2 / float64(len(spawns)-1); math.Abs(r.LogVar-want) > 1e-12 {
		t.Errorf("log variance %v, want %v", r.LogVar, want)
	}
	micro := make([]int64, len(spawns))
	for i, s := range spawns {
		micro[i] = s * 1000 // the same spawns in ps: the logs move by a constant
	}
	if m := ReduceSpawns(micro); math.Abs(m.LogVar-r.LogVar) > 1e-9 {
		t.Errorf("log variance in another unit %v, want %v", m.LogVar, r.LogVar)
	}
}

// TestReduceSpawnsOfFewSpawns: no spawn has no figure, one spawn is its
// own figure with no spawn variance, and a spawn the clock saw as 0 ns
// counts as 1 ns in the logarithms rather than as minus infinity.
func TestReduceSpawnsOfFewSpawns(t *testing.T) {
	if r := ReduceSpawns(nil); r.Spawns != 0 || !math.IsNaN(r.TypicalNS) || !math.IsNaN(r.LogVar) {
		t.Errorf("no spawn: %+v, want 0 spawns, NaN figure and variance", r)
	}
	if r := ReduceSpawns([]int64{12_345}); r.Spawns != 1 || r.TypicalNS != 12_345 || !math.IsNaN(r.LogVar) {
		t.Errorf("one spawn: %+v, want the spawn as its figure and no variance", r)
	}
	r := ReduceSpawns([]int64{0, 1000})
	if want := math.Pow(math.Log(1000), 2) / 2; math.Abs(r.LogVar-want) > 1e-12 { // logs 0 and ln 1000
		t.Errorf("a 0 ns spawn beside e² ns: log variance %v, want %v (0 ns read as 1 ns)", r.LogVar, want)
	}
}

// TestPoolDescribesThePooledValues: the pooled mean, median and 95th
// percentile of 1..100 are 50.5, 50.5 and 95.65 (definition 8's
// interpolation), in any order.
func TestPoolDescribesThePooledValues(t *testing.T) {
	v := make([]float64, 100)
	for i := range v {
		v[i] = float64(100 - i)
	}
	p := Pool(v)
	if math.Abs(p.Mean-50.5) > 1e-12 || math.Abs(p.Median-50.5) > 1e-12 || math.Abs(p.P95-95.65) > 1e-9 {
		t.Errorf("Pool(1..100) = %+v, want mean 50.5, median 50.5, p95 95.65", p)
	}
	if v[0] != 100 {
		t.Error("Pool sorted its argument")
	}
}

// TestRelativeIQR: the quartiles of 1..5 (definition 8: 5/3 and 13/3)
// around a median of 3 are a spread of 8/9; a median of 0 or no values
// give 0, not a division by zero.
func TestRelativeIQR(t *testing.T) {
	if got := RelativeIQR([]float64{5, 1, 3, 2, 4}); math.Abs(got-8.0/9) > 1e-12 {
		t.Errorf("RelativeIQR(1..5) = %v, want 8/9", got)
	}
	if got := RelativeIQR([]float64{-1, 0, 1}); got != 0 {
		t.Errorf("a median of 0: %v, want 0", got)
	}
	if got := RelativeIQR(nil); got != 0 {
		t.Errorf("no values: %v, want 0", got)
	}
}

// TestRollingMedianKeepsTheFirstValues: a spike among the first ten
// values stays (their window is themselves), one further on is smoothed
// away, and k = 0 leaves every value as it is.
func TestRollingMedianKeepsTheFirstValues(t *testing.T) {
	v := make([]float64, 200)
	v[0], v[150] = 10, 10
	got := RollingMedian(v, 5)
	if got[0] != 10 || got[150] != 0 {
		t.Errorf("rolling median: first %v, at 150 %v; want 10 (kept) and 0 (smoothed)", got[0], got[150])
	}
	if same := RollingMedian(v, 0); same[150] != 10 {
		t.Error("k = 0 changed the values")
	}
}

// TestRegimesSplitTwoSpeeds: spawns at about 11 µs and 32 µs fall into
// two regimes that partition them, each spanning its own; one speed is
// one regime.
func TestRegimesSplitTwoSpeeds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var times []float64
	for i := range 600 {
		m := 11.0
		if i%3 == 0 {
			m = 32
		}
		times = append(times, m*math.Exp(0.08*rng.NormFloat64()))
	}
	regimes := Regimes(times)
	if len(regimes) != 2 {
		t.Fatalf("%d regimes, want 2", len(regimes))
	}
	seen := make([]bool, len(times))
	for _, g := range regimes {
		for _, i := range g.Members {
			if seen[i] || times[i] < g.From*(1-1e-12) || times[i] > g.To*(1+1e-12) {
				t.Fatalf("spawn %d (%.1f µs) in regime [%.1f, %.1f] twice or outside it", i, times[i], g.From, g.To)
			}
			seen[i] = true
		}
	}
	if lo, hi := regimes[0], regimes[1]; len(lo.Members) != 400 || len(hi.Members) != 200 ||
		math.Abs(lo.From/slices.Min(times)-1) > 1e-12 || math.Abs(hi.To/slices.Max(times)-1) > 1e-12 {
		t.Errorf("regimes of %d and %d spawns over [%.1f, %.1f] and [%.1f, %.1f]; want 400 and 200, from the fastest spawn to the slowest",
			len(lo.Members), len(hi.Members), lo.From, lo.To, hi.From, hi.To)
	}
	if one := Regimes(times[1:3]); one != nil {
		t.Errorf("two spawns: %d regimes, want none (too few to tell)", len(one))
	}
}

// TestShiftOfChanges: the median change and how many changes share its
// sign; a change of 0 goes neither way.
func TestShiftOfChanges(t *testing.T) {
	s := ShiftOf([]float64{21, -3, 19, 20, 0, 25})
	if s.Median != 19.5 || s.SameWay != 4 {
		t.Errorf("ShiftOf = %+v, want median 19.5 and 4 the same way", s)
	}
	if s := ShiftOf(nil); !math.IsNaN(s.Median) || s.SameWay != 0 {
		t.Errorf("no changes: %+v, want NaN and 0", s)
	}
}
