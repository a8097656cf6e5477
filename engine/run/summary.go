package run

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"spawnbench/engine/results"
)

// Summary is the short table printed after a run: per cell, processes by
// status, measured samples and median spawn time. Full statistics are the
// report's job.
func Summary(set *results.Set) string {
	type key struct {
		env, mode string
		n         int32
	}
	type cell struct {
		statuses map[string]int
		spawns   []int64
		order    int
	}
	cells := map[key]*cell{}
	get := func(k key) *cell {
		c, ok := cells[k]
		if !ok {
			c = &cell{statuses: map[string]int{}, order: len(cells)}
			cells[k] = c
		}
		return c
	}
	for _, r := range set.Runs {
		if !r.Warmup {
			get(key{r.Environment, r.Mode, r.N}).statuses[r.Status]++
		}
	}
	for _, s := range set.Samples {
		if !s.Warmup {
			c := get(key{s.Environment, s.Mode, s.N})
			c.spawns = append(c.spawns, s.SpawnNS)
		}
	}
	keys := make([]key, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return cells[keys[i]].order < cells[keys[j]].order })
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ENVIRONMENT\tMODE\tN\tPROCESSES\tSAMPLES\tMEDIAN µs\t")
	for _, k := range keys {
		c := cells[k]
		var st []string
		for s, n := range c.statuses {
			st = append(st, fmt.Sprintf("%d %s", n, s))
		}
		sort.Strings(st)
		med := "n/a"
		if len(c.spawns) > 0 {
			sort.Slice(c.spawns, func(i, j int) bool { return c.spawns[i] < c.spawns[j] })
			med = fmt.Sprintf("%.1f", float64(c.spawns[len(c.spawns)/2])/1e3)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%s\t\n", k.env, k.mode, k.n, strings.Join(st, ", "), len(c.spawns), med)
	}
	tw.Flush()
	return b.String()
}
