package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"spawnbench"
	"spawnbench/cmd/spawnbench/internal/interrupt"
	"spawnbench/engine/atomicfile"
	"spawnbench/engine/buildcache"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/report/render"
	"spawnbench/engine/results"
	"spawnbench/engine/run"
	"spawnbench/engine/spec"
	"spawnbench/engine/stats"
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
			ses, err := openSession(cmd.Context(), out)
			if err != nil {
				return err
			}
			defer ses.close()
			ses.retry = retryLine(os.Args, out, cmd.Flags().Changed("out"), resume)
			if err := refuseOtherSpec(ses.writer.Set(), plan, out, resume); err != nil {
				return err
			}
			if resume {
				complete, err := ses.runner.Complete(plan, opts)
				if err != nil {
					return err
				}
				if complete {
					return ses.alreadyComplete(plan)
				}
				noteResume(ses.writer.Set(), plan, out)
			}
			// Shards are cut by the model as measured, the same on every
			// machine; what this one expects is the model rescaled to it.
			opts.Costs = machineCosts(ses.ctx, model, costs, plan, os.Stderr)
			fmt.Fprintf(os.Stderr, "spawnbench: %d processes, %s (costs from %s)\n", plan.TotalProcesses(), expectedText(plan, opts.Costs), opts.Costs.Source)
			return ses.runPlan(plan, opts)
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
	rootCmd.AddCommand(cmd)
}

// session is one invocation's hold on a result directory: its lock (via
// the writer, held until close, report included), a runner, and a context
// that Ctrl-C, SIGTERM or the end of the reader of spawnbench's standard
// output or error (SIGPIPE's cause: `| head`, a pager quit) cancels. It
// holds interrupts (see package interrupt) from before the lock is taken
// until it is closed.
type session struct {
	ctx    context.Context
	stop   func()
	writer *results.Writer
	runner *run.Runner
	// retry is the command line that continues the run after an
	// interrupt (the one given, with -o and --resume).
	retry string
}

func openSession(parent context.Context, dir string) (*session, error) {
	release := interrupt.Hold()
	w, err := results.Open(dir)
	if err != nil {
		release()
		return nil, err
	}
	if warn := w.Set().DamageWarning(dir); warn != "" {
		fmt.Fprintln(os.Stderr, "spawnbench: warning:", warn)
	}
	ctx, cancel := context.WithCancelCause(parent)
	stopWatch := watchOutputs(cancel)
	stop := func() {
		stopWatch()
		cancel(nil)
		release()
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
// first, and returns it (nil when it failed); an interrupt amends this
// session's invocation, if any, as interrupted and returns at once (the
// results are intact).
func (s *session) writeReport() (*report.Report, error) {
	type written struct {
		r   *report.Report
		err error
	}
	done := make(chan written, 1)
	// The report reads its own copy: an interrupt amends the set meanwhile.
	set := s.runner.Set().Clone()
	go func() {
		r, err := render.WriteDir(s.writer.Dir(), set)
		done <- written{r, err}
	}()
	select {
	case w := <-done:
		if w.err != nil {
			fmt.Fprintf(os.Stderr, "spawnbench: writing the report failed (the results are intact): %v\n", w.err)
		}
		return w.r, nil
	case <-s.ctx.Done():
		// The invocation that measured is amended (none: the report of a
		// set complete before this invocation).
		if id := s.runner.Invocation(); id != 0 {
			if err := s.writer.End(id, true); err != nil {
				return nil, err
			}
		}
		// The set is compacted; end the report's writes in flight so no
		// temporary plot file stays behind.
		atomicfile.Abort()
		return nil, s.ctx.Err()
	}
}

// runPlan runs a plan into the session's directory.
func (s *session) runPlan(plan *spec.RunPlan, opts run.RunOptions) error {
	dir := s.writer.Dir()
	if s.ctx.Err() != nil {
		// Interrupted before the run began (while the costs were probed):
		// nothing to record.
		fmt.Fprintf(os.Stderr, "spawnbench: interrupted before anything was recorded; start again with: %s\n", s.retry)
		return s.ctx.Err()
	}
	fmt.Fprintf(os.Stderr, "spawnbench: %d cells from %s into %s\n", len(plan.Cells), plan.Spec.Path, dir)
	runErr := s.runner.Run(s.ctx, plan, opts)
	if runErr != nil && !run.IsInterrupt(runErr) {
		return runErr
	}
	set := s.runner.Set()
	var rep *report.Report
	var err error
	if runErr == nil {
		if rep, err = s.writeReport(); err != nil {
			runErr = err
		}
	}
	fmt.Print(run.Summary(set))
	if rep != nil {
		// The answer last, where the eye lands when the run ends.
		fmt.Print("\n" + render.BottomLineText(rep))
	}
	if runErr != nil && errors.Is(context.Cause(s.ctx), errOutputGone) {
		fmt.Fprintf(os.Stderr, "spawnbench: %v: stopping as for Ctrl-C\n", errOutputGone)
	}
	if runErr != nil && len(set.Provenance.Invocations) == 0 {
		fmt.Fprintf(os.Stderr, "spawnbench: interrupted before anything was recorded; start again with: %s\n", s.retry)
		return runErr
	}
	if runErr != nil {
		fmt.Fprintf(os.Stderr, "spawnbench: interrupted; %d processes kept in %s; continue with: %s\n", len(set.Runs), dir, s.retry)
		return runErr
	}
	if busy := run.BusyCells(set); len(busy) > 0 {
		var cells []string
		for _, c := range busy {
			cells = append(cells, fmt.Sprintf("%s (%s)", c.Key, textfmt.BusyEvidence(c.Load)))
		}
		fmt.Fprintf(os.Stderr, "spawnbench: WARNING: %d cell(s) busy (%s): %s; their figures carry the machine's load, re-measure them on an idle machine (the report gives every cell's load)\n",
			len(busy), stats.BusyRule.Summary, strings.Join(cells, ", "))
	}
	fmt.Fprintf(os.Stderr, "spawnbench: results in %s\n", dir)
	return nil
}

// alreadyComplete ends a --resume into a set that holds the whole plan:
// nothing is measured or recorded; only a report that a kill cut short
// (missing, or older than the set's last invocation) is written again.
func (s *session) alreadyComplete(plan *spec.RunPlan) error {
	dir, set := s.writer.Dir(), s.runner.Set()
	what := "the whole plan of " + plan.Spec.Path
	if last := set.Provenance.LastMeasuring(); last != nil && last.Shard != nil {
		what = fmt.Sprintf("shard %s of %s", last.Shard, plan.Spec.Path)
	}
	fmt.Fprintf(os.Stderr, "spawnbench: %s is complete: it holds %s (%d cells, %d processes); nothing to run\n", dir, what, len(plan.Cells), len(set.Runs))
	if !reportStale(dir, set) {
		return nil
	}
	fmt.Fprintf(os.Stderr, "spawnbench: its report was not written whole; writing it\n")
	if _, err := s.writeReport(); err != nil {
		return err
	}
	return nil
}

// reportStale: dir's report.md is missing or older than the end of the
// set's last invocation (a kill during the report).
func reportStale(dir string, set *results.Set) bool {
	st, err := os.Stat(filepath.Join(dir, render.ReportFile))
	if err != nil {
		return true
	}
	for _, inv := range set.Provenance.Invocations {
		if inv.EndedAt != nil && st.ModTime().Before(*inv.EndedAt) {
			return true
		}
	}
	return false
}

// noteResume says, at the start of a --resume that has something to do,
// what it starts from where that may surprise: a directory with nothing
// of a set yet (a first attempt, or one killed before it recorded
// anything), or processes another machine measured, which stay that
// machine's while this one measures its own.
func noteResume(set *results.Set, plan *spec.RunPlan, dir string) {
	if set.Provenance.LastMeasuring() == nil {
		fmt.Fprintf(os.Stderr, "spawnbench: %s holds no run of %s yet: starting it\n", dir, plan.Spec.Path)
		return
	}
	here := run.Machine().ID
	others := map[string]int{}
	for _, r := range set.Runs {
		if r.Machine != "" && r.Machine != here {
			others[r.Machine]++
		}
	}
	for m, n := range others {
		host := "another machine"
		for _, inv := range set.Provenance.Invocations {
			if inv.Machine.Identity() == m {
				host = inv.Machine.Hostname
			}
		}
		fmt.Fprintf(os.Stderr, "spawnbench: %s holds %d processes measured on %s (machine %s), not on this one (%s): they stay that machine's, and this machine measures the plan's processes itself\n",
			dir, n, host, m, here)
	}
}

// retryLine is the command line that continues an interrupted run: args
// as given (the program as it was called), with -o DIR when the directory
// was the default, and --resume.
func retryLine(args []string, dir string, outGiven, resume bool) string {
	line := slices.Clone(args)
	if !outGiven {
		line = append(line, "-o", dir)
	}
	if !resume {
		line = append(line, "--resume")
	}
	for i, a := range line {
		line[i] = shellQuote(a)
	}
	return strings.Join(line, " ")
}

// shellQuote quotes a word for a POSIX shell where it needs it.
func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,@%+-") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
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
