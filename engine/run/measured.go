package run

import (
	"slices"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// measuredCell is what a set holds of one cell on one machine: its
// measured runs (warm-ups excluded). Each run carries its process's
// typical spawn (typical_spawn_ns), which is all a cell's figure needs.
type measuredCell struct {
	runs []results.ProcessRun
}

// measuredCells gathers the set's cells by key, and the keys in the order
// their first runs appear; machine "" takes every machine's runs, and
// only "" every cell (else the one cell of that key).
func measuredCells(set *results.Set, machine, only string) (map[string]*measuredCell, []string) {
	cells := map[string]*measuredCell{}
	var keys []string
	for _, r := range set.Runs {
		if r.Warmup || (machine != "" && r.Machine != machine) {
			continue
		}
		k := results.CellKey(r.Environment, r.Mode, int64(r.N))
		if only != "" && k != only {
			continue
		}
		c := cells[k]
		if c == nil {
			c = &measuredCell{}
			cells[k] = c
			keys = append(keys, k)
		}
		c.runs = append(c.runs, r)
	}
	return cells, keys
}

// statuses counts the cell's runs by status.
func (c *measuredCell) statuses() map[string]int {
	out := map[string]int{}
	for _, r := range c.runs {
		out[r.Status]++
	}
	return out
}

// estimate is the cell's all-spawns figure over its ok processes
// (stats.Summarize of their typical spawns, µs); nil for none.
func (c *measuredCell) estimate() *stats.Estimate {
	var procs []stats.Process
	for _, r := range c.runs {
		if r.Status == results.StatusOK && r.TypicalSpawnNS != nil {
			procs = append(procs, stats.Process{Value: r.TypicalUS(), Start: r.StartedAt, Occasion: int(r.Occasion)})
		}
	}
	return stats.Summarize(procs)
}

// lastEstimate is the cell's figure over the last k spawns of each of its
// ok processes (the steady state's view), from the set's samples; nil
// for none.
func (c *measuredCell) lastEstimate(set *results.Set, k int) *stats.Estimate {
	if len(c.runs) == 0 {
		return nil
	}
	type proc struct {
		machine string
		process int32
	}
	ok := map[proc]results.ProcessRun{}
	for _, r := range c.runs {
		if r.Status == results.StatusOK {
			ok[proc{r.Machine, r.Process}] = r
		}
	}
	first := c.runs[0]
	spawns := map[proc][]results.SpawnSample{}
	for _, s := range set.Samples {
		if s.Warmup || s.Environment != first.Environment || s.Mode != first.Mode || s.N != first.N {
			continue
		}
		if _, isOK := ok[proc{s.Machine, s.Process}]; isOK {
			spawns[proc{s.Machine, s.Process}] = append(spawns[proc{s.Machine, s.Process}], s)
		}
	}
	var procs []stats.Process
	for p, ss := range spawns {
		// The set keeps a process's spawns in spawn order; sorting by
		// thread makes that a property of this code, not of the writer.
		slices.SortFunc(ss, func(a, b results.SpawnSample) int { return int(a.Thread - b.Thread) })
		ns := make([]int64, 0, k)
		for _, s := range ss[max(0, len(ss)-k):] {
			ns = append(ns, s.SpawnNS)
		}
		red := stats.ReduceSpawns(ns)
		run := ok[p]
		procs = append(procs, stats.Process{Value: red.TypicalNS / 1e3, Start: run.StartedAt, Occasion: int(run.Occasion)})
	}
	// Map order is random; the drift test reads processes in start order.
	slices.SortFunc(procs, func(a, b stats.Process) int { return a.Start.Compare(b.Start) })
	return stats.Summarize(procs)
}

// samples counts the spawns of the cell's ok processes.
func (c *measuredCell) samples() int {
	k := 0
	for _, r := range c.runs {
		if r.Status == results.StatusOK {
			k += int(r.Samples)
		}
	}
	return k
}
