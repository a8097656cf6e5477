package results

import (
	"fmt"

	"spawnbench/engine/inputerr"
)

// CheckUnique refuses a set that holds one spawn or one process twice:
// one (machine, environment, mode, n, process, thread) measured twice
// would be counted twice, and no statistic could say which run it came
// from. name is how the message names the set (its directory). It is
// the one check, made by Read, Merge and the reports alike.
func CheckUnique(name string, s *Set) error {
	type sampleKey struct {
		machine, env, mode string
		n, process, thread int32
		warmup             bool
	}
	seen := make(map[sampleKey]bool, len(s.Samples))
	for _, x := range s.Samples {
		k := sampleKey{x.Machine, x.Environment, x.Mode, x.N, x.Process, x.Thread, x.Warmup}
		if seen[k] {
			return duplicateError(name, x.Machine, x.Environment, x.Mode, x.N, fmt.Sprintf("spawn (process %d, thread %d)", x.Process, x.Thread), x.Warmup)
		}
		seen[k] = true
	}
	type runKey struct {
		machine, env, mode string
		n, process         int32
		warmup             bool
	}
	runs := make(map[runKey]bool, len(s.Runs))
	for _, x := range s.Runs {
		k := runKey{x.Machine, x.Environment, x.Mode, x.N, x.Process, x.Warmup}
		if runs[k] {
			return duplicateError(name, x.Machine, x.Environment, x.Mode, x.N, fmt.Sprintf("process %d", x.Process), x.Warmup)
		}
		runs[k] = true
	}
	return nil
}

func duplicateError(name, machine, env, mode string, n int32, what string, warmup bool) error {
	if warmup {
		what = "warm-up " + what
	}
	on := ""
	if machine != "" {
		on = " (machine " + machine + ")"
	}
	return inputerr.New("%s holds cell %s twice%s: its %s appears more than once (duplicate (machine, environment, mode, n, process, thread) keys). "+
		"The cell was measured twice into one directory; no statistic can tell the runs apart. Re-measure it into a fresh directory (spawnbench run SPEC -o NEWDIR)",
		name, CellKey(env, mode, int64(n)), on, what)
}
