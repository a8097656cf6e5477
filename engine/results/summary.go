package results

import (
	"math"

	"spawnbench/engine/stats"
)

// summarize sets a process's Samples, FirstSpawnNS and TypicalSpawnNS
// from its spawn times in spawn order. It is the one place a process is
// reduced to one number (stats.Typical, rounded to the ns): reports and
// the runner's progress read the stored typical_spawn_ns for the
// all-spawns view, and compute other views with the same stats.Typical.
func summarize(run *ProcessRun, spawnNS []int64) {
	run.Samples = int32(len(spawnNS))
	run.FirstSpawnNS, run.TypicalSpawnNS = nil, nil
	if len(spawnNS) == 0 {
		return
	}
	v := make([]float64, len(spawnNS))
	for i, s := range spawnNS {
		v[i] = float64(s)
	}
	first, typical := spawnNS[0], int64(math.Round(stats.Typical(v)))
	run.FirstSpawnNS, run.TypicalSpawnNS = &first, &typical
}

// fillSummaries gives the runs of a set written before first_spawn_ns
// and typical_spawn_ns their summaries, from their samples.
func fillSummaries(s *Set) {
	type key struct {
		machine, env, mode string
		n, process         int32
		warmup             bool
	}
	missing := map[key]int{}
	for i, r := range s.Runs {
		if r.TypicalSpawnNS == nil && r.Samples > 0 {
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
		recorded := s.Runs[i].Samples
		summarize(&s.Runs[i], ns)
		s.Runs[i].Samples = recorded
	}
}
