package run

import "spawnbench/engine/results"

// measuredCell is what a set holds of one cell on one machine: its
// measured runs (warm-ups excluded) and the samples of those that ended
// ok, which is what its figure is computed from.
type measuredCell struct {
	runs    []results.ProcessRun
	samples []results.SpawnSample
}

// measuredCells gathers the set's cells by key, and the keys in the order
// their first runs appear; machine "" takes every machine's runs, and
// only "" every cell (else the one cell of that key: progress asks after
// each cell, and a set holds millions of samples).
func measuredCells(set *results.Set, machine, only string) (map[string]*measuredCell, []string) {
	cells := map[string]*measuredCell{}
	var keys []string
	ok := map[processKey]bool{}
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
		ok[processKey{k, int(r.Process), false}] = r.Status == results.StatusOK
	}
	for _, s := range set.Samples {
		if s.Warmup || (machine != "" && s.Machine != machine) {
			continue
		}
		k := results.CellKey(s.Environment, s.Mode, int64(s.N))
		if ok[processKey{k, int(s.Process), false}] { // false for cells not gathered
			cells[k].samples = append(cells[k].samples, s)
		}
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
