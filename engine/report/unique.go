package report

import (
	"fmt"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
)

// checkUnique refuses a set that holds one spawn or one process twice: the
// same (environment, mode, n, process, thread) measured twice would be
// counted twice, and no statistic could say which run it came from.
func checkUnique(dir string, s *results.Set) error {
	type sampleKey struct {
		env, mode       string
		n               int32
		process, thread int32
		warmup          bool
	}
	seen := make(map[sampleKey]bool, len(s.Samples))
	for _, x := range s.Samples {
		k := sampleKey{x.Environment, x.Mode, x.N, x.Process, x.Thread, x.Warmup}
		if seen[k] {
			return duplicateError(dir, x.Environment, x.Mode, x.N, fmt.Sprintf("spawn (process %d, thread %d)", x.Process, x.Thread), x.Warmup)
		}
		seen[k] = true
	}
	type runKey struct {
		env, mode string
		n         int32
		process   int32
		warmup    bool
	}
	runs := make(map[runKey]bool, len(s.Runs))
	for _, x := range s.Runs {
		k := runKey{x.Environment, x.Mode, x.N, x.Process, x.Warmup}
		if runs[k] {
			return duplicateError(dir, x.Environment, x.Mode, x.N, fmt.Sprintf("process %d", x.Process), x.Warmup)
		}
		runs[k] = true
	}
	return nil
}

func duplicateError(dir, env, mode string, n int32, what string, warmup bool) error {
	if warmup {
		what = "warm-up " + what
	}
	return &inputerr.Error{Msg: fmt.Sprintf("%s holds cell %s/%s/%d twice: its %s appears more than once (duplicate (environment, mode, n, process, thread) keys). "+
		"The cell was measured twice into one directory; no statistic can tell the runs apart. Re-measure it into a fresh directory (spawnbench run SPEC -o NEWDIR)",
		dir, env, mode, n, what)}
}
