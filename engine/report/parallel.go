package report

import (
	"math"

	"spawnbench/engine/stats"
)

// Parallel mode creates all n threads, then joins them. Where a thread
// starts as fast as it is created (native, wasi-threads), each spawn's
// time is its own start-up; where every thread needs a worker and the
// workers start one after another (the browsers), the k-th spawn's time
// is mostly the wait behind the k − 1 before it, so its median grows with
// n by construction and says little per thread. The report therefore
// adds, per process, three quantities that do not grow with n that way:
//
//   - the first thread's latency (spawn 0, which waits behind nothing);
//   - the makespan: from the first pthread_create to the last child's
//     first clock reading;
//   - the start rate: n divided by the makespan.
//
// The benchmarks print each spawn relative to its own create, not to the
// first, so a child's start on the common time line is rebuilt from the
// create times: the parallel loop calls the next create right after the
// previous one returns (c/parallel.c, manual/spawn.mjs), so spawn i's
// create began about Σ_{j<i} create_ns_j after the first. That sum leaves
// out the loop's own work between creates (a clock reading and a branch
// natively, a promise in JavaScript), so the makespan is a lower bound,
// short by about n × that work: under a percent for the n and hosts here.
// The share of threads that started only after the create loop had
// ended says how much of a cell is queue.

// ParallelProcess is one parallel-mode process, rebuilt from its spawns.
type ParallelProcess struct {
	Process int32 `json:"process"`
	// FirstUS is spawn 0's time, MakespanUS the last child's start after
	// the first create, both µs.
	FirstUS    float64 `json:"first_us"`
	MakespanUS float64 `json:"makespan_us"`
	// AfterLoop is the share of threads whose child started after the
	// create loop had ended.
	AfterLoop float64 `json:"after_loop"`
}

// ParallelStats are a parallel cell's per-process quantities, each
// estimated over processes as every figure is.
type ParallelStats struct {
	First    Estimate `json:"first_thread"`
	Makespan Estimate `json:"makespan"`
	// StartsPerSecond is n over the typical makespan.
	StartsPerSecond Float `json:"starts_per_second"`
	// AfterLoop is the median over processes of their after-loop share.
	AfterLoop Float `json:"after_loop_share"`
	// Processes are the rebuilt processes.
	Processes []ParallelProcess `json:"processes"`
	// MakespanRatio divides the makespan by the baseline's in the same
	// (mode, n, view); nil for the baseline and where it has none.
	MakespanRatio *Ratio `json:"makespan_ratio,omitempty"`
}

// makespanRatios sets each parallel cell's MakespanRatio.
func (r *Report) makespanRatios() {
	for i := range r.Cells {
		c := &r.Cells[i]
		p := c.Parallel
		if p == nil || c.Environment == r.Baseline {
			continue
		}
		base := r.Cell(r.Baseline, c.Mode, c.Column)
		if base == nil || base.Parallel == nil {
			continue
		}
		q, lo, hi := ratioEstimate(&p.Makespan, &base.Parallel.Makespan)
		p.MakespanRatio = &Ratio{Environment: c.Environment, Baseline: r.Baseline, Mode: c.Mode, Column: c.Column,
			Ratio: Float(q), Low: Float(lo), High: Float(hi),
			Processes: p.Makespan.Processes, BaselineProcesses: base.Parallel.Makespan.Processes}
	}
}

// parallelOf rebuilds the parallel quantities of one cell's all-spawns
// view; nil when a process lacks create times (or has no spawn).
func parallelOf(n int32, procs []process) *ParallelStats {
	if len(procs) == 0 {
		return nil
	}
	rebuilt := make([]ParallelProcess, len(procs))
	for i, p := range procs {
		var offset, makespan float64
		starts := make([]float64, len(p.Spawns))
		for j, s := range p.Spawns {
			if s.CreateNS == nil {
				return nil
			}
			starts[j] = offset + float64(s.SpawnNS)
			makespan = max(makespan, starts[j])
			offset += float64(*s.CreateNS)
		}
		after := 0
		for _, t := range starts {
			if t > offset {
				after++
			}
		}
		rebuilt[i] = ParallelProcess{Process: p.Run.Process, FirstUS: float64(p.Spawns[0].SpawnNS) / 1e3,
			MakespanUS: makespan / 1e3, AfterLoop: float64(after) / float64(len(p.Spawns))}
	}
	first := make([]ProcessSummary, len(procs))
	span := make([]ProcessSummary, len(procs))
	after := make([]float64, len(procs))
	for i, p := range rebuilt {
		first[i] = summary(procs[i].Run, 1, p.FirstUS, math.NaN())
		span[i] = summary(procs[i].Run, int(n), p.MakespanUS, math.NaN())
		after[i] = p.AfterLoop
	}
	st := &ParallelStats{First: *estimate(first), Makespan: *estimate(span), AfterLoop: Float(stats.Median(after)), Processes: rebuilt}
	if m := float64(st.Makespan.TypicalUS); m > 0 {
		st.StartsPerSecond = Float(float64(n) / (m / 1e6))
	} else {
		st.StartsPerSecond = Float(math.NaN())
	}
	return st
}
