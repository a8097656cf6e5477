package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/report/render"
	"spawnbench/engine/results"
	"spawnbench/engine/run"
)

func init() {
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
			if err := checkMergeOut(out); err != nil {
				return err
			}
			return interruptible(cmd.Context(), true, func() error { return mergeSets(args, out, opts) })
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the new result directory for the merged set")
	cmd.Flags().BoolVar(&opts.Occasions, "occasions", false, "keep runs of one spec that measured the same cells as occasions of those cells (run them on different days; reports then compute over occasions)")
	rootCmd.AddCommand(cmd)
}

// mergeSets reads the directories args, merges them and writes the
// merged set into out.
func mergeSets(args []string, out string, opts results.MergeOptions) error {
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
	}, opts)
	if err != nil {
		return err
	}
	if err := writeMerged(out, merged); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "spawnbench: merged %d sets (%d processes, %d machine(s)) into %s\n", len(parts), len(merged.Runs), machineCount(merged), out)
	return nil
}

// checkMergeOut is an input error unless out is new (or an empty
// directory): a merge never writes into another set or a user's files.
func checkMergeOut(out string) error {
	lst, err := os.Lstat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("merge: -o %s: %w", out, err)
	}
	if lst.Mode()&os.ModeSymlink != 0 {
		return usageError{fmt.Errorf("merge: -o %s is a symbolic link; give a new directory", out)}
	}
	if !lst.IsDir() {
		return usageError{fmt.Errorf("merge: -o %s is a file; give a new directory", out)}
	}
	if results.Exists(out) {
		return usageError{fmt.Errorf("merge: -o %s already holds a result set; write the merge into a new directory", out)}
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("merge: -o %s: %w", out, err)
	}
	if len(entries) > 0 {
		return usageError{fmt.Errorf("merge: -o %s already holds other files (%s); write the merge into a new directory", out, entries[0].Name())}
	}
	return nil
}

// writeMerged writes the merged set and its report into a hidden
// directory beside out and renames it to out when whole, so that out
// appears complete or not at all: an interrupt (interruptible) removes the
// hidden directory, and a kill leaves only it, which the next merge into
// out removes.
func writeMerged(out string, merged *results.Set) error {
	if err := checkMergeOut(out); err != nil {
		return err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("merge: -o %s: %w", out, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("merge: create %s: %w", filepath.Dir(out), err)
	}
	removeStaleStaging(abs)
	staging, err := os.MkdirTemp(filepath.Dir(abs), atomicfile.TempPattern(abs))
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	defer os.RemoveAll(staging) // gone by the rename unless something failed
	if err := os.Chmod(staging, 0o755); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	w, err := results.Open(staging)
	if err != nil {
		return err
	}
	if err := w.Import(merged); err != nil {
		w.Close()
		return err
	}
	if _, err := render.WriteDirNamed(staging, out, merged.Clone()); errors.Is(err, atomicfile.ErrAborted) {
		w.Close()
		return err
	} else if err != nil {
		fmt.Fprintf(os.Stderr, "spawnbench: writing the report failed (the merged results are intact): %v\n", err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	// rename(2) replaces an empty directory and fails on any other.
	if err := atomicfile.Rename(staging, abs); errors.Is(err, atomicfile.ErrAborted) {
		return err
	} else if err != nil {
		return &inputerr.Error{Msg: fmt.Sprintf("merge: -o %s was filled by someone else meanwhile (%v); write the merge into a new directory", out, err)}
	}
	return nil
}

// removeStaleStaging removes the hidden directories that killed merges
// into out left (whose lock no live merge holds).
func removeStaleStaging(out string) {
	entries, _ := os.ReadDir(filepath.Dir(out))
	prefix := "." + filepath.Base(out) + atomicfile.TempMarker
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(filepath.Dir(out), e.Name())
		lock, err := results.TakeLock(dir)
		if err != nil {
			continue // a live merge's, or not ours to judge
		}
		lock.Release()
		os.RemoveAll(dir)
	}
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
