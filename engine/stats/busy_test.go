package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	mstats "github.com/aclements/go-moremath/stats"
)

// TestBusyDespiteAHeavyTail: processes beside two CPU hogs read others'
// CPU at about 1.5 times their wall time, a few of them far more (they
// waited long for a CPU); no process saw an idle machine, so the cell is
// busy throughout, though the tail would widen any standard error. And
// on an idle machine one 10 ms tick that lands in one of ten 1 ms
// processes (a pooled share of 100%) is no busy cell.
func TestBusyDespiteAHeavyTail(t *testing.T) {
	var hogged []ProcessLoad
	for i := range 30 {
		p := ProcessLoad{WallNS: 4e6, OthersNS: 6e6, StealNS: 0, Figure: math.NaN()}
		if i%10 == 0 {
			p = ProcessLoad{WallNS: 20e6, OthersNS: 400e6, StealNS: 0, Figure: math.NaN()}
		}
		hogged = append(hogged, p)
	}
	if l := Busy(hogged); !l.Busy || !l.Throughout {
		t.Errorf("beside CPU hogs (others %.0f%% of wall time): %+v, want busy throughout", 100*l.OthersShare, l)
	}
	var idle []ProcessLoad
	for i := range 10 {
		p := ProcessLoad{WallNS: 1e6, OthersNS: 0, StealNS: 0, Figure: math.NaN()}
		if i == 3 {
			p.OthersNS = 10e6
		}
		idle = append(idle, p)
	}
	if l := Busy(idle); l.Busy {
		t.Errorf("one tick in ten 1 ms processes (others %.0f%% of wall time): busy", 100*l.OthersShare)
	}
}

// tickMachine simulates what /proc/stat says of the processes of one
// cell. Figures are drawn independently of any load (log-normal, or two
// placements 3× apart), and each process's wall time grows with its
// figure, as a slower process is a longer one. The machine's busy time
// is sampled at 250 Hz on each of its two CPUs (a tick charges a whole
// 4 ms to whatever runs) and its steal accrues exactly; each of a
// process's two readings of a counter rounds down to 10 ms. Others' CPU
// is the busy reading less the process's own CPU time, which is exact.
type tickMachine struct {
	// others and steal are the machine's load beside every process, in
	// CPUs and as a share of wall time; own is the process's own CPUs.
	others, steal, own float64
	// wallNS is the typical process's wall time.
	wallNS float64
	// bimodal draws figures from two placements instead of one peak.
	bimodal bool
	// bursts is how many bursts of other work a second arrive (each a
	// CPU for up to 20 ms): a long process catches more of them, a short
	// one catches one or none.
	bursts float64
}

// cell simulates k processes; load gives process i extra others' CPUs
// and a slowdown of its figure and wall time (0 and 1 for none).
func (m tickMachine) cell(rng *rand.Rand, k int, load func(i int) (cpus, slowdown float64)) []ProcessLoad {
	const sampleNS, tickNS = 4e6, 10e6
	read := func(ns float64) float64 { // the difference of two rounded readings
		start := rng.Float64() * tickNS
		return (math.Floor((start+ns)/tickNS) - math.Floor(start/tickNS)) * tickNS
	}
	figures := make([]float64, k)
	var sum float64
	for i := range figures {
		figures[i] = math.Exp(0.3 * rng.NormFloat64())
		if m.bimodal && rng.IntN(2) == 0 {
			figures[i] *= 3
		}
		sum += figures[i]
	}
	procs := make([]ProcessLoad, k)
	for i, y := range figures {
		extra, slowdown := 0.0, 1.0
		if load != nil {
			extra, slowdown = load(i)
		}
		y *= slowdown
		wall := m.wallNS * (0.3 + 0.7*y*float64(k)/sum)
		busyP := min(1, (m.own+m.others+extra)/2)
		samples := int(math.Floor(wall/sampleNS + rng.Float64()))
		busy := 0.0
		for range 2 * samples {
			if rng.Float64() < busyP {
				busy += sampleNS
			}
		}
		// Bursts that overlap [0, wall], arriving over [-20 ms, wall].
		const longestNS = 20e6
		for at := -longestNS + rng.ExpFloat64()/m.bursts*1e9; m.bursts > 0 && at < wall; at += rng.ExpFloat64() / m.bursts * 1e9 {
			busy += max(0, min(wall, at+rng.Float64()*longestNS)-max(0, at))
		}
		procs[i] = ProcessLoad{
			WallNS:   wall,
			OthersNS: read(busy) - m.own*wall,
			StealNS:  read(m.steal * wall * max(0, 1+0.3*rng.NormFloat64())),
			Figure:   y,
		}
	}
	return procs
}

// TestBusyNotForAUniformSteal: a hypervisor that steals 15% of every
// process's wall time, beside figures it does not move, is a number and
// no flag, whether the processes are short against a tick or long. (The
// share of 3 ms processes rests on a handful of ticks, so only the
// longer ones' is checked.)
func TestBusyNotForAUniformSteal(t *testing.T) {
	for _, wall := range []float64{3e6, 30e6, 300e6} {
		m := tickMachine{steal: 0.15, own: 1, wallNS: wall, bimodal: true}
		l := Busy(m.cell(rand.New(rand.NewPCG(1, uint64(wall))), 100, nil))
		if l.Busy || l.Tested != 100 || (wall > 3e6 && math.Abs(l.StealShare-0.15) > 0.03) {
			t.Errorf("uniform 15%% steal beside %.0f ms processes: %+v, want not busy with a steal share near 15%%", wall/1e6, l)
		}
	}
}

// TestBusyWhereALoadSlowsHalfTheProcesses: a CPU's worth of other work
// beside half of 100 processes, slowing them 1.5×, is busy by its
// effect, and the evidence says so with its numbers. (With 30 processes
// whose figures spread as these do, p < 0.001 is not reached every time:
// the bar is high on purpose.)
func TestBusyWhereALoadSlowsHalfTheProcesses(t *testing.T) {
	for _, wall := range []float64{30e6, 300e6} {
		m := tickMachine{steal: 0.1, own: 1, wallNS: wall}
		hit := func(i int) (float64, float64) {
			if i%2 == 0 {
				return 1, 1.5
			}
			return 0, 1
		}
		l := Busy(m.cell(rand.New(rand.NewPCG(2, uint64(wall))), 100, hit))
		if !l.Busy || !l.Rises || l.Throughout || l.Ratio < 1.3 || l.Tested != 100 {
			t.Errorf("a CPU hog beside half of %.0f ms processes, slowing them 1.5×: %+v, want busy by its effect", wall/1e6, l)
		}
	}
}

// TestBusyFalseAlarmsOnAnIdleMachine simulates cells whose figures no
// load moves, on idle and steadily loaded machines, with short and long
// processes, one placement or two, steady others' work or bursts: the
// rule may flag at most 0.1% of them. A rank test of figure against load
// share, the obvious test, flags several percent of the cells of short
// processes in two placements, because a short process reads a whole
// tick or none and a slower, longer one is likelier to read one: the
// simulation has the confound the rule must not fall for.
func TestBusyFalseAlarmsOnAnIdleMachine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cells, flagged := 0, 0
	confounded, naive := 0, 0
	for _, k := range []int{10, 30, 100} {
		for _, wall := range []float64{2e6, 10e6, 50e6, 300e6} {
			for _, m := range []tickMachine{
				{steal: 0.05, own: 1, bursts: 5},
				{others: 0.2, steal: 0.15, own: 0.5},
				{others: 0.05, steal: 0.3, own: 1.5, bimodal: true, bursts: 20},
				{steal: 0.15, own: 1, bimodal: true, bursts: 10},
			} {
				m.wallNS = wall
				for range 200 {
					procs := m.cell(rng, k, nil)
					cells++
					if l := Busy(procs); l.Busy {
						flagged++
					}
					if k == 100 && wall == 2e6 && m.bimodal {
						confounded++
						if spearmanP(procs) < BusyAlpha {
							naive++
						}
					}
				}
			}
		}
	}
	if float64(flagged) > 0.001*float64(cells) {
		t.Errorf("%d of %d cells whose figures no load moved flagged busy, want at most 0.1%%", flagged, cells)
	}
	if float64(naive) < 0.03*float64(confounded) {
		t.Errorf("a rank test of figure against load share flags %d of %d cells of short processes in two placements: the simulation lacks the tick confound", naive, confounded)
	}
	t.Logf("%d cells: %d flagged busy; of %d cells of short processes in two placements, a Spearman test flags %d", cells, flagged, confounded, naive)
}

// spearmanP is the one-sided p-value of Spearman's ρ between figure and
// load share, from the t approximation.
func spearmanP(procs []ProcessLoad) float64 {
	fig, share := make([]float64, len(procs)), make([]float64, len(procs))
	for i, p := range procs {
		fig[i], share[i] = p.Figure, (p.OthersNS+p.StealNS)/p.WallNS
	}
	a, b := midranks(fig), midranks(share)
	k := float64(len(procs))
	var saa, sbb, sab float64
	for i := range a {
		x, y := a[i]-(k+1)/2, b[i]-(k+1)/2
		saa, sbb, sab = saa+x*x, sbb+y*y, sab+x*y
	}
	rho := sab / math.Sqrt(saa*sbb)
	if rho >= 1 {
		return 0
	}
	tv := rho * math.Sqrt((k-2)/(1-rho*rho))
	return mstats.TDist{V: k - 2}.CDF(-tv)
}

// TestBusyThroughoutBesideAHog: a CPU's worth of other work beside every
// one of 30 processes moves no figure against another (they are all
// slowed), but no process saw an idle machine: busy throughout. (Beside
// 2 ms processes, whose readings are mostly no tick at all, it takes
// many more processes to show.)
func TestBusyThroughoutBesideAHog(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, wall := range []float64{20e6, 100e6} {
		m := tickMachine{others: 1, steal: 0.1, own: 1, wallNS: wall}
		if l := Busy(m.cell(rng, 30, nil)); !l.Throughout || !l.Busy || l.Rises {
			t.Errorf("a CPU hog beside every %.0f ms process: %+v, want busy throughout", wall/1e6, l)
		}
	}
}

// TestBusyEffectNeedsRankedFigures: the effect test wants ten processes
// or more with a figure, and figures that are not all tied; without them
// it says so (Tested 0) rather than a p-value.
func TestBusyEffectNeedsRankedFigures(t *testing.T) {
	m := tickMachine{others: 0.1, steal: 0.1, own: 1, wallNS: 100e6}
	procs := m.cell(rand.New(rand.NewPCG(7, 8)), 20, nil)
	if l := Busy(procs[:9]); l.Tested != 0 || !math.IsNaN(l.P) || !math.IsNaN(l.Rho) || !math.IsNaN(l.Ratio) {
		t.Errorf("9 processes: %+v, want no effect test", l)
	}
	for i := range procs {
		procs[i].Figure = 40e3
	}
	if l := Busy(procs); l.Tested != 0 || l.Busy {
		t.Errorf("every figure tied: %+v, want no effect test", l)
	}
	procs[3].Figure = math.NaN() // a failed process: load, no figure
	procs[4].Figure = 50e3
	if l := Busy(procs); l.Tested != 19 || math.IsNaN(l.P) {
		t.Errorf("one figure apart, one missing: %+v, want 19 processes tested", l)
	}
}
