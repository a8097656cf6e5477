package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"golang.org/x/perf/benchmath"
)

// synthCell draws one cell of a known model: each process's level is
// median·exp(σb·Z), and its spawns wander around that level with AR(1)
// log noise (lag-1 correlation rho), so spawns of one process are
// correlated as real ones are.
type synthCell struct {
	median, sigmaBetween, sigmaWithin, rho float64
}

// spawns draws the spawn times of one process.
func (m synthCell) spawns(rng *rand.Rand, spawns int) []float64 {
	level := m.median * math.Exp(m.sigmaBetween*rng.NormFloat64())
	e := m.sigmaWithin * rng.NormFloat64()
	out := make([]float64, spawns)
	for t := range out {
		e = m.rho*e + math.Sqrt(1-m.rho*m.rho)*m.sigmaWithin*rng.NormFloat64()
		out[t] = level * math.Exp(e)
	}
	return out
}

// draw draws a cell of processes (without start times) and every spawn.
func (m synthCell) draw(rng *rand.Rand, processes, spawns int) ([]Process, []float64) {
	procs := make([]Process, processes)
	var all []float64
	for p := range procs {
		s := m.spawns(rng, spawns)
		procs[p] = Process{Value: Typical(s)}
		all = append(all, s...)
	}
	return procs, all
}

// truth is what the estimator estimates for the model's population of
// processes, found from many processes: the exponentiated trimmed mean of
// log process summaries. pooledMedian is the population median of single
// spawns, which the pooled interval claims to bound.
func (m synthCell) truth(rng *rand.Rand, spawns int) (typical, pooledMedian float64) {
	procs, all := m.draw(rng, 20000, spawns)
	return Summarize(procs).Center, Median(all)
}

func TestIntervalOverProcessesCoversTheTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	model := synthCell{median: 30, sigmaBetween: 0.25, sigmaWithin: 0.4, rho: 0.9}
	const processes, spawns, cells = 10, 100, 400
	truth, pooledTruth := model.truth(rng, spawns)
	var covered, pooledCovered int
	for range cells {
		procs, values := model.draw(rng, processes, spawns)
		e := Summarize(procs)
		if e.Processes != processes || !e.Bounded() {
			t.Fatalf("estimate over %d processes: %+v", processes, e)
		}
		if e.Low <= truth && truth <= e.High {
			covered++
		}
		slices.Sort(values)
		smp := &benchmath.Sample{Values: values, Thresholds: &benchmath.DefaultThresholds}
		if ps := benchmath.AssumeNothing.Summary(smp, Confidence); ps.Lo <= pooledTruth && pooledTruth <= ps.Hi {
			pooledCovered++
		}
	}
	rate, pooledRate := float64(covered)/cells, float64(pooledCovered)/cells
	t.Logf("95%% interval over processes covered the truth in %.1f%% of %d cells; the pooled-spawn interval in %.1f%%", 100*rate, cells, 100*pooledRate)
	// 400 cells: a true 95% rate lands in [0.92, 0.97] with
	// probability about 0.99.
	if rate < 0.91 || rate > 0.985 {
		t.Errorf("coverage over processes %.3f, want about 0.95", rate)
	}
	if pooledRate > 0.6 {
		t.Errorf("the pooled-spawn interval covered %.3f; correlated spawns should make it far too narrow", pooledRate)
	}
}

func TestRatioIntervalCoversTheTrueRatio(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := synthCell{median: 20, sigmaBetween: 0.3, sigmaWithin: 0.3, rho: 0.8}
	slow := base
	slow.median *= 2.5
	const processes, spawns, cells = 10, 50, 400
	covered := 0
	for range cells {
		a, _ := slow.draw(rng, processes, spawns)
		b, _ := base.draw(rng, processes, spawns)
		_, lo, hi := Ratio(Summarize(a), Summarize(b))
		if lo <= 2.5 && 2.5 <= hi {
			covered++
		}
	}
	rate := float64(covered) / cells
	t.Logf("ratio interval covered the true ratio 2.5 in %.1f%% of %d pairs", 100*rate, cells)
	if rate < 0.91 || rate > 0.99 {
		t.Errorf("ratio coverage %.3f, want about 0.95", rate)
	}
}

func TestFewProcessesGiveNoInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	procs, _ := synthCell{median: 10, sigmaBetween: 0.1, sigmaWithin: 0.1}.draw(rng, MinIntervalProcesses-1, 100)
	e := Summarize(procs)
	if e.Bounded() || e.Processes != MinIntervalProcesses-1 || !(e.Center > 5 && e.Center < 20) {
		t.Errorf("%d processes: %+v, want a figure near 10 and no interval", MinIntervalProcesses-1, e)
	}
	if p := Test(e, e); !math.IsNaN(p) {
		t.Errorf("a test over %d processes a side gave p = %v, want none", e.Processes, p)
	}
}

func TestTypicalMovesWithRegimeSharesWhereTheMedianJumps(t *testing.T) {
	// One process, two regimes (11.5 and 32 µs, the native sequential
	// pattern); the fast share moves from 48% to 52%.
	cell := func(fastShare float64) []float64 {
		s := make([]float64, 1000)
		for i := range s {
			v := 32.0
			if float64(i)/1000 < fastShare {
				v = 11.5
			}
			s[i] = v * (1 + 0.02*math.Sin(float64(i)))
		}
		return s
	}
	a, b := cell(0.48), cell(0.52)
	figMove := math.Abs(Typical(a)-Typical(b)) / (32 - 11.5)
	medMove := math.Abs(Median(a)-Median(b)) / (32 - 11.5)
	t.Logf("48%% -> 52%% fast: typical %.1f -> %.1f µs, median %.1f -> %.1f µs", Typical(a), Typical(b), Median(a), Median(b))
	if figMove > 0.2 {
		t.Errorf("the typical value moved by %.0f%% of the gap between the regimes for a 4-point share change", 100*figMove)
	}
	if medMove < 0.5 {
		t.Errorf("the median moved by only %.0f%% of the gap: the check does not exercise a knife edge", 100*medMove)
	}
}

// driftRun draws one run of a cell on a machine whose state drifts: its
// processes start one second apart, and each one's level is the model's
// times exp(drift), where drift is an Ornstein–Uhlenbeck process in
// time (standard deviation sigma, correlation time tau seconds), shared
// by every process that starts near the same moment.
type driftRun struct {
	cell       synthCell
	sigma, tau float64
}

func (m driftRun) draw(rng *rand.Rand, processes, spawns int) []Process {
	origin := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	keep := math.Exp(-1 / max(m.tau, 1e-9))
	drift := m.sigma * rng.NormFloat64()
	out := make([]Process, processes)
	for p := range out {
		drift = keep*drift + math.Sqrt(1-keep*keep)*m.sigma*rng.NormFloat64()
		shifted := m.cell
		shifted.median *= math.Exp(drift)
		out[p] = Process{Value: Typical(shifted.spawns(rng, spawns)), Start: origin.Add(time.Duration(p) * time.Second)}
	}
	return out
}

// withoutStarts is procs with their start times forgotten.
func withoutStarts(procs []Process) []Process {
	out := slices.Clone(procs)
	for i := range out {
		out[i].Start = time.Time{}
	}
	return out
}

// coverage is the share of runs whose interval holds the truth (the
// figure of all runs' processes pooled: what another run estimates),
// with drift windows and over processes alone, the median ratio of the
// two intervals' widths, and the share of runs that say they drifted.
func (m driftRun) coverage(t *testing.T, rng *rand.Rand, runs, processes, spawns int) (windows, alone, widening, drifted float64) {
	t.Helper()
	var pooled []Process
	var widths []float64
	type pair struct{ windows, alone *Estimate }
	ests := make([]pair, runs)
	for i := range runs {
		procs := m.draw(rng, processes, spawns)
		pooled = append(pooled, procs...)
		ests[i] = pair{Summarize(procs), Summarize(withoutStarts(procs))}
		if !ests[i].windows.Bounded() || !ests[i].alone.Bounded() {
			t.Fatalf("run %d: no interval over %d processes", i, processes)
		}
		widths = append(widths, ests[i].windows.Precision/ests[i].alone.Precision)
	}
	truth := Summarize(withoutStarts(pooled)).Center
	holds := func(e *Estimate) float64 {
		if e.Low <= truth && truth <= e.High {
			return 1 / float64(runs)
		}
		return 0
	}
	for _, e := range ests {
		windows += holds(e.windows)
		alone += holds(e.alone)
		if e.windows.Drifted {
			drifted += 1 / float64(runs)
		}
	}
	slices.Sort(widths)
	return windows, alone, widths[len(widths)/2], drifted
}

func TestDriftWindowsCoverAnotherRunsFigure(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const runs, processes, spawns = 400, 60, 20
	cell := synthCell{median: 30, sigmaBetween: 0.1, sigmaWithin: 0.3, rho: 0.8}
	// 400 runs: a true 95% rate lands in [0.92, 0.97] with probability
	// about 0.99.
	windows, alone, widening, drifted := driftRun{cell: cell, sigma: 0.2, tau: 3}.coverage(t, rng, runs, processes, spawns)
	t.Logf("drift σ = 0.2, τ = 3 s over %d s: drift windows covered another run's figure in %.1f%% of %d runs (%.2f× as wide), processes alone in %.1f%%; %.1f%% said they drifted",
		processes, 100*windows, runs, widening, 100*alone, 100*drifted)
	if windows < 0.91 {
		t.Errorf("with drift windows, coverage %.3f; want about 0.95", windows)
	}
	if alone > 0.85 {
		t.Errorf("over processes alone, coverage %.3f: the drift is too weak to test the windows", alone)
	}
	// The test has little power over 12 processes a window; what it
	// must do is say drift far more often where there is some.
	if drifted < 0.1 {
		t.Errorf("only %.3f of drifting runs said they drifted", drifted)
	}

	windows, alone, widening, drifted = driftRun{cell: cell}.coverage(t, rng, runs, processes, spawns)
	t.Logf("no drift: drift windows covered %.1f%% of %d runs (%.2f× as wide), processes alone %.1f%%; %.1f%% said they drifted",
		100*windows, runs, widening, 100*alone, 100*drifted)
	if drifted > 0.03 {
		t.Errorf("%.3f of steady runs said they drifted (level %g)", drifted, DriftAlpha)
	}
	if windows < 0.91 || windows > 0.995 {
		t.Errorf("without drift, coverage %.3f; want about 0.95", windows)
	}
	if widening > 1.5 {
		t.Errorf("without drift, the windows widened the median interval %.2f×; want at most 1.5 (the price of taking the wider)", widening)
	}
}

func TestFewProcessesGetNoDriftWindows(t *testing.T) {
	// Ten processes a minute apart, nine at 30 µs and one at 350 µs: the
	// window holding the slow one would read ten times the others, so a
	// cell this small keeps the interval over processes.
	origin := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var procs []Process
	for p := range 10 {
		us := 30 * (1 + 0.01*float64(p))
		if p == 4 {
			us = 350
		}
		procs = append(procs, Process{Value: us, Start: origin.Add(time.Duration(p) * time.Minute)})
	}
	e := Summarize(procs)
	if e.Windowed || !e.Bounded() || e.Precision > 0.2 {
		t.Errorf("10 processes, one slow: windowed %v, precision ±%.0f%%; want no windows and Yuen's trimmed interval", e.Windowed, 100*e.Precision)
	}
}
