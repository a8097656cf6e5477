package run

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
	"spawnbench/engine/textfmt"
)

// Summary is the short table printed after a run: per cell, processes by
// status, measured samples of ok processes and the cell's typical spawn
// time over its processes with its interval, as the report computes it.
// Everything else is the report's job.
func Summary(set *results.Set) string {
	cells, keys := measuredCells(set, "", "")
	// Rows in plan order (as the invocations planned them), not in the
	// interleaved order in which cells happened to be measured.
	rank := map[string]int{}
	for _, inv := range set.Provenance.Invocations {
		for _, c := range inv.Planned {
			if _, ok := rank[c.Key()]; !ok {
				rank[c.Key()] = len(rank)
			}
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		ri, oki := rank[keys[i]]
		rj, okj := rank[keys[j]]
		if oki != okj {
			return oki
		}
		return ri < rj
	})
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "ENVIRONMENT\tMODE\tN\tPROCESSES\tSAMPLES\tTYPICAL SPAWN [95% CI] (OK PROCESSES)\t")
	for _, k := range keys {
		c := cells[k]
		var st []string
		for s, n := range c.statuses() {
			st = append(st, fmt.Sprintf("%d %s", n, s))
		}
		sort.Strings(st)
		typical := textfmt.Estimate(c.estimate())
		parts := strings.Split(k, "/")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t\n", parts[0], parts[1], parts[2], strings.Join(st, ", "), c.samples(), typical)
	}
	tw.Flush()
	return b.String()
}

// BusyCell is a cell the busy rule flags, with the evidence.
type BusyCell struct {
	Key  string
	Load stats.Load
}

// BusyCells are the set's cells that the busy rule (stats.Busy of
// results.ProcessLoads) flags, in first-seen order: those whose figure
// the machine's load moved, or that ran beside others' work throughout.
func BusyCells(set *results.Set) []BusyCell {
	byCell := map[string][]results.ProcessRun{}
	var keys []string
	for _, r := range set.Runs {
		k := results.CellKey(r.Environment, r.Mode, int64(r.N))
		if _, ok := byCell[k]; !ok {
			keys = append(keys, k)
		}
		byCell[k] = append(byCell[k], r)
	}
	var busy []BusyCell
	for _, k := range keys {
		if l := stats.Busy(results.ProcessLoads(byCell[k])); l.Busy {
			busy = append(busy, BusyCell{k, l})
		}
	}
	return busy
}
