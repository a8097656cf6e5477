package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/buildcache"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/proc"
	"spawnbench/engine/report"
	"spawnbench/engine/report/render"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
	"spawnbench/engine/stats"
	"spawnbench/engine/textfmt"
)

// SessionOptions are what a session needs from the command that opens it.
type SessionOptions struct {
	// Stdout gets the run's summary and bottom line, Stderr its progress,
	// warnings and what to do next.
	Stdout, Stderr io.Writer
	// Hold makes an interrupt cancel the session's context instead of
	// ending the process, until release (the command line's interrupt
	// handling); nil holds nothing.
	Hold func() (release func())
	// Cache, Version, Args and OwnWork are the runner's (Options).
	Cache   *buildcache.Cache
	Version string
	Args    []string
	OwnWork *proc.OwnWork
	// Retry is the command line that continues the run after an
	// interrupt (RetryLine).
	Retry string
}

// Session is one invocation's hold on a result directory: its lock (via
// the writer, held until Close, report included), a runner, and a context
// that the parent's cancellation (Ctrl-C, SIGTERM) or the end of the
// reader of the process's standard output or error (SIGPIPE's cause:
// `| head`, a pager quit) cancels. It holds interrupts from before the
// lock is taken until it is closed.
type Session struct {
	ctx    context.Context
	stop   func()
	writer *results.Writer
	runner *Runner
	opts   SessionOptions
}

// OpenSession takes the result directory dir (made when missing) for one
// invocation.
func OpenSession(parent context.Context, dir string, o SessionOptions) (*Session, error) {
	release := func() {}
	if o.Hold != nil {
		release = o.Hold()
	}
	w, err := results.Open(dir)
	if err != nil {
		release()
		return nil, err
	}
	if warn := w.Set().DamageWarning(dir); warn != "" {
		fmt.Fprintln(o.Stderr, "spawnbench: warning:", warn)
	}
	ctx, cancel := context.WithCancelCause(parent)
	stopWatch := WatchOutputs(cancel, o.Stdout, o.Stderr)
	stop := func() {
		stopWatch()
		cancel(nil)
		release()
	}
	r := New(w, Options{Cache: o.Cache, Log: o.Stderr, Version: o.Version, Args: o.Args, OwnWork: o.OwnWork})
	return &Session{ctx: ctx, stop: stop, writer: w, runner: r, opts: o}, nil
}

// Context is cancelled by an interrupt of the session.
func (s *Session) Context() context.Context { return s.ctx }

// Runner runs the session's plan (or calibration) into its directory.
func (s *Session) Runner() *Runner { return s.runner }

// Close compacts the journal and releases the directory.
func (s *Session) Close() {
	s.stop()
	if err := s.writer.Close(); err != nil {
		fmt.Fprintf(s.opts.Stderr, "spawnbench: %v\n", err)
	}
}

// WriteReport writes the report into the directory unless interrupted
// first, and returns it (nil when it failed); an interrupt amends this
// session's invocation, if any, as interrupted and returns at once (the
// results are intact).
func (s *Session) WriteReport() (*report.Report, error) {
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
			fmt.Fprintf(s.opts.Stderr, "spawnbench: writing the report failed (the results are intact): %v\n", w.err)
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

// Begin checks the directory against plan before anything is measured:
// an unfinished run of another spec there is refused (unless resume,
// which checks the spec itself); with resume, a set that already holds
// the whole plan is complete (its report written again if a kill cut it
// short, and nothing to run), and a start that may surprise is said.
func (s *Session) Begin(plan *spec.RunPlan, opts RunOptions, resume bool) (complete bool, err error) {
	set := s.writer.Set()
	if !resume {
		return false, refuseOtherSpec(set, plan, s.writer.Dir())
	}
	complete, err = s.runner.Complete(plan, opts)
	if err != nil {
		return false, err
	}
	if complete {
		return true, s.alreadyComplete(plan)
	}
	s.noteResume(set, plan)
	return false, nil
}

// RunPlan runs a plan into the session's directory, then writes its
// report and prints the summary and the bottom line; interrupted, it
// says what was kept and how to continue.
func (s *Session) RunPlan(plan *spec.RunPlan, opts RunOptions) error {
	dir, stdout, stderr := s.writer.Dir(), s.opts.Stdout, s.opts.Stderr
	if s.ctx.Err() != nil {
		// Interrupted before the run began (while the costs were probed):
		// nothing to record.
		fmt.Fprintf(stderr, "spawnbench: interrupted before anything was recorded; start again with: %s\n", s.opts.Retry)
		return s.ctx.Err()
	}
	fmt.Fprintf(stderr, "spawnbench: %d cells from %s into %s\n", len(plan.Cells), plan.Spec.Path, dir)
	runErr := s.runner.Run(s.ctx, plan, opts)
	if runErr != nil && !IsInterrupt(runErr) {
		return runErr
	}
	set := s.runner.Set()
	var rep *report.Report
	var err error
	if runErr == nil {
		if rep, err = s.WriteReport(); err != nil {
			runErr = err
		}
	}
	fmt.Fprint(stdout, Summary(set))
	if rep != nil {
		// The answer last, where the eye lands when the run ends.
		fmt.Fprint(stdout, "\n"+render.BottomLineText(rep))
	}
	if runErr != nil && errors.Is(context.Cause(s.ctx), ErrOutputGone) {
		fmt.Fprintf(stderr, "spawnbench: %v: stopping as for Ctrl-C\n", ErrOutputGone)
	}
	if runErr != nil && len(set.Provenance.Invocations) == 0 {
		fmt.Fprintf(stderr, "spawnbench: interrupted before anything was recorded; start again with: %s\n", s.opts.Retry)
		return runErr
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "spawnbench: interrupted; %d processes kept in %s; continue with: %s\n", len(set.Runs), dir, s.opts.Retry)
		return runErr
	}
	if busy := BusyCells(set); len(busy) > 0 {
		var cells []string
		for _, c := range busy {
			cells = append(cells, fmt.Sprintf("%s (%s)", c.Key, textfmt.BusyEvidence(c.Load)))
		}
		fmt.Fprintf(stderr, "spawnbench: WARNING: %d cell(s) busy (%s): %s; their figures carry the machine's load, re-measure them on an idle machine (the report gives every cell's load)\n",
			len(busy), stats.BusyRule.Summary, strings.Join(cells, ", "))
	}
	fmt.Fprintf(stderr, "spawnbench: results in %s\n", dir)
	return nil
}

// alreadyComplete ends a --resume into a set that holds the whole plan:
// nothing is measured or recorded; only a report that a kill cut short
// (missing, or older than the set's last invocation) is written again.
func (s *Session) alreadyComplete(plan *spec.RunPlan) error {
	dir, set := s.writer.Dir(), s.runner.Set()
	what := "the whole plan of " + plan.Spec.Path
	if last := set.Provenance.LastMeasuring(); last != nil && last.Shard != nil {
		what = fmt.Sprintf("shard %s of %s", last.Shard, plan.Spec.Path)
	}
	fmt.Fprintf(s.opts.Stderr, "spawnbench: %s is complete: it holds %s (%d cells, %d processes); nothing to run\n", dir, what, len(plan.Cells), len(set.Runs))
	if !ReportStale(dir, set) {
		return nil
	}
	fmt.Fprintf(s.opts.Stderr, "spawnbench: its report was not written whole; writing it\n")
	if _, err := s.WriteReport(); err != nil {
		return err
	}
	return nil
}

// ReportStale: dir's report.md is missing or older than the end of the
// set's last invocation (a kill during the report).
func ReportStale(dir string, set *results.Set) bool {
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
func (s *Session) noteResume(set *results.Set, plan *spec.RunPlan) {
	dir := s.writer.Dir()
	if set.Provenance.LastMeasuring() == nil {
		fmt.Fprintf(s.opts.Stderr, "spawnbench: %s holds no run of %s yet: starting it\n", dir, plan.Spec.Path)
		return
	}
	here := Machine().ID
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
		fmt.Fprintf(s.opts.Stderr, "spawnbench: %s holds %d processes measured on %s (machine %s), not on this one (%s): they stay that machine's, and this machine measures the plan's processes itself\n",
			dir, n, host, m, here)
	}
}

// RetryLine is the command line that continues an interrupted run: args
// as given (the program as it was called), with -o DIR when the directory
// was the default, and --resume.
func RetryLine(args []string, dir string, outGiven, resume bool) string {
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
func refuseOtherSpec(set *results.Set, plan *spec.RunPlan, dir string) error {
	here := Machine().Identity()
	for _, inv := range set.Unfinished() {
		if inv.SpecHash != plan.Spec.Hash && inv.Machine.Identity() == here {
			return &inputerr.Error{Msg: fmt.Sprintf("-o %s holds an unfinished run of another spec, %s (sha256 %.12s, invocation %d); finish it first with `spawnbench run %s -o %s --resume`, or run %s into another directory",
				dir, inv.SpecPath, inv.SpecHash, inv.ID, inv.SpecPath, dir, plan.Spec.Path)}
		}
	}
	return nil
}
