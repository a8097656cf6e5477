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
	type runKey struct {
		machine, env, mode string
		n, process         int32
		warmup             bool
	}
	// A spawn is its process's thread: one set of thread numbers a
	// process, not a map of every spawn's whole key (twelve times the
	// time on results/sequential). A process's spawns are neighbouring
	// rows, so its set is looked up once for them.
	threads := map[runKey]*threadSet{}
	var last runKey
	var in *threadSet
	for _, x := range s.Samples {
		k := runKey{x.Machine, x.Environment, x.Mode, x.N, x.Process, x.Warmup}
		if in == nil || k != last {
			if last, in = k, threads[k]; in == nil {
				in = &threadSet{}
				threads[k] = in
			}
		}
		if !in.add(x.Thread) {
			return duplicateError(name, x.Machine, x.Environment, x.Mode, x.N, fmt.Sprintf("spawn (process %d, thread %d)", x.Process, x.Thread), x.Warmup)
		}
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

// threadSet is the thread numbers of one process's spawns: a bit a
// thread up to maxThreadBit (n is at most a few thousand), a map past it.
type threadSet struct {
	bits  []uint64
	other map[int32]bool
}

const maxThreadBit = 1 << 20

// add adds thread to the set; false when it was there already.
func (s *threadSet) add(thread int32) bool {
	if thread < 0 || thread >= maxThreadBit {
		if s.other == nil {
			s.other = map[int32]bool{}
		}
		if s.other[thread] {
			return false
		}
		s.other[thread] = true
		return true
	}
	word, bit := int(thread)/64, uint64(1)<<(uint(thread)%64)
	if word >= len(s.bits) {
		s.bits = append(s.bits, make([]uint64, word+1-len(s.bits))...)
	}
	if s.bits[word]&bit != 0 {
		return false
	}
	s.bits[word] |= bit
	return true
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
