package stats

import (
	"math"

	mstats "github.com/aclements/go-moremath/stats"
)

// Reduced is one process's spawns in one view (every spawn, or its last
// k), reduced to what a cell needs of the process.
type Reduced struct {
	// Spawns is the number of spawns.
	Spawns int
	// TypicalNS is the process as one number, its typical spawn: the
	// TrimFraction trimmed mean of its spawn times, rounded to the ns
	// (as runs.parquet stores it); NaN for no spawn.
	TypicalNS float64
	// LogVar is the variance of the logarithms of its spawn times (one of
	// 0 ns or less counts as 1 ns): the within-process level of the
	// variance components (Process.SpawnVar); NaN for fewer than two.
	LogVar float64
}

// ReduceSpawns reduces one process's spawn times (ns, in spawn order). It
// is the one place a process becomes a figure: the result set stores
// what it gives every spawn (typical_spawn_ns, spawn_log_var), and a
// report reduces a view's spawns with it.
func ReduceSpawns(spawnNS []int64) Reduced {
	r := Reduced{Spawns: len(spawnNS), TypicalNS: math.NaN(), LogVar: math.NaN()}
	if len(spawnNS) == 0 {
		return r
	}
	v := make([]float64, len(spawnNS))
	logs := make([]float64, len(spawnNS))
	for i, s := range spawnNS {
		v[i] = float64(s)
		logs[i] = math.Log(max(v[i], 1))
	}
	r.TypicalNS = math.Round(Typical(v))
	if len(v) >= 2 {
		r.LogVar = mstats.Variance(logs)
	}
	return r
}
