package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"spawnbench"
	"spawnbench/engine/report"
	"spawnbench/engine/run"
	"spawnbench/engine/spec"
)

func init() {
	var out string
	var only []string
	cmd := &cobra.Command{
		Use:   "run SPEC.cue",
		Short: "Build the benchmarks, run the spec's plan and write a result set",
		Long: `Run expands SPEC.cue into a plan, builds the C benchmarks for each
environment (cached by content hash), runs every repetition as a fresh
process, and writes samples.parquet, runs.parquet, provenance.json and a
report into the output directory. Ctrl-C stops cleanly and keeps every
sample measured so far.`,
		Args: exactArgs(1, "give one spec file, e.g. spawnbench run specs/sequential.cue"),
		RunE: func(cmd *cobra.Command, args []string) error {
			plan, err := spec.LoadPlan(args[0], only)
			if err != nil {
				return err
			}
			if out == "" {
				out = defaultOutDir(plan.Spec.Name)
			}
			return runPlan(cmd.Context(), plan, out)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "result directory (default results/<time>-<spec name>); an existing result set there is appended to")
	cmd.Flags().StringArrayVar(&only, "env", nil, "run only this environment (repeatable)")
	rootCmd.AddCommand(cmd)
}

// newRunner prepares a runner into dir and a context that Ctrl-C or
// SIGTERM cancels, so a run stops cleanly and keeps what it measured.
func newRunner(parent context.Context, dir string) (context.Context, context.CancelFunc, *run.Runner, error) {
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	cache, err := run.DefaultBuildCache(spawnbench.Sources)
	if err == nil {
		var r *run.Runner
		if r, err = run.New(run.Options{OutDir: dir, Cache: cache, Log: os.Stderr, Version: version}); err == nil {
			return ctx, stop, r, nil
		}
	}
	stop()
	return nil, nil, nil, err
}

// runPlan runs a plan into dir.
func runPlan(parent context.Context, plan *spec.RunPlan, dir string) error {
	ctx, stop, r, err := newRunner(parent, dir)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(os.Stderr, "spawnbench: %d cells from %s into %s\n", len(plan.Cells), plan.Spec.Path, dir)
	runErr := r.Run(ctx, plan)
	if runErr != nil && !run.IsInterrupt(runErr) {
		return runErr
	}
	set := r.Set()
	if err := report.WriteDir(dir, set); err != nil {
		fmt.Fprintf(os.Stderr, "spawnbench: writing the report failed (the results are intact): %v\n", err)
	}
	fmt.Print(run.Summary(set))
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "spawnbench: interrupted; %d samples kept in %s\n", len(set.Samples), dir)
		return runErr
	}
	fmt.Fprintf(os.Stderr, "spawnbench: results in %s\n", dir)
	return nil
}

func defaultOutDir(specName string) string {
	return filepath.Join("results", time.Now().Format("20060102-150405")+"-"+specName)
}

// exactArgs is cobra.ExactArgs with a message that says what to give.
func exactArgs(n int, hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("%s: want %d argument(s), got %d; %s", cmd.Name(), n, len(args), hint)}
		}
		return nil
	}
}
