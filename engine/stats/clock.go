package stats

import "slices"

// ClockCouldMove applies ClockRule to one cell: whether the processes
// holding its untrusted clock samples (tainted, beside procs) could move
// its figure e outside e's interval. Each such process is dropped, or set
// to the lowest or to the highest process value of the cell, all at
// once: whatever the untrusted samples hid, a process's value cannot
// leave the range the cell's trusted processes span by more than that
// without the rest of its spawns saying so. A cell without an interval
// could move wherever it holds an untrusted sample.
func ClockCouldMove(procs []Process, tainted []bool, e *Estimate) bool {
	if e == nil || !slices.Contains(tainted, true) {
		return false
	}
	if !e.Judged() {
		return true
	}
	lowest, highest := procs[0].Value, procs[0].Value
	for _, p := range procs {
		lowest, highest = min(lowest, p.Value), max(highest, p.Value)
	}
	outside := func(moved []Process) bool {
		m := Summarize(moved)
		return m == nil || m.Center < e.Low || m.Center > e.High
	}
	for _, set := range []func(Process) (Process, bool){
		func(p Process) (Process, bool) { return p, false },
		func(p Process) (Process, bool) { p.Value = lowest; return p, true },
		func(p Process) (Process, bool) { p.Value = highest; return p, true },
	} {
		var moved []Process
		for i, p := range procs {
			if !tainted[i] {
				moved = append(moved, p)
			} else if q, keep := set(p); keep {
				moved = append(moved, q)
			}
		}
		if outside(moved) {
			return true
		}
	}
	return false
}
