package reporttest

import (
	"math"
	"math/rand/v2"
	"strings"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/results"
)

// TracedEnv describes one environment of a traced set: how its spawns
// split into the four parts (before the new task, the kernel's, the
// scheduler's, in the new thread), µs, at the first spawn and after it.
type TracedEnv struct {
	Name, Kind, Payload, Host, Family string
	// First and Steady are the parts' medians at a process's first spawn
	// and at its later ones.
	First, Steady [4]float64
	// NoThreadAfter is the spawn number from which the host makes no new
	// OS thread (a reused worker); 0 for one on every spawn, and
	// NoThread true for none at all (goroutines).
	NoThreadAfter int
	NoThread      bool
	// RecordsCPUs is true for a host that records parent_cpu and
	// child_cpu; OtherCPUShare is the share of its children the
	// scheduler starts on another CPU when free, and OtherCPUWakeUS what
	// waking that CPU adds to the scheduler's part.
	RecordsCPUs    bool
	OtherCPUShare  float64
	OtherCPUWakeUS float64
	// OneCPU measures it pinned too, as the spec's placement block does
	// (NAME@one-cpu).
	OneCPU bool
	// Phases are the host's own phases in the new thread and
	// PhaseShares each one's share of that part, as a host that times
	// them (the embedded Wasmtime) records them in traced spawns: the
	// last ends at the child's first clock reading.
	Phases      []string
	PhaseShares []float64
}

// TracingCostUS is what tracing adds to the kernel's part of every
// traced spawn in the fixture: the tracepoints' own work.
const TracingCostUS = 1.5

// TracedEnvs are the fixture's hosts, their parts shaped as the issue's
// hosts are: native's and the embedded host's OS threads (the latter's
// runtime work before and in the new thread), wazero's goroutines (no
// new OS thread), Emscripten's reused worker (a new OS thread at the
// first spawn only, its bootstrap in the new thread).
var TracedEnvs = []TracedEnv{
	{Name: "native", Kind: "native", Payload: "native", Host: "os", Family: "native",
		First: [4]float64{9, 6, 4, 20}, Steady: [4]float64{1.5, 2.5, 3.5, 0.85},
		RecordsCPUs: true, OtherCPUShare: 0.7, OtherCPUWakeUS: 25, OneCPU: true},
	{Name: "wasi-threads", Kind: "wasi-threads", Payload: "wasi-freestanding", Host: "wasmtime", Family: "Wasmtime",
		First: [4]float64{30, 6, 4, 48}, Steady: [4]float64{9, 2.6, 3.5, 5.5},
		RecordsCPUs: true, OtherCPUShare: 0.9, OtherCPUWakeUS: 25, OneCPU: true,
		Phases:      []string{hostfacts.PhaseThreadStart, hostfacts.PhaseStore, hostfacts.PhaseInstance, hostfacts.PhaseGuestEntry},
		PhaseShares: []float64{0.1, 0.2, 0.6, 0.1}},
	{Name: "wazero", Kind: "wazero", Payload: "wasi-freestanding", Host: "wazero", Family: "wazero",
		First: [4]float64{200, 0, 0, 180}, Steady: [4]float64{12, 0, 0, 9}, NoThread: true},
	{Name: "emscripten", Kind: "emscripten", Payload: "emscripten", Host: "node", Family: "Emscripten",
		First: [4]float64{2000, 30, 10, 25000}, Steady: [4]float64{20, 0, 0, 13}, NoThreadAfter: 1},
}

// TracedSet is a sequential set of TracedEnvs at n = 1 (12 processes a
// cell) and n = 100 (8), each environment beside its traced twin
// (NAME@traced, and NAME@one-cpu@traced for a pinned one), as the spec's
// anatomy block measures them. Every spawn's time is the sum of its
// parts; a traced twin's spawns carry the kernel's events (task_new_ns,
// task_wakeup_ns, task_first_run_ns, task_first_cpu, new_os_thread), and
// the embedded host's its phases in the new thread, and cost
// TracingCostUS more in the kernel.
func TracedSet() *results.Set {
	s := &results.Set{Provenance: Provenance("", "")}
	for i, e := range TracedEnvs {
		names := []string{e.Name}
		if e.OneCPU {
			names = append(names, e.Name+"@one-cpu")
		}
		for _, name := range names {
			for _, traced := range []bool{false, true} {
				env := name
				if traced {
					env += "@traced"
				}
				for _, n := range []int32{1, 100} {
					addTracedCell(s, e, env, n, uint64(i)*100+uint64(n), traced, strings.Contains(env, "@one-cpu"))
				}
			}
		}
	}
	return s
}

// addTracedCell adds one cell of e, named env, to s.
func addTracedCell(s *results.Set, e TracedEnv, env string, n int32, seed uint64, traced, pinned bool) {
	processes := 12
	if n > 1 {
		processes = 8
	}
	gen := func(p, t int) spawnParts { return tracedSpawn(e, seed, p, t, traced, pinned) }
	from, fromRuns := len(s.Samples), len(s.Runs)
	AddCell(s, Cell{Env: env, Mode: "sequential", N: n, Processes: processes,
		SpawnNS: func(p, t int) int64 { return gen(p, t).spawnNS() }})
	for i := fromRuns; i < len(s.Runs); i++ {
		r := &s.Runs[i]
		r.Kind, r.Payload, r.Host, r.Family, r.Traced, r.Placement = e.Kind, e.Payload, e.Host, e.Family, traced && !r.Warmup, "free"
		if pinned {
			r.Placement, r.PlacementOf, r.CPUs = "one-cpu", e.Name, results.CPUList{0}
		}
	}
	for i := from; i < len(s.Samples); i++ {
		smp := &s.Samples[i]
		smp.Kind, smp.Payload, smp.Host = e.Kind, e.Payload, e.Host
		if smp.Warmup {
			continue
		}
		sp := gen(int(smp.Process), int(smp.Thread))
		if e.RecordsCPUs {
			parent, child := int32(0), sp.cpu
			smp.ParentCPU, smp.ChildCPU = &parent, &child
		}
		if !traced {
			continue
		}
		made := sp.newThread
		smp.NewOSThread = &made
		if made {
			newNS, wake, run, cpu := sp.parts[0], sp.parts[0]+sp.parts[1], sp.parts[0]+sp.parts[1]+sp.parts[2], sp.cpu
			smp.TaskNewNS, smp.TaskWakeupNS, smp.TaskFirstRunNS, smp.TaskFirstCPU = &newNS, &wake, &run, &cpu
			smp.Phases = phasesOf(e, run, sp.parts[3])
		}
	}
}

// phasesOf are e's phases of a spawn whose new task first ran at run
// and spent inThread ns in it, ns after the spawn's start; the last ends
// where that part does.
func phasesOf(e TracedEnv, run, inThread int64) []results.Phase {
	if len(e.Phases) == 0 {
		return nil
	}
	out := make([]results.Phase, len(e.Phases))
	share := 0.0
	for i, name := range e.Phases {
		share += e.PhaseShares[i]
		out[i] = results.Phase{Name: name, EndNS: run + int64(share*float64(inThread))}
	}
	out[len(out)-1].EndNS = run + inThread
	return out
}

// spawnParts is one spawn as the fixture makes it: its parts, ns, and
// where its child first ran.
type spawnParts struct {
	parts     [4]int64
	cpu       int32
	newThread bool
}

func (sp spawnParts) spawnNS() int64 { return sp.parts[0] + sp.parts[1] + sp.parts[2] + sp.parts[3] }

// tracedSpawn draws spawn t of process p: each part lognormal around its
// median with a spread of its own process's and spawn's, the scheduler's
// part the longer where the child woke another CPU.
func tracedSpawn(e TracedEnv, seed uint64, p, t int, traced, pinned bool) spawnParts {
	proc := rand.New(rand.NewPCG(seed, uint64(p)))
	procFactor := math.Exp(0.1 * proc.NormFloat64())
	rng := rand.New(rand.NewPCG(seed, uint64(p)<<32|uint64(t)|1<<63))
	medians := e.Steady
	if t == 0 {
		medians = e.First
	}
	sp := spawnParts{newThread: !e.NoThread && (e.NoThreadAfter == 0 || t < e.NoThreadAfter)}
	if !pinned && e.RecordsCPUs && rng.Float64() < e.OtherCPUShare {
		sp.cpu = 1
		medians[2] += e.OtherCPUWakeUS
	}
	if traced && sp.newThread {
		medians[1] += TracingCostUS
	}
	for i, m := range medians {
		sp.parts[i] = int64(1e3 * m * procFactor * math.Exp(0.15*rng.NormFloat64()))
	}
	return sp
}
