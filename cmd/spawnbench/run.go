package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"spawnbench"
	"spawnbench/engine/atomicfile"
	"spawnbench/engine/buildcache"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/engine/run"
	"spawnbench/engine/spec"
	"spawnbench/engine/textfmt"
)

func init() {
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
  spawnbench run specs/sequential.cue --env 'wasmtime-*' --processes 2 --n 1,10
  spawnbench run specs/sequential.cue -o results/mine --resume   # after Ctrl-C or a kill`,
		Long: `Run expands SPEC.cue into a plan, builds the C benchmarks for each
environment (cached by content hash), runs every process of the plan as a
fresh process in the spec's schedule (interleaved by default), and writes
samples.parquet, runs.parquet, provenance.json and a report into the output
directory. Each process reaches disk as it finishes. Ctrl-C (or SIGTERM)
stops cleanly, keeps every process measured so far, records the run as
interrupted and exits 130; so does a standard output or error whose reader
goes away (` + "`| head`" + ` that has its lines, a pager that was quit): that is
an interrupt, not a death by SIGPIPE. --resume continues an interrupted or
killed run with the same schedule. A stdout closed before the start is
not an interrupt: Go gives it /dev/null, and the run goes on.

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
			if resume && !results.Exists(out) {
				// A set with no measuring run yet resumes as a plain run
				// (engine/run); no set at all is a wrong -o.
				return &inputerr.Error{Msg: fmt.Sprintf("run --resume -o %s: %s holds no result set to resume; check -o, or drop --resume to start a run there", out, out)}
			}
			if out == "" {
				name := plan.Spec.SafeName()
				if shard != nil {
					name += fmt.Sprintf("-shard%dof%d", shard.Index, shard.Count)
				}
				out = defaultOutDir(name)
			}
			// Shards are cut by the model as measured, the same on every
			// machine; what this one expects is the model rescaled to it.
			estimate := machineCosts(cmd.Context(), model, costs, plan, os.Stderr)
			fmt.Fprintf(os.Stderr, "spawnbench: %d processes, %s (costs from %s)\n", plan.TotalProcesses(), expectedText(plan, estimate), estimate.Source)
			opts := run.RunOptions{Resume: resume, Shard: shard, Costs: estimate, ProgressEvery: progressEvery}
			if cmd.Flags().Changed("seed") {
				if seed < 0 {
					return usageError{fmt.Errorf("run --seed %d: the seed must be >= 0", seed)}
				}
				opts.Seed = &seed
			}
			return runPlan(cmd.Context(), plan, out, opts)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "result directory (default results/<time>-<spec name>); an existing result set there is appended to")
	cmd.Flags().StringArrayVar(&only, "env", nil, "run only the environments this name or glob pattern matches, e.g. 'wasmtime-*' (repeatable)")
	cmd.Flags().IntVar(&overrides.Processes, "processes", 0, "a quick look: exactly this many processes a cell, whatever the spec's sample policy (recorded in the provenance)")
	cmd.Flags().StringVar(&nList, "n", "", "a quick look: these thread counts instead of the spec's, e.g. 1,10 (recorded in the provenance)")
	cmd.Flags().StringVar(&modeFlag, "mode", "", "a quick look: this mode (sequential or parallel) instead of the spec's (recorded in the provenance)")
	cmd.Flags().IntVar(&overrides.Occasions, "occasions", 0, "measure the matrix in this many blocks, one after another, each an occasion (replaces schedule.occasions; recorded in the provenance)")
	cmd.Flags().BoolVar(&resume, "resume", false, "continue an interrupted or killed run into -o DIR: keep its processes, run the missing ones in the same order")
	cmd.Flags().Int64Var(&seed, "seed", 0, "seed of the interleaved order (default: the spec's; the seed used is recorded)")
	cmd.Flags().StringVar(&shardFlag, "shard", "", "run shard K of N (K/N, numbered from 0); default from SPAWNBENCH_SHARD, JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID")
	cmd.Flags().IntVar(&shards, "shards", 0, "the shard count, when the index comes from JOB_COMPLETION_INDEX (else SPAWNBENCH_SHARDS)")
	costsFlag(cmd, &costs)
	cmd.Flags().DurationVar(&progressEvery, "progress-every", run.ProgressEvery, "without a terminal, a progress line at least this often")
	rootCmd.AddCommand(cmd)
}

// session is one invocation's hold on a result directory: its lock (via
// the writer, held until close, report included), a runner, and a context
// that Ctrl-C, SIGTERM or the end of the reader of spawnbench's standard
// output or error (SIGPIPE's cause: `| head`, a pager quit) cancels.
type session struct {
	ctx    context.Context
	stop   func()
	writer *results.Writer
	runner *run.Runner
}

func openSession(parent context.Context, dir string) (*session, error) {
	w, err := results.Open(dir)
	if err != nil {
		return nil, err
	}
	if warn := w.Set().DamageWarning(dir); warn != "" {
		fmt.Fprintln(os.Stderr, "spawnbench: warning:", warn)
	}
	sigCtx, stopSignals := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(sigCtx)
	stopWatch := watchOutputs(cancel)
	stop := func() {
		stopWatch()
		cancel(nil)
		stopSignals()
	}
	r := run.New(w, run.Options{Cache: buildcache.Default(spawnbench.Sources), Log: os.Stderr, Version: version, Args: os.Args})
	return &session{ctx: ctx, stop: stop, writer: w, runner: r}, nil
}

// errOutputGone is why a session ends when no one reads its output.
var errOutputGone = errors.New("the reader of spawnbench's standard output or error is gone")

// watchOutputs cancels with errOutputGone once the reader of standard
// output or error, where that is a pipe or socket, goes away, written to
// or not: a closed output is an interrupt, as Ctrl-C is, and not the death
// by SIGPIPE it would be at the next write. Until stop, it watches both in
// a poll; from its first call to the end of the process, SIGPIPE is
// caught (so a write to a reader that is gone fails with EPIPE instead of
// killing spawnbench before the interrupt is recorded). It is caught, not
// ignored: an ignored SIGPIPE would be inherited by every benchmark.
func watchOutputs(cancel context.CancelCauseFunc) (stop func()) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	var fds []unix.PollFd
	for _, fd := range []int{1, 2} {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && (st.Mode&unix.S_IFMT == unix.S_IFIFO || st.Mode&unix.S_IFMT == unix.S_IFSOCK) {
			// Events 0: poll reports only POLLERR (a pipe without readers)
			// and POLLHUP (a socket shut down).
			fds = append(fds, unix.PollFd{Fd: int32(fd)})
		}
	}
	if len(fds) == 0 {
		return func() {}
	}
	wake, stopW, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	fds = append(fds, unix.PollFd{Fd: int32(wake.Fd()), Events: unix.POLLIN})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer wake.Close()
		for {
			if _, err := unix.Poll(fds, -1); err == unix.EINTR {
				continue
			} else if err != nil || fds[len(fds)-1].Revents != 0 {
				return
			}
			for _, p := range fds[:len(fds)-1] {
				if p.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
					cancel(errOutputGone)
					return
				}
			}
		}
	}()
	return func() {
		stopW.Close()
		<-done
	}
}

// close compacts the journal and releases the directory.
func (s *session) close() {
	s.stop()
	if err := s.writer.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "spawnbench: %v\n", err)
	}
}

// writeReport writes the report into the directory unless interrupted
// first, and returns it (nil when it failed); an interrupt amends the
// invocation as interrupted and returns at once (the results are
// intact).
func (s *session) writeReport() (*report.Report, error) {
	type written struct {
		r   *report.Report
		err error
	}
	done := make(chan written, 1)
	// The report reads its own copy: an interrupt amends the set meanwhile.
	set := s.runner.Set().Clone()
	go func() {
		r, err := report.WriteDir(s.writer.Dir(), set)
		done <- written{r, err}
	}()
	select {
	case w := <-done:
		if w.err != nil {
			fmt.Fprintf(os.Stderr, "spawnbench: writing the report failed (the results are intact): %v\n", w.err)
		}
		return w.r, nil
	case <-s.ctx.Done():
		if err := s.writer.End(s.runner.Invocation(), true); err != nil {
			return nil, err
		}
		// The set is compacted; end the report's writes in flight so no
		// temporary plot file stays behind.
		atomicfile.Abort()
		return nil, s.ctx.Err()
	}
}

// runPlan runs a plan into dir.
func runPlan(parent context.Context, plan *spec.RunPlan, dir string, opts run.RunOptions) error {
	s, err := openSession(parent, dir)
	if err != nil {
		return err
	}
	defer s.close()
	if err := refuseOtherSpec(s.writer.Set(), plan, dir, opts.Resume); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "spawnbench: %d cells from %s into %s\n", len(plan.Cells), plan.Spec.Path, dir)
	runErr := s.runner.Run(s.ctx, plan, opts)
	if runErr != nil && !run.IsInterrupt(runErr) {
		return runErr
	}
	set := s.runner.Set()
	var rep *report.Report
	if runErr == nil {
		if rep, err = s.writeReport(); err != nil {
			runErr = err
		}
	}
	fmt.Print(run.Summary(set))
	if rep != nil {
		// The answer last, where the eye lands when the run ends.
		fmt.Print("\n" + rep.BottomLineText())
	}
	if runErr != nil && errors.Is(context.Cause(s.ctx), errOutputGone) {
		fmt.Fprintf(os.Stderr, "spawnbench: %v: stopping as for Ctrl-C\n", errOutputGone)
	}
	if runErr != nil && len(set.Provenance.Invocations) == 0 {
		fmt.Fprintf(os.Stderr, "spawnbench: interrupted before anything was recorded; start again with: spawnbench run %s -o %s\n", plan.Spec.Path, dir)
		return runErr
	}
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "spawnbench: interrupted; %d processes kept in %s; continue with: spawnbench run %s -o %s --resume\n", len(set.Runs), dir, plan.Spec.Path, dir)
		return runErr
	}
	if busy := run.BusyCells(set); len(busy) > 0 {
		var cells []string
		for _, c := range busy {
			cells = append(cells, fmt.Sprintf("%s (%s)", c.Key, textfmt.BusyEvidence(c.Load)))
		}
		fmt.Fprintf(os.Stderr, "spawnbench: WARNING: %d cell(s) busy, by their processes' evidence: %s; their figures carry the machine's load, re-measure them on an idle machine (the report gives every cell's load)\n",
			len(busy), strings.Join(cells, ", "))
	}
	fmt.Fprintf(os.Stderr, "spawnbench: results in %s\n", dir)
	return nil
}

// refuseOtherSpec is an input error when dir holds an unfinished run of
// another spec on this machine: running a different spec into it would
// make that run's --resume refuse forever (it resumes the last spec).
func refuseOtherSpec(set *results.Set, plan *spec.RunPlan, dir string, resume bool) error {
	if resume {
		return nil // --resume checks the spec itself
	}
	here := run.Machine().Identity()
	for _, inv := range set.Unfinished() {
		if inv.SpecHash != plan.Spec.Hash && inv.Machine.Identity() == here {
			return &inputerr.Error{Msg: fmt.Sprintf("-o %s holds an unfinished run of another spec, %s (sha256 %.12s, invocation %d); finish it first with `spawnbench run %s -o %s --resume`, or run %s into another directory",
				dir, inv.SpecPath, inv.SpecHash, inv.ID, inv.SpecPath, dir, plan.Spec.Path)}
		}
	}
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
