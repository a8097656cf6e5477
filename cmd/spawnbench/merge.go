package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/engine/run"
)

func init() {
	var out string
	cmd := &cobra.Command{
		Use:   "merge -o OUT DIR...",
		Short: "Combine result sets of one spec (shards, or several machines) into one",
		Long: `Merge combines result sets made from one spec: the shards of a run
(spawnbench run --shard K/N), the same spec run on several machines, or
both. Every row keeps its machine (the machine column), every invocation
its provenance (renumbered, with the directory and ID it came from). Sets of
different specs, and two sets holding one (machine, environment, mode, n)
cell, are refused. OUT must be a new directory; it gets the merged set and
its report (ratios to the baseline within each machine).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageError{fmt.Errorf("merge: give at least two result directories, e.g. spawnbench merge -o merged shard-0 shard-1")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError{fmt.Errorf("merge: give the new result directory with -o OUT")}
			}
			absOut, _ := filepath.Abs(out)
			var parts []results.Part
			for _, dir := range args {
				if abs, _ := filepath.Abs(dir); abs == absOut {
					return usageError{fmt.Errorf("merge: -o %s is also an input; write the merge into a new directory", out)}
				}
				in, err := readResultDir(dir)
				if err != nil {
					return err
				}
				parts = append(parts, results.Part{Dir: dir, Set: in.Set})
			}
			for _, warning := range shardWarnings(parts) {
				fmt.Fprintf(os.Stderr, "spawnbench: WARNING: %s\n", warning)
			}
			now := time.Now().UTC()
			merged, err := results.Merge(parts, results.Invocation{
				Args: os.Args[1:], Version: version, Machine: run.Machine(), StartedAt: now, EndedAt: &now,
			})
			if err != nil {
				return err
			}
			if results.Exists(out) {
				return usageError{fmt.Errorf("merge: -o %s already holds a result set; write the merge into a new directory", out)}
			}
			w, err := results.Open(out)
			if err != nil {
				return err
			}
			if err := w.Import(merged); err != nil {
				w.Close()
				return err
			}
			if err := report.WriteDir(out, merged.Clone()); err != nil {
				fmt.Fprintf(os.Stderr, "spawnbench: writing the report failed (the merged results are intact): %v\n", err)
			}
			if err := w.Close(); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "spawnbench: merged %d sets (%d processes, %d machine(s)) into %s\n", len(parts), len(merged.Runs), machineCount(merged), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the new result directory for the merged set")
	rootCmd.AddCommand(cmd)
}

// shardWarnings says what may be wrong with the shards of one count
// being merged: split with different costs (cells may be missing, or
// measured twice), or a shard missing.
func shardWarnings(parts []results.Part) []string {
	costs := map[int]map[string][]string{} // count -> costs -> shards
	seen := map[int]map[int]bool{}
	var invs []results.Invocation
	for _, p := range parts {
		invs = append(invs, p.Set.Provenance.Invocations...)
	}
	for _, inv := range invs {
		sh := inv.Shard
		if sh == nil {
			continue
		}
		if costs[sh.Count] == nil {
			costs[sh.Count], seen[sh.Count] = map[string][]string{}, map[int]bool{}
		}
		costs[sh.Count][sh.Costs] = append(costs[sh.Count][sh.Costs], sh.String())
		seen[sh.Count][sh.Index] = true
	}
	var out []string
	for _, count := range slices.Sorted(maps.Keys(costs)) {
		if len(costs[count]) > 1 {
			var parts []string
			for _, c := range slices.Sorted(maps.Keys(costs[count])) {
				parts = append(parts, fmt.Sprintf("%s with costs %q", strings.Join(costs[count][c], ", "), c))
			}
			out = append(out, fmt.Sprintf("the shards of %d were split with different costs (%s): if they are one run, some cells may be missing or measured twice; run every shard with the same spawnbench and --costs", count, strings.Join(parts, "; ")))
		}
		var missing []string
		for k := range count {
			if !seen[count][k] {
				missing = append(missing, fmt.Sprintf("%d/%d", k, count))
			}
		}
		if len(missing) > 0 {
			out = append(out, fmt.Sprintf("no shard %s in the merge: its cells are missing; run it and merge again", strings.Join(missing, ", ")))
		}
	}
	return out
}

func machineCount(s *results.Set) int {
	seen := map[string]bool{}
	for _, r := range s.Runs {
		seen[r.Machine] = true
	}
	return len(seen)
}
