package report

import (
	"math"
	"math/rand/v2"
	"testing"

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

// grouped groups samples by process as a cell's group does (byProcess),
// each process summarized as when it is written; values are their spawn
// times in µs, process after process.
func grouped(t *testing.T, samples []results.SpawnSample) (procs []process, values []float64) {
	t.Helper()
	g := &Group{Samples: samples}
	spawns := map[int32][]int64{}
	var order []int32
	for _, s := range samples {
		if _, ok := spawns[s.Process]; !ok {
			order = append(order, s.Process)
		}
		spawns[s.Process] = append(spawns[s.Process], s.SpawnNS)
	}
	for _, p := range order {
		run := results.ProcessRun{Process: p, Status: results.StatusOK}
		run.Summarize(spawns[p])
		g.Runs = append(g.Runs, run)
	}
	if err := g.byProcess("test", CellKey{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range spawnsOf(g.Procs) {
		values = append(values, float64(s.SpawnNS)/1e3)
	}
	return g.Procs, values
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
	regimes := func(s []results.SpawnSample) []Regime { return regimesOf(grouped(t, s)) }
	r := regimes(cell(0.4, 5))
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
	if r := regimes(one); r != nil {
		t.Errorf("a skewed single regime split into %+v", r)
	}
	// A 5% bump is not a regime.
	if r := regimes(cell(0.05, 5)); r != nil {
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
	procs, _ := grouped(t, s)
	st := parallelOf(n, procs)
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
	fastProcs, _ := grouped(t, fast)
	if st := parallelOf(n, fastProcs); st.AfterLoop != 0 || math.Abs(float64(st.Makespan.TypicalUS)-((n-1)*10+5)) > 1e-6 {
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
	procs, _ := grouped(t, s)
	got := placementsOf(procs, len(s))
	if len(got) != 2 || got[0].Placement != results.SameCPU || math.Abs(float64(got[0].Share)-0.8) > 1e-9 ||
		math.Abs(float64(got[0].TypicalUS)-10) > 1e-9 || math.Abs(float64(got[1].TypicalUS)-30) > 1e-9 || got[1].Processes != 6 {
		t.Errorf("placements %+v, want 80%% same-cpu at 10 µs and 20%% other-cpu at 30 µs over 6 processes", got)
	}
	for i := range s {
		s[i].ParentCPU, s[i].ChildCPU = nil, nil
	}
	procs, _ = grouped(t, s)
	if got := placementsOf(procs, len(s)); got != nil {
		t.Errorf("unknown placements gave %+v, want none", got)
	}
}
