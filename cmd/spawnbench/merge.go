package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"spawnbench/engine/report/render"
	"spawnbench/engine/results"
	"spawnbench/engine/run"
)

func init() { commands = append(commands, newMergeCmd) }

func newMergeCmd(c *cli) *cobra.Command {
	var out string
	var opts results.MergeOptions
	cmd := &cobra.Command{
		Use:   "merge -o OUT DIR...",
		Short: "Combine result sets of one spec (shards, or several machines) into one",
		Example: `  # two shards of one plan, run anywhere, into one set
  spawnbench run specs/study.cue --shard 0/2 -o results/s0
  spawnbench run specs/study.cue --shard 1/2 -o results/s1
  spawnbench merge -o results/study results/s0 results/s1
  # three days' runs of one spec as three occasions
  spawnbench merge --occasions -o results/week results/mon results/wed results/fri`,
		Long: `Merge combines result sets made from one spec: the shards of a run
(spawnbench run --shard K/N), the same spec run on several machines, or
both. Every row keeps its machine (the machine column), every invocation
its provenance (renumbered, with the directory and ID it came from). Sets of
different specs, and two sets holding one (machine, environment, mode, n)
cell, are refused. OUT must be a new (or empty) directory; it gets the
merged set and its report (ratios to the baseline within each machine),
all at once: an interrupted merge leaves nothing in OUT and can be run
again.

--occasions merges runs of one spec that measured the same cells, each
run an occasion of those cells (a level above processes, below machines):
run the spec on three or more days into directories of their own and merge
them with --occasions, and every figure and ratio of the report is then
computed over occasions, so it holds on another day. The same set given
twice is refused either way.`,
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
			if err := results.CheckMergeOut(out); err != nil {
				return err
			}
			return c.interruptible(cmd.Context(), true, func() error { return c.mergeSets(args, out, opts) })
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the new result directory for the merged set")
	cmd.Flags().BoolVar(&opts.Occasions, "occasions", false, "keep runs of one spec that measured the same cells as occasions of those cells (run them on different days; reports then compute over occasions)")
	return cmd
}

// mergeSets reads the directories args, merges them and writes the
// merged set with its report into out, all at once (results.WriteStaged).
func (c *cli) mergeSets(args []string, out string, opts results.MergeOptions) error {
	absOut, _ := filepath.Abs(out)
	var parts []results.Part
	for _, dir := range args {
		if abs, _ := filepath.Abs(dir); abs == absOut {
			return usageError{fmt.Errorf("merge: -o %s is also an input; write the merge into a new directory", out)}
		}
		set, err := results.ReadDir(dir, c.stderr)
		if err != nil {
			return err
		}
		parts = append(parts, results.Part{Dir: dir, Set: set})
	}
	for _, warning := range results.ShardWarnings(parts) {
		fmt.Fprintf(c.stderr, "spawnbench: WARNING: %s\n", warning)
	}
	now := time.Now().UTC()
	merged, err := results.Merge(parts, results.Invocation{
		Args: c.args[1:], Version: version, Machine: run.Machine(), StartedAt: now, EndedAt: &now,
	}, opts)
	if err != nil {
		return err
	}
	writeReport := func(staging string) error {
		_, err := render.WriteDirNamed(staging, out, merged.Clone())
		return err
	}
	if err := results.WriteStaged(out, merged, writeReport, c.stderr); err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "spawnbench: merged %d sets (%d processes, %d machine(s)) into %s\n", len(parts), len(merged.Runs), merged.Machines(), out)
	return nil
}
