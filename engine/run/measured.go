package run

import (
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
