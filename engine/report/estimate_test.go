package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"spawnbench/engine/results"
)

// synthCell draws one cell of a known model: each process's level is
// median·exp(σb·Z), and its spawns wander around that level with AR(1)
// log noise (lag-1 correlation rho), so spawns of one process are
// correlated as real ones are.
type synthCell struct {
	median, sigmaBetween, sigmaWithin, rho float64
}

func (m synthCell) draw(rng *rand.Rand, processes, spawns int) []results.SpawnSample {
	var out []results.SpawnSample
	for p := range processes {
		level := m.median * math.Exp(m.sigmaBetween*rng.NormFloat64())
		e := m.sigmaWithin * rng.NormFloat64()
		for t := range spawns {
			e = m.rho*e + math.Sqrt(1-m.rho*m.rho)*m.sigmaWithin*rng.NormFloat64()
			out = append(out, results.SpawnSample{Process: int32(p), Thread: int32(t), SpawnNS: int64(level * math.Exp(e) * 1e3)})
		}
	}
	return out
}

// truth is what the estimator estimates for the model's population of
// processes, found from many processes: the exponentiated trimmed mean of
// log process summaries. pooledMedian is the population median of single
// spawns, which the pooled interval claims to bound.
func (m synthCell) truth(rng *rand.Rand, spawns int) (typical, pooledMedian float64) {
	s := m.draw(rng, 20000, spawns)
	procs := summarizeProcesses(s, nil)
	logs := make([]float64, len(procs))
	for i, p := range procs {
		logs[i] = math.Log(p.TypicalUS)
	}
	all := make([]float64, len(s))
	for i, x := range s {
		all[i] = float64(x.SpawnNS) / 1e3
	}
	return math.Exp(yuenOf(logs).tm), Quantile(all, 0.5)
}

func TestIntervalOverProcessesCoversTheTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	model := synthCell{median: 30, sigmaBetween: 0.25, sigmaWithin: 0.4, rho: 0.9}
	const processes, spawns, cells = 10, 100, 400
	truth, pooledTruth := model.truth(rng, spawns)
	var covered, pooledCovered int
	for range cells {
		s := model.draw(rng, processes, spawns)
		e := estimate(summarizeProcesses(s, nil))
		if e.Processes != processes || !e.Bounded() {
			t.Fatalf("estimate over %d processes: %+v", processes, e)
		}
		if float64(e.LowUS) <= truth && truth <= float64(e.HighUS) {
			covered++
		}
		values := make([]float64, len(s))
		for i, x := range s {
			values[i] = float64(x.SpawnNS) / 1e3
		}
		slices.Sort(values)
		if ps := medianSummary(values, Confidence); ps.Lo <= pooledTruth && pooledTruth <= ps.Hi {
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
		a := estimate(summarizeProcesses(slow.draw(rng, processes, spawns), nil))
		b := estimate(summarizeProcesses(base.draw(rng, processes, spawns), nil))
		_, lo, hi := ratioEstimate(a, b)
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
	s := synthCell{median: 10, sigmaBetween: 0.1, sigmaWithin: 0.1}.draw(rng, MinIntervalProcesses-1, 100)
	e := estimate(summarizeProcesses(s, nil))
	if e.Bounded() || e.Processes != MinIntervalProcesses-1 || !(e.TypicalUS > 5 && e.TypicalUS < 20) {
		t.Errorf("%d processes: %+v, want a figure near 10 and no interval", MinIntervalProcesses-1, e)
	}
}

func TestFigureMovesWithRegimeSharesWhereTheMedianJumps(t *testing.T) {
	// One process, two regimes (11.5 and 32 µs, the native sequential
	// pattern); the fast share moves from 48% to 52%.
	cell := func(fastShare float64) []results.SpawnSample {
		var s []results.SpawnSample
		for i := range 1000 {
			v := 32.0
			if float64(i)/1000 < fastShare {
				v = 11.5
			}
			v *= 1 + 0.02*math.Sin(float64(i))
			s = append(s, results.SpawnSample{Process: 0, Thread: int32(i), SpawnNS: int64(v * 1e3)})
		}
		return s
	}
	fig := func(s []results.SpawnSample) float64 { return float64(estimate(summarizeProcesses(s, nil)).TypicalUS) }
	med := func(s []results.SpawnSample) float64 {
		v := make([]float64, len(s))
		for i, x := range s {
			v[i] = float64(x.SpawnNS)
		}
		return Quantile(v, 0.5) / 1e3
	}
	a, b := cell(0.48), cell(0.52)
	figMove := math.Abs(fig(a)-fig(b)) / (32 - 11.5)
	medMove := math.Abs(med(a)-med(b)) / (32 - 11.5)
	t.Logf("48%% -> 52%% fast: figure %.1f -> %.1f µs, median %.1f -> %.1f µs", fig(a), fig(b), med(a), med(b))
	if figMove > 0.2 {
		t.Errorf("the figure moved by %.0f%% of the gap between the regimes for a 4-point share change", 100*figMove)
	}
	if medMove < 0.5 {
		t.Errorf("the median moved by only %.0f%% of the gap: the check does not exercise a knife edge", 100*medMove)
	}
}

func TestHeterogeneityRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	groups := func(s []results.SpawnSample) [][]float64 {
		by := map[int32][]float64{}
		for _, x := range s {
			by[x.Process] = append(by[x.Process], float64(x.SpawnNS))
		}
		var out [][]float64
		for p := range int32(len(by)) {
			out = append(out, by[p])
		}
		return out
	}
	flagged := func(m synthCell) int {
		n := 0
		for range 100 {
			s := m.draw(rng, 10, 100)
			if heterogeneous(groups(s), summarizeProcesses(s, nil)) {
				n++
			}
		}
		return n
	}
	if n := flagged(synthCell{median: 20, sigmaWithin: 0.3}); n > 3 {
		t.Errorf("homogeneous processes (independent spawns, one level) flagged in %d of 100 cells", n)
	}
	if n := flagged(synthCell{median: 20, sigmaBetween: 0.4, sigmaWithin: 0.2}); n < 90 {
		t.Errorf("processes whose levels differ by 40%% flagged in only %d of 100 cells", n)
	}
	if n := flagged(synthCell{median: 20, sigmaBetween: 0.01, sigmaWithin: 0.05}); n > 3 {
		t.Errorf("processes 1%% apart (significant but negligible) flagged in %d of 100 cells", n)
	}
}

func TestRegimesFoundWhereThereAreTwo(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	cell := func(fastShare float64, processes int) []results.SpawnSample {
		var s []results.SpawnSample
		for p := range processes {
			for i := range 200 {
				v := 32.0
				if rng.Float64() < fastShare {
					v = 11.5
				}
				v *= math.Exp(0.12 * rng.NormFloat64())
				s = append(s, results.SpawnSample{Process: int32(p), Thread: int32(i), SpawnNS: int64(v * 1e3)})
			}
		}
		return s
	}
	r := regimesOf(cell(0.4, 5), nil)
	if len(r) != 2 {
		t.Fatalf("%d regimes in a 40/60 mix of 11.5 and 32 µs, want 2: %+v", len(r), r)
	}
	if math.Abs(float64(r[0].Share)-0.4) > 0.05 || math.Abs(float64(r[0].TypicalUS)-11.5) > 1.5 || math.Abs(float64(r[1].TypicalUS)-32) > 3 {
		t.Errorf("regimes %+v, want 40%% near 11.5 µs and 60%% near 32 µs", r)
	}
	if r[0].Processes != 5 || !r[0].Bounded() {
		t.Errorf("regime estimate %+v, want an interval over 5 processes", r[0].Estimate)
	}
	// One regime with a long right tail (lognormal, σ = 0.4) is one.
	one := synthCell{median: 20, sigmaWithin: 0.4}.draw(rng, 5, 200)
	if r := regimesOf(one, nil); r != nil {
		t.Errorf("a skewed single regime split into %+v", r)
	}
	// A 5% bump is not a regime.
	if r := regimesOf(cell(0.05, 5), nil); r != nil {
		t.Errorf("a 5%% bump reported as regimes %+v", r)
	}
}

func TestParallelQuantitiesOfAQueue(t *testing.T) {
	// A host that starts one worker every 10 ms, created in 100 µs each:
	// spawn i's child starts at (i+1)·10 ms after the first create.
	const n, processes = 50, 6
	var s []results.SpawnSample
	for p := range processes {
		for i := range n {
			create := int64(100e3)
			offset := int64(i) * create
			start := int64(i+1) * 10e6
			s = append(s, results.SpawnSample{Process: int32(p), Thread: int32(i), Mode: "parallel", N: n,
				SpawnNS: start - offset, CreateNS: &create})
		}
	}
	st := parallelOf(n, s, nil)
	if st == nil {
		t.Fatal("no parallel statistics")
	}
	if math.Abs(float64(st.First.TypicalUS)-10e3) > 1 || math.Abs(float64(st.Makespan.TypicalUS)-n*10e3) > 1 {
		t.Errorf("first %v µs, makespan %v µs; want 10 ms and %d ms", st.First.TypicalUS, st.Makespan.TypicalUS, n*10)
	}
	if math.Abs(float64(st.StartsPerSecond)-100) > 0.01 || st.AfterLoop != 1 || st.Makespan.Processes != processes {
		t.Errorf("rate %v/s, after-loop share %v, %d processes; want 100/s, 1, %d", st.StartsPerSecond, st.AfterLoop, st.Makespan.Processes, processes)
	}
	// Threads that start as soon as they are created: none after the loop.
	var fast []results.SpawnSample
	for i := range n {
		create := int64(10e3)
		fast = append(fast, results.SpawnSample{Process: 0, Thread: int32(i), SpawnNS: 5e3, CreateNS: &create})
	}
	if st := parallelOf(n, fast, nil); st.AfterLoop != 0 || math.Abs(float64(st.Makespan.TypicalUS)-((n-1)*10+5)) > 1e-6 {
		t.Errorf("fast threads: after-loop %v, makespan %v µs; want 0 and %d µs", st.AfterLoop, st.Makespan.TypicalUS, (n-1)*10+5)
	}
}

func TestPlacementSharesAndFigures(t *testing.T) {
	cpu := func(v int32) *int32 { return &v }
	var s []results.SpawnSample
	for p := range 6 {
		for i := range 10 {
			x := results.SpawnSample{Process: int32(p), Thread: int32(i), SpawnNS: 10e3, ParentCPU: cpu(0), ChildCPU: cpu(0)}
			if i%5 == 0 { // 20% on the other CPU, three times slower
				x.SpawnNS, x.ChildCPU = 30e3, cpu(1)
			}
			s = append(s, x)
		}
	}
	got := placementsOf(s, nil)
	if len(got) != 2 || got[0].Placement != results.SameCPU || math.Abs(float64(got[0].Share)-0.8) > 1e-9 ||
		math.Abs(float64(got[0].TypicalUS)-10) > 1e-9 || math.Abs(float64(got[1].TypicalUS)-30) > 1e-9 || got[1].Processes != 6 {
		t.Errorf("placements %+v, want 80%% same-cpu at 10 µs and 20%% other-cpu at 30 µs over 6 processes", got)
	}
	for i := range s {
		s[i].ParentCPU, s[i].ChildCPU = nil, nil
	}
	if got := placementsOf(s, nil); got != nil {
		t.Errorf("unknown placements gave %+v, want none", got)
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

func (m driftRun) draw(rng *rand.Rand, processes, spawns int) ([]results.SpawnSample, processStarts) {
	origin := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	starts := processStarts{}
	keep := math.Exp(-1 / max(m.tau, 1e-9))
	drift := m.sigma * rng.NormFloat64()
	var out []results.SpawnSample
	for p := range processes {
		drift = keep*drift + math.Sqrt(1-keep*keep)*m.sigma*rng.NormFloat64()
		starts[int32(p)] = origin.Add(time.Duration(p) * time.Second)
		shifted := m.cell
		shifted.median *= math.Exp(drift)
		for _, s := range shifted.draw(rng, 1, spawns) {
			s.Process = int32(p)
			out = append(out, s)
		}
	}
	return out, starts
}

// coverage is the share of runs whose interval holds the truth (the
// figure of all runs' processes pooled: what another run estimates),
// with drift windows and over processes alone, the median ratio of the
// two intervals' widths, and the share of runs that say they drifted.
func (m driftRun) coverage(t *testing.T, rng *rand.Rand, runs, processes, spawns int) (windows, alone, widening, drifted float64) {
	t.Helper()
	var pooled, widths []float64
	type pair struct{ windows, alone *Estimate }
	ests := make([]pair, runs)
	for i := range runs {
		s, starts := m.draw(rng, processes, spawns)
		procs := summarizeProcesses(s, starts)
		for _, p := range procs {
			pooled = append(pooled, math.Log(p.TypicalUS))
		}
		ests[i] = pair{estimate(procs), estimate(summarizeProcesses(s, nil))}
		if !ests[i].windows.Bounded() || !ests[i].alone.Bounded() {
			t.Fatalf("run %d: no interval over %d processes", i, processes)
		}
		widths = append(widths, float64(ests[i].windows.Precision/ests[i].alone.Precision))
	}
	truth := math.Exp(yuenOf(pooled).tm)
	holds := func(e *Estimate) float64 {
		if float64(e.LowUS) <= truth && truth <= float64(e.HighUS) {
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
	var procs []ProcessSummary
	for p := range 10 {
		us := 30 * (1 + 0.01*float64(p))
		if p == 4 {
			us = 350
		}
		procs = append(procs, ProcessSummary{Process: int32(p), Spawns: 100, TypicalUS: us, StartedAt: origin.Add(time.Duration(p) * time.Minute)})
	}
	e := estimate(procs)
	if e.Windowed || !e.Bounded() || e.Precision > 0.2 {
		t.Errorf("10 processes, one slow: windowed %v, precision ±%.0f%%; want no windows and Yuen's trimmed interval", e.Windowed, 100*e.Precision)
	}
	// Twice as many, the slow one still alone: now the windows are
	// used where they are the wider.
	for p := 10; p < DriftMinProcesses; p++ {
		procs = append(procs, ProcessSummary{Process: int32(p), Spawns: 100, TypicalUS: 30, StartedAt: origin.Add(time.Duration(p) * time.Minute)})
	}
	if _, ok := windowSpread(procs, make([]float64, len(procs))); !ok {
		t.Errorf("%d processes over %d minutes have no drift windows", len(procs), len(procs))
	}
}
