package stats

import (
	"maps"
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
	return summarize(procs).Center, Median(all)
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

// skewedShapes are single-peaked shapes of log process values, the
// calibration's and two it was not calibrated on.
var skewedShapes = map[string]func(*rand.Rand) float64{
	"normal":                clusterNulls[0],
	"skew-normal (shape 4)": clusterNulls[1],
	"Gumbel":                clusterNulls[2],
	"gamma (shape 2)":       clusterNulls[3],
	"log-normal (σ 0.5)":    func(r *rand.Rand) float64 { return math.Exp(0.5 * r.NormFloat64()) },
	"Student's t (3 d.o.f.)": func(r *rand.Rand) float64 {
		a, b, c := r.NormFloat64(), r.NormFloat64(), r.NormFloat64()
		return r.NormFloat64() / math.Sqrt((a*a+b*b+c*c)/3)
	},
}

func TestSingleSkewedPeaksAreRarelyClusters(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const cells = 2000
	// The shapes in one order, so that the seed fixes every draw.
	names := slices.Sorted(maps.Keys(skewedShapes))
	for _, k := range []int{5, 10, 30, 100} {
		for _, name := range names {
			draw := skewedShapes[name]
			flagged := 0
			for range cells {
				procs := make([]Process, k)
				for i := range procs {
					procs[i] = Process{Value: 40 * math.Exp(0.3*draw(rng))}
				}
				if Summarize(procs).Clusters != nil {
					flagged++
				}
			}
			rate := float64(flagged) / cells
			t.Logf("%3d processes, %s: %.2f%% flagged as two clusters", k, name, 100*rate)
			// About ClusterAlpha; 2000 cells put a true 1% below 1.8%
			// with probability 0.999.
			if rate > 0.02 {
				t.Errorf("%d processes of one %s peak: %.1f%% of cells called two clusters, want about %.0f%%", k, name, 100*rate, 100*ClusterAlpha)
			}
		}
	}
}

func TestTwoClustersOfProcessesAreFound(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	// The native pattern: half the processes near 10 µs (children on the
	// parent's CPU), half near 21 µs.
	found := 0
	const cells = 500
	for range cells {
		var procs []Process
		for i := range 10 {
			level, sigma := 10.0, 0.04
			if i%2 == 1 {
				level, sigma = 21, 0.1
			}
			procs = append(procs, Process{Value: level * math.Exp(sigma*rng.NormFloat64())})
		}
		e := Summarize(procs)
		if len(e.Clusters) == 2 && e.Unstable() {
			lo, hi := e.Clusters[0], e.Clusters[1]
			if math.Abs(lo.Share-0.5) > 0.11 || math.Abs(lo.Estimate.Center/10-1) > 0.15 || math.Abs(hi.Estimate.Center/21-1) > 0.15 {
				t.Fatalf("clusters %.2f at %.1f and %.2f at %.1f, want halves at 10 and 21", lo.Share, lo.Estimate.Center, hi.Share, hi.Estimate.Center)
			}
			found++
		}
	}
	t.Logf("two clusters of 5 processes, 10 and 21 µs: found in %d of %d cells", found, cells)
	if found < cells*9/10 {
		t.Errorf("found two clusters in %d of %d cells, want at least 90%%", found, cells)
	}
	// Closer than ModeMinRatio: one figure describes both well enough.
	var close []Process
	for i := range 10 {
		close = append(close, Process{Value: 10 * (1 + 0.3*float64(i%2)) * (1 + 0.001*float64(i))})
	}
	if c := Summarize(close).Clusters; c != nil {
		t.Errorf("clusters 1.3× apart reported: %+v", c)
	}
}

func TestDriftIsTestedOverProcesses(t *testing.T) {
	origin := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(25, 26))
	cell := func(k int, step float64) []Process {
		procs := make([]Process, k)
		for i := range procs {
			v := 30 * math.Exp(0.2*rng.NormFloat64())
			if i >= k/2 {
				v *= step
			}
			procs[i] = Process{Value: v, Start: origin.Add(time.Duration(i) * time.Second)}
		}
		return procs
	}
	for _, k := range []int{10, 20, 100} {
		steady, stepped := 0, 0
		const cells = 1000
		for range cells {
			if Summarize(cell(k, 1)).Drifted {
				steady++
			}
			if e := Summarize(cell(k, 3)); e.Drifted && e.Unstable() {
				stepped++
			}
		}
		t.Logf("%d processes: %.1f%% of steady cells and %.1f%% of cells tripling halfway said they drifted", k, 100*float64(steady)/cells, 100*float64(stepped)/cells)
		if float64(steady)/cells > 0.02 {
			t.Errorf("%d processes: %d of %d steady cells drifted, want about %.0f%%", k, steady, cells, 100*DriftAlpha)
		}
		if stepped < cells*9/10 {
			t.Errorf("%d processes: %d of %d cells that tripled halfway drifted, want nearly all", k, stepped, cells)
		}
	}
}

func TestProcessesForTheTarget(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	procs, _ := synthCell{median: 30, sigmaBetween: 0.3, sigmaWithin: 0.2}.draw(rng, 10, 50)
	e := Summarize(procs)
	m := e.ProcessesFor(0.10)
	if e.Precision <= 0.10 || m <= 10 {
		t.Fatalf("precision ±%.0f%% with 10 processes, %d for ±10%%; want wider than 10%% and more than 10", 100*e.Precision, m)
	}
	// Closed form check: m processes of the same winsorized variance give
	// that precision, m − 1 do not.
	at := func(k int) float64 {
		g := int(math.Floor(TrimFraction * float64(k)))
		h := float64(k - 2*g)
		return math.Sinh(tQuantile(h-1) * math.Sqrt(e.varW*float64(k-1)/(h*(h-1))))
	}
	if at(m) > 0.10 || at(m-1) <= 0.10 {
		t.Errorf("%d processes for ±10%%: precision %.4f there, %.4f with one fewer", m, at(m), at(m-1))
	}
	// A ten times smaller spread needs no more processes than it has.
	if e.ProcessesFor(1000) != 10 {
		t.Errorf("ProcessesFor(1000) = %d, want the cell's own 10", e.ProcessesFor(1000))
	}
}

func TestASmallModeMergesIntoItsNeighbour(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	// 73% near 11.8 µs, 27% near 30 µs, and two tail bumps of 0.06% and
	// 0.02% far out: the bumps must not veto the split.
	var logs []float64
	for i := range 10000 {
		v := 11.8 * math.Exp(0.1*rng.NormFloat64())
		switch {
		case i < 6:
			v = 700 * math.Exp(0.05*rng.NormFloat64())
		case i < 8:
			v = 200 * math.Exp(0.05*rng.NormFloat64())
		case i < 2700:
			v = 30 * math.Exp(0.12*rng.NormFloat64())
		}
		logs = append(logs, math.Log(v))
	}
	cuts := Modes(logs)
	if len(cuts) != 1 || math.Exp(cuts[0]) < 14 || math.Exp(cuts[0]) > 25 {
		t.Fatalf("cuts at %v µs, want one between the two regimes", expAll(cuts))
	}
	// A 5% bump alone is no regime.
	logs = logs[:0]
	for i := range 2000 {
		v := 20 * math.Exp(0.1*rng.NormFloat64())
		if i < 100 {
			v = 60 * math.Exp(0.1*rng.NormFloat64())
		}
		logs = append(logs, math.Log(v))
	}
	if cuts := Modes(logs); cuts != nil {
		t.Errorf("a 5%% bump split off at %v µs", expAll(cuts))
	}
}

func expAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Exp(x)
	}
	return out
}
