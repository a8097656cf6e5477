package results

import (
	"math"

	"spawnbench/engine/stats"
)

// Summarize sets the run's Samples, FirstSpawnNS, TypicalSpawnNS and
// SpawnLogVar from its spawn times in spawn order, by stats.ReduceSpawns:
// the process is reduced once, when it is written (Writer.Process), and
// reports and the runner read what is stored for the all-spawns view; a
// view of fewer spawns is reduced by the same function.
func (r *ProcessRun) Summarize(spawnNS []int64) {
	r.Samples = int32(len(spawnNS))
	r.FirstSpawnNS, r.TypicalSpawnNS, r.SpawnLogVar = nil, nil, nil
	if len(spawnNS) == 0 {
		return
	}
	red := stats.ReduceSpawns(spawnNS)
	first, typical := spawnNS[0], int64(red.TypicalNS)
	r.FirstSpawnNS, r.TypicalSpawnNS = &first, &typical
	if !math.IsNaN(red.LogVar) {
		r.SpawnLogVar = &red.LogVar
	}
}

// TypicalUS is the run's stored typical spawn in µs, the figure of the
// all-spawns view; NaN for a process without one.
func (r *ProcessRun) TypicalUS() float64 {
	if r.TypicalSpawnNS == nil {
		return math.NaN()
	}
	return float64(*r.TypicalSpawnNS) / 1e3
}

// fillSummaries gives the runs of a set written before first_spawn_ns,
// typical_spawn_ns or spawn_log_var what they lack, from their samples,
// by Summarize; what a run stores stays as stored.
func fillSummaries(s *Set) {
	type key struct {
		machine, env, mode string
		n, process         int32
		warmup             bool
	}
	missing := map[key]int{}
	for i, r := range s.Runs {
		if (r.TypicalSpawnNS == nil && r.Samples > 0) || (r.SpawnLogVar == nil && r.Samples > 1) {
			missing[key{r.Machine, r.Environment, r.Mode, r.N, r.Process, r.Warmup}] = i
		}
	}
	if len(missing) == 0 {
		return
	}
	spawns := map[int][]int64{} // by run index, in thread order
	for _, smp := range s.Samples {
		if i, ok := missing[key{smp.Machine, smp.Environment, smp.Mode, smp.N, smp.Process, smp.Warmup}]; ok {
			if t := int(smp.Thread); t >= len(spawns[i]) {
				spawns[i] = append(spawns[i], make([]int64, t+1-len(spawns[i]))...)
			}
			spawns[i][smp.Thread] = smp.SpawnNS
		}
	}
	for i, ns := range spawns {
		r := &s.Runs[i]
		var filled ProcessRun
		filled.Summarize(ns)
		if r.TypicalSpawnNS == nil {
			r.FirstSpawnNS, r.TypicalSpawnNS = filled.FirstSpawnNS, filled.TypicalSpawnNS
		}
		if r.SpawnLogVar == nil {
			r.SpawnLogVar = filled.SpawnLogVar
		}
	}
}
