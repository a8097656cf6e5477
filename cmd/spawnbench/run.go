package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"spawnbench"
	"spawnbench/cmd/spawnbench/internal/interrupt"
	"spawnbench/engine/buildcache"
	"spawnbench/engine/cost"
	"spawnbench/engine/run"
	"spawnbench/engine/spec"
)

func init() { commands = append(commands, newRunCmd) }

func newRunCmd(c *cli) *cobra.Command {
	var out string
	var only []string
	var resume bool
	var seed int64
	var shardFlag string
	var shards int
	var costs string
	var progressEvery time.Duration
	var overrides spec.Overrides
	var nList, modeFlag string
	cmd := &cobra.Command{
		Use:   "run SPEC.cue",
		Short: "Build the benchmarks, run the spec's plan and write a result set",
		Example: `  spawnbench run specs/sequential.cue                    # the README's main job
  spawnbench run specs/quick.cue                         # a few minutes: the study's finding
  spawnbench run specs/sequential.cue --env native --env 'wasmtime-*' --processes 5 --n 1,10   # a quick look
  spawnbench run specs/sequential.cue -o results/mine --resume   # after Ctrl-C or a kill`,
		Long: `Run expands SPEC.cue into a plan, builds the C benchmarks for each
environment (cached by content hash), runs every process of the plan as a
fresh process in the spec's schedule (interleaved by default), and writes
samples.parquet, runs.parquet, provenance.json and a report into the output
directory. Each process reaches disk as it finishes. Ctrl-C (or SIGTERM)
stops cleanly, keeps every process measured so far, records the run as
interrupted and exits 130; so does a standard output or error whose reader
goes away (` + "`| head`" + ` that has its lines, a pager that was quit): that is
an interrupt, not a death by SIGPIPE. A stdout closed before the start is
not an interrupt: Go gives it /dev/null, and the run goes on.

--resume continues an interrupted or killed run with the same schedule,
and is right on every attempt of one command line, which is what a
scheduler's retry (a Slurm requeue, a Kubernetes pod run again) needs:
into a directory with nothing of a run yet (missing, or what a run killed
at its start left) it starts the run; into one holding part of it, it
measures the rest; into one holding all of it, it says so and exits 0 at
once. A directory of another spec, shard or seed is refused (exit 2).

--processes, --n, --mode and --occasions replace the spec's values for a
quick look; they are recorded in the provenance (invocations[].overrides)
and folded into the spec's hash, so --resume needs the same ones.

--shard K/N runs shard K of N (numbered from 0, as spawnbench plan --shards N
shows them): whole cells, balanced by expected wall time (the built-in
reference set's costs, or --costs DIR's), the same split on every machine
that runs the same spawnbench with the same costs. Without --shard the shard comes from SPAWNBENCH_SHARD=K/N, from a
Kubernetes Indexed Job's JOB_COMPLETION_INDEX (with --shards N or
SPAWNBENCH_SHARDS=N), or from a Slurm array's SLURM_ARRAY_TASK_ID and
SLURM_ARRAY_TASK_COUNT (counted from SLURM_ARRAY_TASK_MIN). Each shard is a
complete result set; spawnbench merge combines them.

At its start run prints the plan's expected time on this machine, as
plan does (the same probe, kept for an hour). Progress: a terminal gets a
bar with the ETA; elsewhere (CI, nohup, a file)
a line every --progress-every and at each 10% of the processes says the
processes and cells done, the time elapsed and the ETA (expected times
from the costs, scaled by how fast this run goes).`,
		Args: exactArgs(1, "give one spec file, e.g. spawnbench run specs/sequential.cue"),
		RunE: func(cmd *cobra.Command, args []string) error {
			shard, err := run.ShardFrom(shardFlag, shards, os.Getenv)
			if err != nil {
				return err
			}
			if nList != "" {
				if overrides.N, err = spec.ParseNs(nList); err != nil {
					return err
				}
			}
			if modeFlag != "" {
				overrides.Modes = strings.Split(modeFlag, ",")
			}
			s, err := spec.Load(args[0])
			if err != nil {
				return err
			}
			if err := overrides.Apply(s); err != nil {
				return err
			}
			plan, err := spec.Expand(s, only)
			if err != nil {
				return err
			}
			model, err := costModel(costs)
			if err != nil {
				return err
			}
			alloc, err := run.AllocateBottomLine(plan, model)
			if err != nil {
				return err
			}
			if alloc != nil {
				b := plan.Spec.BottomLine
				topUp := ""
				if b.TopUp > 0 {
					topUp = fmt.Sprintf("; then up to %s more for the ratios this run leaves short", b.TopUp)
				}
				fmt.Fprintf(c.stderr, "spawnbench: bottom line: %d of %d ratios sized for ±%.3g%% from %s, adding %s%s\n",
					alloc.Reached, alloc.Ratios, b.Precision*100, b.From, cost.Round(time.Duration(float64(alloc.AddedS)*float64(time.Second))), topUp)
			}
			if progressEvery <= 0 {
				return usageError{fmt.Errorf("run --progress-every %s: give a positive duration, e.g. 30s", progressEvery)}
			}
			if shard != nil {
				shard.Costs = model.ID()
				if plan, err = plan.Shard(shard.Index, shard.Count, model.Cell); err != nil {
					return fmt.Errorf("%s %s: %w", shard.Source, shard, err)
				}
			}
			if resume && out == "" {
				return usageError{errors.New("run --resume: give the result directory to continue with -o DIR")}
			}
			if out == "" {
				name := plan.Spec.SafeName()
				if shard != nil {
					name += fmt.Sprintf("-shard%dof%d", shard.Index, shard.Count)
				}
				out = defaultOutDir(name)
			}
			opts := run.RunOptions{Resume: resume, Shard: shard, ProgressEvery: progressEvery}
			if cmd.Flags().Changed("seed") {
				if seed < 0 {
					return usageError{fmt.Errorf("run --seed %d: the seed must be >= 0", seed)}
				}
				opts.Seed = &seed
			}
			ses, err := c.openSession(cmd.Context(), out, run.RetryLine(c.args, out, cmd.Flags().Changed("out"), resume))
			if err != nil {
				return err
			}
			defer ses.Close()
			if complete, err := ses.Begin(plan, opts, resume); err != nil || complete {
				return err
			}
			// Shards are cut by the model as measured, the same on every
			// machine; what this one expects is the model rescaled to it.
			opts.Costs = machineCosts(ses.Context(), model, costs, plan, c.stderr)
			fmt.Fprintf(c.stderr, "spawnbench: %d processes, %s (costs from %s)\n", plan.TotalProcesses(), expectedText(plan, opts.Costs), opts.Costs.Source)
			return ses.RunPlan(plan, opts)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "result directory (default results/<time>-<spec name>); an existing result set there is appended to")
	cmd.Flags().StringArrayVar(&only, "env", nil, "run only the environments this name or glob pattern matches, e.g. 'wasmtime-*' (repeatable)")
	cmd.Flags().IntVar(&overrides.Processes, "processes", 0, "a quick look: exactly this many processes a cell, whatever the spec's sample policy (recorded in the provenance)")
	cmd.Flags().StringVar(&nList, "n", "", "a quick look: these thread counts instead of the spec's, e.g. 1,10 (recorded in the provenance)")
	cmd.Flags().StringVar(&modeFlag, "mode", "", "a quick look: this mode (sequential or parallel) instead of the spec's (recorded in the provenance)")
	cmd.Flags().IntVar(&overrides.Occasions, "occasions", 0, "measure the matrix in this many blocks, one after another, each an occasion (replaces schedule.occasions; recorded in the provenance)")
	cmd.Flags().BoolVar(&resume, "resume", false, "continue an interrupted or killed run into -o DIR: keep its processes, run the missing ones in the same order; start it where DIR holds none yet, exit 0 where it is complete (the line for a scheduler's retries)")
	cmd.Flags().Int64Var(&seed, "seed", 0, "seed of the interleaved order (default: the spec's; the seed used is recorded)")
	cmd.Flags().StringVar(&shardFlag, "shard", "", "run shard K of N (K/N, numbered from 0); default from SPAWNBENCH_SHARD, JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID")
	cmd.Flags().IntVar(&shards, "shards", 0, "the shard count, when the index comes from JOB_COMPLETION_INDEX (else SPAWNBENCH_SHARDS)")
	costsFlag(cmd, &costs)
	cmd.Flags().DurationVar(&progressEvery, "progress-every", run.ProgressEvery, "without a terminal, a progress line at least this often")
	return cmd
}

// openSession takes the result directory dir for this invocation's run
// or calibration (engine/run's Session: the lock, interrupts, the report
// after the run); retry is the command line that continues it.
func (c *cli) openSession(ctx context.Context, dir, retry string) (*run.Session, error) {
	own := c.ownWork
	if own == nil {
		var err error
		if own, err = ownWorkFromEnv(); err != nil {
			return nil, err
		}
	}
	return run.OpenSession(ctx, dir, run.SessionOptions{
		Stdout: c.stdout, Stderr: c.stderr, Hold: interrupt.Hold,
		Cache: buildcache.Default(spawnbench.Sources), Version: version, Args: c.args,
		Retry: retry, OwnWork: own,
	})
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
