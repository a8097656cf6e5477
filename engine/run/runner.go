// Package run turns a run plan into results: it builds every environment
// first, then runs the plan's schedule one fresh process at a time,
// recording each process, whatever its fate, the moment it ends.
//
// This package is opinionated: nothing measured is ever dropped or
// recorded twice. A benchmark that crashes, hangs or runs out of memory
// becomes a row in runs.parquet with its status and stderr, and the run
// goes on; an environment whose toolchain is missing is skipped with the
// command that installs it; an interrupt stops at once, keeps everything
// so far and is recorded as such; a killed run is resumed, not repeated.
//
// Run is also where the cost model (engine/cost, plain data) meets this
// machine: MachineCosts rescales it by the cost summaries of the sets
// measured here, or by a probe, a few processes prepared and run as every
// run's are, by a runner that records nothing.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"spawnbench/engine/browser"
	"spawnbench/engine/buildcache"
	"spawnbench/engine/cost"
	"spawnbench/engine/env"
	"spawnbench/engine/hostfacts"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/proc"
	"spawnbench/engine/protocol"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
	"spawnbench/engine/stats"
)

// Options configure a Runner.
type Options struct {
	Cache *buildcache.Cache
	// Log receives progress and messages (a terminal gets a progress bar).
	Log io.Writer
	// Version is spawnbench's version, for provenance.
	Version string
	// Args is the command line, for provenance.
	Args []string
	// OwnWork, when set, is spawnbench's own work per process as it was
	// measured earlier (proc.MeasureOwnWork; by this process, or by
	// another that passed it in SPAWNBENCH_OWN_WORK), for a caller that
	// starts many short runs one after another, such as the tests: each
	// run records it rather than spend 210 processes measuring it again.
	// nil measures it at the run's start.
	OwnWork *proc.OwnWork
}

// Runner runs plans into one result set, through its writer.
type Runner struct {
	opts Options
	// buildTimeout bounds each build step and toolchain probe (the
	// spec's limits.build_timeout); 0 for none.
	buildTimeout time.Duration
	w            *results.Writer
	inv          int32
	machine      results.Machine
	progress     progress
	// ownWork is this invocation's measure of spawnbench's own work per
	// process (nil when it could not be measured), recorded in every row.
	ownWork *results.OwnWork
	// unsettled are the cells a settle step has already said it waited
	// for in vain.
	unsettled map[string]bool
	// cappedInARow counts the latest processes in a row whose settle
	// wait reached its cap.
	cappedInARow int
	// tracer traces the processes of "@traced" environments (trace.go).
	tracer tracer
}

// New prepares a runner writing through w (which holds the directory).
func New(w *results.Writer, opts Options) *Runner {
	return &Runner{opts: opts, w: w, machine: Machine()}
}

// Set is the result set as measured so far.
func (r *Runner) Set() *results.Set { return r.w.Set() }

// Invocation is the ID of the runner's current (or last) invocation.
func (r *Runner) Invocation() int32 { return r.inv }

// prepared is an environment ready to run, or the reason it is not.
type prepared struct {
	env      *env.Environment
	buildDir string
	skip     string
	skipKind skipKind
}

// prepare makes, checks and builds one environment, and records its
// toolchain (a runner without a writer, the probe's, records nothing).
// Only an interrupt is an error: anything else is a skip with its reason.
func (r *Runner) prepare(ctx context.Context, es spec.EnvironmentSpec) (prepared, error) {
	e, err := env.New(es.Name, es.Kind, es.Payload, es.Host, es.Settings)
	if err != nil {
		return prepared{skip: err.Error()}, nil
	}
	if r.buildTimeout > 0 {
		ctx = proc.WithStepLimit(ctx, r.buildTimeout, "limits.build_timeout", r.opts.Log)
	}
	r.logf("checking %s...", es.Name)
	tc := e.Toolchain(ctx)
	switch {
	case tc.Present:
		r.logf(" %s\n", tc.Version)
	case tc.Unfit:
		r.logf(" cannot run it\n")
	default:
		r.logf(" missing\n")
	}
	if ctx.Err() != nil {
		return prepared{}, ctx.Err()
	}
	if r.w != nil { // a probe's runner records nothing
		if err := r.w.Toolchain(r.inv, es.Name, tc.Version); err != nil {
			return prepared{}, err
		}
	}
	if tc.Unfit {
		return prepared{env: e, skip: "toolchain cannot run it: " + tc.Problem}, nil
	}
	if !tc.Present {
		return prepared{env: e, skip: fmt.Sprintf("toolchain missing: %s; install it with: %s", tc.Problem, tc.Install)}, nil
	}
	r.logf("building %s...", es.Name)
	dir, cached, err := r.opts.Cache.Build(ctx, e)
	if ctx.Err() != nil {
		r.logf(" interrupted\n")
		return prepared{}, ctx.Err()
	}
	if err != nil {
		r.logf(" failed\n")
		return prepared{env: e, skip: fmt.Sprintf("build failed: %v", err), skipKind: skipBuild}, nil
	}
	if cached {
		r.logf(" cached\n")
	} else {
		r.logf(" done\n")
	}
	// The host's own files beside the payload's build, where it needs any.
	if dir, err = e.Stage(ctx, dir); err != nil {
		return prepared{env: e, skip: fmt.Sprintf("staging for host %s failed: %v", es.Host, err)}, nil
	}
	return prepared{env: e, buildDir: dir}, nil
}

// prepareAll builds every environment named in names, in order, before
// anything is measured, and records the skips.
func (r *Runner) prepareAll(ctx context.Context, envs []spec.EnvironmentSpec) (map[string]prepared, error) {
	out := map[string]prepared{}
	for _, es := range envs {
		if _, ok := out[es.Name]; ok {
			continue
		}
		p, err := r.prepare(ctx, es)
		if err != nil {
			return out, err
		}
		if p.skip != "" {
			r.logf("SKIP %s: %s\n", es.Name, p.skip)
			if err := r.w.Skip(r.inv, es.Name, p.skip); err != nil {
				return out, err
			}
		}
		out[es.Name] = p
	}
	return out, nil
}

// closeAll ends what the environments keep between processes (warm
// browsers), at the end of a run, interrupted or not.
func (r *Runner) closeAll(prep map[string]prepared) {
	for name, p := range prep {
		if p.env == nil {
			continue
		}
		if err := p.env.Close(); err != nil {
			r.logf("warning: %s: %v\n", name, err)
		}
	}
}

// RunOptions say how Run treats the set already in the directory and
// the order.
type RunOptions struct {
	// Resume keeps the processes the set holds and runs only the missing
	// ones of each cell, in the order of the recorded seed.
	Resume bool
	// Seed, when set, replaces the spec's seed of the interleaved order.
	Seed *int64
	// Shard, when set, is recorded as the part of the spec's plan that
	// the plan given to Run is (the caller has cut it with
	// spec.RunPlan.Shard).
	Shard *results.Shard
	// Costs give the expected time of each process, for the ETA; nil is
	// the built-in reference set's.
	Costs *cost.Model
	// ProgressEvery is how often a progress line is printed where there
	// is no terminal; 0 is ProgressEvery.
	ProgressEvery time.Duration
}

// Run executes the plan's schedule. With opts.Resume, processes the set
// already holds are kept and only the missing ones run; without, a plan
// that overlaps the set's cells is refused. It returns ctx's error if
// interrupted, after recording what was measured.
func (r *Runner) Run(ctx context.Context, plan *spec.RunPlan, opts RunOptions) error {
	cells := cellsOf(plan)
	if err := r.checkPlan(cells, opts.Resume); err != nil {
		return err
	}
	command := "run"
	if opts.Resume {
		last, err := r.resumes(plan, opts)
		if err != nil {
			return err
		}
		// Resuming a directory no run wrote into is a plain run.
		if last != nil {
			command = "resume"
			seed := last.Seed
			opts.Seed = &seed
		}
	}
	if opts.Seed != nil {
		reschedule(plan, *opts.Seed)
	}
	order, seed, steps := scheduleOf(plan)
	r.measureOwnWork(ctx)
	if err := r.begin(command, plan.Spec, cells, order, seed, opts.Shard); err != nil {
		return err
	}
	runErr := r.measure(ctx, plan, cells, steps, seed, opts)
	if err := r.w.End(r.inv, runErr != nil && !isNothingMeasured(runErr)); err != nil {
		return err
	}
	return runErr
}

// envsOf is the environment of each cell, in order.
func envsOf(cells []cell) []spec.EnvironmentSpec {
	envs := make([]spec.EnvironmentSpec, 0, len(cells))
	for _, c := range cells {
		envs = append(envs, c.env)
	}
	return envs
}

func (r *Runner) measure(ctx context.Context, plan *spec.RunPlan, cells []cell, steps []step, seed int64, opts RunOptions) error {
	envs := envsOf(cells)
	prep, err := r.prepareAll(ctx, envs)
	defer r.closeAll(prep)
	if err != nil {
		return err
	}
	done := r.finished()
	left := map[int]int{} // steps still to run per cell, for progress lines
	var todo []step
	already := 0
	for _, st := range steps {
		c := cells[st.Cell]
		if done[processKey{c.key, st.Process, st.Warmup}] {
			already++
			continue
		}
		if prep[c.env.Name].skip != "" {
			continue
		}
		todo = append(todo, st)
		left[st.Cell]++
	}
	if len(todo) == 0 && already == 0 {
		return nothingMeasured(envs, prep)
	}
	if skipped := len(steps) - len(todo); skipped > 0 && len(done) > 0 {
		r.logf("resuming: %d processes already measured, %d to run\n", len(done), len(todo))
	}
	r.progress = newProgress(r.opts.Log, expectedSteps(cells, todo, opts.Costs), len(left), opts.ProgressEvery)
	defer r.progress.finish()
	for _, st := range todo {
		c := cells[st.Cell]
		if err := r.process(ctx, c, prep[c.env.Name], st); err != nil {
			return err
		}
		if left[st.Cell]--; left[st.Cell] == 0 {
			r.progress.cellDone(r.Set(), c)
		}
		r.progress.add(1)
	}
	r.progress.finish()
	if err := r.topUp(ctx, plan, cells, prep, seed, opts); err != nil {
		return err
	}
	if err := r.adapt(ctx, cells, prep, seed, opts); err != nil {
		return err
	}
	for _, line := range r.convergence(cells) {
		r.logf("%s\n", line)
	}
	return nil
}

// processKey identifies a process within a set.
type processKey struct {
	cell    string
	process int
	warmup  bool
}

func (r *Runner) finished() map[processKey]bool {
	done := map[processKey]bool{}
	for _, run := range r.Set().Runs {
		if run.Machine != r.machine.ID {
			continue // another machine's, merged in
		}
		done[processKey{results.CellKey(run.Environment, run.Mode, int64(run.N)), int(run.Process), run.Warmup}] = true
	}
	return done
}

// checkPlan refuses a plan that measures a cell twice, and (unless
// resuming) a plan whose cells the set already holds.
func (r *Runner) checkPlan(cells []cell, resume bool) error {
	if len(cells) == 0 {
		return inputerr.New("the plan has no cells: give the spec at least one environment, mode and n")
	}
	seen := map[string]bool{}
	for _, c := range cells {
		if seen[c.key] {
			return inputerr.New("the plan measures cell %s twice; one cell is one measurement: remove the duplicate n or mode from the spec", c.key)
		}
		seen[c.key] = true
	}
	if resume {
		return nil
	}
	have := map[string]bool{}
	for _, run := range r.Set().Runs {
		if run.Machine != r.machine.ID {
			continue // another machine's cells: this one may measure them too
		}
		have[results.CellKey(run.Environment, run.Mode, int64(run.N))] = true
	}
	for _, c := range cells {
		if have[c.key] {
			return inputerr.New("-o %s already holds results for %s (environment/mode/n); add --resume to continue an interrupted run into it, or choose a new directory", r.w.Dir(), c.key)
		}
	}
	return nil
}

// begin records the invocation before anything runs. The spec is read
// for provenance only; the pinning recorded is the spec's (an environment
// may have its own: each run row says its process's).
func (r *Runner) begin(command string, s *spec.Spec, cells []cell, order string, seed int64, shard *results.Shard) error {
	cpus := s.CPUs
	inv := results.Invocation{
		Command: command, Args: r.opts.Args, Version: r.opts.Version,
		SpecPath: s.Path, SpecName: s.Name, SpecHash: s.Hash, SpecText: string(s.Source), Overrides: s.Overrides,
		Resolved: s.Resolved, Order: order, Seed: seed, Views: results.Views{Last: s.Views.Last, MinN: s.Views.MinN},
		CPUs: cpus, Machine: r.machine, StartedAt: time.Now().UTC(), Shard: shard,
		Toolchains: map[string]string{}, Skipped: map[string]string{}, OwnWork: r.ownWork,
	}
	for _, c := range cells {
		if command == "calibrate" {
			break // its checks are not cells of spawns
		}
		inv.Planned = append(inv.Planned, results.PlannedCell{
			Environment: c.env.Name, Kind: c.env.Kind, Family: familyOf(c.env), Mode: c.mode, N: c.n, Processes: c.processes, Warmup: c.warmup,
			Placement: c.env.Placement, PlacementOf: c.env.PlacementOf,
		})
	}
	r.buildTimeout = s.BuildTimeout
	kind, detail := proc.Containment()
	inv.Containment, inv.ContainmentDetail = kind, detail
	r.logf("process trees held by: %s (%s)\n", kind, detail)
	if slices.ContainsFunc(cells, func(c cell) bool { return c.env.Host == "chromium" || c.env.Host == "firefox" }) {
		inv.BrowserIsolation, inv.BrowserIsolationDetail = browser.Isolation()
		r.logf("browsers kept from other users by: %s (%s)\n", inv.BrowserIsolation, inv.BrowserIsolationDetail)
	}
	// What a SIGKILLed spawnbench left in the temporary directory.
	browser.RemoveStaleProfiles()
	id, err := r.w.Begin(inv)
	r.inv = id
	return err
}

// measureOwnWork measures what starting and ending a process costs the
// machine beyond what is charged to it (proc.OwnWork), so that the busy
// rule does not call a cell of short processes busy on an idle machine,
// and says when other programs already load the machine.
func (r *Runner) measureOwnWork(ctx context.Context) {
	r.ownWork = nil
	w, when := proc.OwnWork{}, ""
	if r.opts.OwnWork != nil {
		w, when = *r.opts.OwnWork, ", measured earlier"
	} else {
		var err error
		if w, err = proc.MeasureOwnWork(ctx); err != nil {
			r.logf("warning: %v; the busy rule counts it as other programs' work\n", err)
			return
		}
	}
	r.ownWork = &results.OwnWork{PerProcessNS: w.PerProcessNS, OthersCPUs: w.OthersCPUs, Processes: w.Processes}
	r.logf("machine: spawnbench's own work %s a process (not others'), others' load %.2f CPUs (over %d trivial processes%s)\n",
		time.Duration(w.PerProcessNS).Round(time.Microsecond), w.OthersCPUs, w.Processes, when)
	if w.OthersCPUs > stats.BusyThreshold {
		r.logf("warning: other programs use %.2f CPUs of this machine; each cell's load is recorded, and %s\n", w.OthersCPUs, stats.BusyRule.Summary)
	}
}

// process runs one process, after the cell's pause and once the machine
// has settled, and records its row and samples.
func (r *Runner) process(ctx context.Context, c cell, p prepared, st step) error {
	settled, settleKnown := r.settle(ctx, c)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	row := results.ProcessRun{
		Environment: c.env.Name, Kind: c.env.Kind, Payload: c.env.Payload, Host: c.env.Host, Family: familyOf(c.env), ClockStepNS: p.env.Facts().ClockStepNS,
		Mode: c.mode, N: int32(c.n), Process: int32(st.Process), Warmup: st.Warmup, StartedAt: time.Now().UTC(), CPUs: cpuList(c.cpus),
		AllowedCPUs: allowedCPUs(c.cpus), Seq: int32(st.Seq), Occasion: int32(st.Occasion), Invocation: r.inv, Machine: r.machine.ID,
		Placement: c.env.Placement, PlacementOf: c.env.PlacementOf,
	}
	if settleKnown {
		waited, others := settled.Waited.Nanoseconds(), settled.OthersCPUs
		row.SettleNS, row.SettleOthersCPUs = &waited, &others
	}
	lines := protocol.NewCollector(c.n)
	traceCtx, tr := r.startTrace(ctx, c)
	out, err := r.runOne(traceCtx, p, c, c.bench, c.arg, lines)
	traces := r.endTrace(tr, c, &row, lines)
	awaitInterrupt(ctx, out)
	if ctx.Err() != nil {
		// Interrupted: this process's output is incomplete; keep the rest.
		return ctx.Err()
	}
	if err != nil {
		row.Status, row.Error, row.ExitCode = results.StatusError, err.Error(), -1
		return r.w.Process(row, nil)
	}
	row.Status, row.Error = classify(out, lines, c.n)
	row.ExitCode, row.Signal, row.WallNS = int32(out.ExitCode), out.Signal, out.Wall.Nanoseconds()
	recordLoad(&row, out)
	if r.ownWork != nil && row.OthersCPUNS != nil {
		row.OwnWorkNS = &r.ownWork.PerProcessNS
	}
	if err := r.w.ProcessTraced(row, lines.Lines(), traces); err != nil {
		return err
	}
	if row.Status != results.StatusOK {
		r.progress.pause()
		r.logf("%s %s n=%d process %d: %s: %s\n", c.env.Name, c.mode, c.n, st.Process, row.Status, firstLine(row.Error))
		r.progress.resume()
	}
	if n := row.RefusedRequests; n != nil && *n > 0 {
		r.progress.pause()
		r.logf("warning: %s %s n=%d process %d: its page server refused %d requests without the page's secret (another local user or web page; none reached the page)\n", c.env.Name, c.mode, c.n, st.Process, *n)
		r.progress.resume()
	}
	return nil
}

// runOne runs one process of benchmark b under the cell's timeout and
// pinning, its stdout parsed into lines as it streams (memory bounded by
// the lines wanted, not by what the benchmark prints).
func (r *Runner) runOne(ctx context.Context, p prepared, c cell, b env.Benchmark, arg int, lines *protocol.Collector) (env.Outcome, error) {
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	out, err := p.env.Run(rctx, env.Repetition{Benchmark: b, Arg: arg, BuildDir: p.buildDir, CPUs: c.cpus, Stdout: lines, Traced: c.env.Traced})
	// An environment that returns its output whole instead: parse it too.
	_, _ = lines.Write(out.Stdout)
	lines.Close()
	return out, err
}

func (r *Runner) logf(format string, args ...any) {
	if r.opts.Log != nil {
		fmt.Fprintf(r.opts.Log, format, args...)
	}
}

func cpuList(cpus []int) results.CPUList {
	out := make(results.CPUList, len(cpus))
	for i, c := range cpus {
		out[i] = int32(c)
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// familyOf is the family the environment's rows record.
func familyOf(e spec.EnvironmentSpec) string {
	if f := env.Family(e.Payload, e.Host); f != "" {
		return f
	}
	return hostfacts.Other
}

// IsInterrupt reports whether err is the interrupt that stopped a run.
func IsInterrupt(err error) bool { return errors.Is(err, context.Canceled) }
