// Package run turns a run plan into results: it builds each environment
// (cached by content hash), runs every repetition as a fresh process,
// records each process whatever its fate, and writes the result set after
// every cell.
//
// This package is opinionated: nothing measured is ever dropped. A
// benchmark that crashes, hangs or runs out of memory becomes a row in
// runs.parquet with its status and stderr, and the run goes on; an
// environment whose toolchain is missing is skipped with the command that
// installs it; an interrupt stops at once and keeps everything so far.
package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

// Options configure a Runner.
type Options struct {
	// OutDir receives the result set; an existing set there is appended to.
	OutDir string
	Cache  *BuildCache
	// Log receives progress and messages (a terminal gets a progress bar).
	Log io.Writer
	// Version is spawnbench's version, for provenance.
	Version string
}

// Runner runs plans into one result set.
type Runner struct {
	opts     Options
	set      *results.Set
	progress progress
}

// New prepares a runner, loading the result set already in opts.OutDir.
func New(opts Options) (*Runner, error) {
	r := &Runner{opts: opts, set: &results.Set{Provenance: results.Provenance{}}}
	if results.Exists(opts.OutDir) {
		old, err := results.Read(opts.OutDir)
		if err != nil {
			return nil, &inputerr.Error{Msg: fmt.Sprintf("-o %s holds files that cannot be appended to: %v; choose a new directory", opts.OutDir, err)}
		}
		r.set = old
	}
	return r, nil
}

// Set is the result set as measured so far.
func (r *Runner) Set() *results.Set { return r.set }

// prepared is an environment ready to run, or the reason it is not.
type prepared struct {
	env      env.Environment
	buildDir string
	skip     string
}

// prepare makes, checks and builds one environment.
func (r *Runner) prepare(ctx context.Context, es spec.EnvironmentSpec) prepared {
	e, err := env.New(es.Kind, es.Name, es.Settings)
	if err != nil {
		return prepared{skip: err.Error()}
	}
	tc := e.Toolchain(ctx)
	r.recordToolchain(es.Name, tc)
	if !tc.Present {
		return prepared{env: e, skip: fmt.Sprintf("toolchain missing: %s; install it with: %s", tc.Problem, tc.Install)}
	}
	r.logf("building %s (%s)...", es.Name, tc.Version)
	dir, cached, err := r.opts.Cache.Build(ctx, e)
	if err != nil {
		return prepared{env: e, skip: fmt.Sprintf("build failed: %v", err)}
	}
	if cached {
		r.logf(" cached\n")
	} else {
		r.logf(" done\n")
	}
	return prepared{env: e, buildDir: dir}
}

// Run executes every cell of the plan. It returns ctx's error if
// interrupted, after writing what was measured.
func (r *Runner) Run(ctx context.Context, plan *spec.RunPlan) error {
	if err := r.checkNoOverlap(plan); err != nil {
		return err
	}
	r.startProvenance(plan.Spec)
	if err := r.write(); err != nil {
		return err
	}
	envs := map[string]prepared{}
	total := 0
	for _, c := range plan.Cells {
		total += c.Processes + c.Warmup
	}
	r.progress = newProgress(r.opts.Log, total)
	defer r.progress.finish()
	var runErr error
	for _, c := range plan.Cells {
		p, ok := envs[c.Env.Name]
		if !ok {
			r.progress.pause()
			p = r.prepare(ctx, c.Env)
			envs[c.Env.Name] = p
			if p.skip != "" {
				r.logf("SKIP %s: %s\n", c.Env.Name, p.skip)
				r.recordSkip(c.Env.Name, p.skip)
			}
			r.progress.resume()
		}
		if p.skip != "" {
			r.progress.add(c.Processes + c.Warmup)
			continue
		}
		if runErr = r.runCell(ctx, plan.Spec, c, p); runErr != nil {
			break
		}
		if err := r.write(); err != nil {
			return err
		}
	}
	r.set.Provenance["ended_at"] = time.Now().UTC().Format(time.RFC3339)
	if runErr != nil {
		r.set.Provenance["interrupted"] = "true"
	}
	if err := r.write(); err != nil {
		return err
	}
	return runErr
}

// runCell runs a cell's warm-up and measured processes.
func (r *Runner) runCell(ctx context.Context, s *spec.Spec, c spec.Cell, p prepared) error {
	bench := env.Sequential
	if c.Mode == "parallel" {
		bench = env.Parallel
	}
	statuses := map[string]int{}
	for i := 0; i < c.Warmup+c.Processes; i++ {
		warm := i < c.Warmup
		process := i
		if !warm {
			process = i - c.Warmup
		}
		if i > 0 && s.Samples.Pause > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(s.Samples.Pause):
			}
		}
		run, err := r.repetition(ctx, s, c, p, bench, process, warm)
		if err != nil {
			return err
		}
		statuses[run.Status]++
		r.progress.add(1)
	}
	r.progress.cellDone(c, statuses, r.cellMedian(c))
	return nil
}

// repetition runs one process and records its samples and its run row.
func (r *Runner) repetition(ctx context.Context, s *spec.Spec, c spec.Cell, p prepared, bench env.Benchmark, process int, warm bool) (results.ProcessRun, error) {
	row := results.ProcessRun{
		Environment: c.Env.Name, Kind: c.Env.Kind, Mode: c.Mode, N: int32(c.N),
		Process: int32(process), Warmup: warm, StartedAt: time.Now().UTC(), CPUs: cpuList(s.CPUs),
	}
	rctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	out, err := p.env.Run(rctx, env.Repetition{
		Benchmark: bench, Arg: c.N, BuildDir: p.buildDir, CPUs: s.CPUs, Timeout: s.Timeout,
	})
	if ctx.Err() != nil {
		// Interrupted: this process's output is incomplete; keep the rest.
		return row, ctx.Err()
	}
	if err != nil {
		row.Status, row.Error, row.ExitCode = results.StatusError, err.Error(), -1
		r.set.Runs = append(r.set.Runs, row)
		return row, nil
	}
	lines, parseErr := parseLines(out.Stdout)
	if len(lines) > c.N {
		parseErr = fmt.Errorf("printed %d spawn lines for n = %d", len(lines), c.N)
		lines = lines[:c.N]
	}
	row.Status, row.Error = classify(out, len(lines), c.N, parseErr)
	row.ExitCode, row.Signal, row.WallNS = int32(out.ExitCode), out.Signal, out.Wall.Nanoseconds()
	row.Samples = int32(len(lines))
	for t, l := range lines {
		r.set.Samples = append(r.set.Samples, results.SpawnSample{
			Environment: c.Env.Name, Kind: c.Env.Kind, Mode: c.Mode, N: int32(c.N),
			Process: int32(process), Thread: int32(t), SpawnNS: l.spawn,
			CreateNS: l.created, JoinedNS: l.joined, Warmup: warm,
		})
	}
	r.set.Runs = append(r.set.Runs, row)
	if row.Status != results.StatusOK {
		r.progress.pause()
		r.logf("%s %s n=%d process %d: %s: %s\n", c.Env.Name, c.Mode, c.N, process, row.Status, firstLine(row.Error))
		r.progress.resume()
	}
	return row, nil
}

// cellMedian is the median measured spawn of a cell, for progress lines.
func (r *Runner) cellMedian(c spec.Cell) time.Duration {
	var v []int64
	for _, s := range r.set.Samples {
		if s.Environment == c.Env.Name && s.Mode == c.Mode && int(s.N) == c.N && !s.Warmup {
			v = append(v, s.SpawnNS)
		}
	}
	if len(v) == 0 {
		return -1
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return time.Duration(v[len(v)/2])
}

// checkNoOverlap refuses to append a cell that the set already holds.
func (r *Runner) checkNoOverlap(plan *spec.RunPlan) error {
	have := map[string]bool{}
	for _, run := range r.set.Runs {
		have[fmt.Sprintf("%s/%s/%d", run.Environment, run.Mode, run.N)] = true
	}
	for _, c := range plan.Cells {
		if k := fmt.Sprintf("%s/%s/%d", c.Env.Name, c.Mode, c.N); have[k] {
			return &inputerr.Error{Msg: fmt.Sprintf("-o %s already holds results for %s (environment/mode/n); choose a new directory or drop -o", r.opts.OutDir, k)}
		}
	}
	return nil
}

// write marks untrusted samples and writes the set.
func (r *Runner) write() error {
	MarkClockTrust(r.set)
	if err := r.set.Write(r.opts.OutDir); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// MarkClockTrust sets each sample's ClockTrusted: false when it breaks
// 0 <= spawn_ns <= joined_ns or its environment failed a calibration check
// in the same set.
func MarkClockTrust(set *results.Set) {
	failed := map[string]bool{}
	for _, c := range set.Calibration {
		if !c.Pass {
			failed[c.Environment] = true
		}
	}
	for i := range set.Samples {
		s := &set.Samples[i]
		coherent := s.SpawnNS >= 0 && (s.JoinedNS == nil || s.SpawnNS <= *s.JoinedNS)
		s.ClockTrusted = coherent && !failed[s.Environment]
	}
}

func (r *Runner) logf(format string, args ...any) {
	if r.opts.Log != nil {
		fmt.Fprintf(r.opts.Log, format, args...)
	}
}

func (r *Runner) recordToolchain(name string, tc env.Toolchain) {
	r.mergeJSON("toolchains", name, tc.Version)
}

func (r *Runner) recordSkip(name, why string) {
	r.mergeJSON("skipped", name, why)
}

// mergeJSON sets key[name] = value in a provenance entry holding a JSON
// object, keeping entries from earlier runs into the same set.
func (r *Runner) mergeJSON(key, name, value string) {
	m := map[string]string{}
	if old := r.set.Provenance[key]; old != "" {
		_ = json.Unmarshal([]byte(old), &m)
	}
	m[name] = value
	b, _ := json.Marshal(m)
	r.set.Provenance[key] = string(b)
}

func (r *Runner) startProvenance(s *spec.Spec) {
	p := r.set.Provenance
	for k, v := range Machine() {
		p[k] = v
	}
	p["spawnbench_version"] = r.opts.Version
	p["spec_path"] = s.Path
	p["spec_name"] = s.Name
	p["spec_hash"] = s.Hash
	p["spec_text"] = string(s.Source)
	p["views_last"] = fmt.Sprint(s.Views.Last)
	p["views_min_n"] = fmt.Sprint(s.Views.MinN)
	p["pinning"] = cpuList(s.CPUs)
	if _, ok := p["started_at"]; !ok {
		p["started_at"] = time.Now().UTC().Format(time.RFC3339)
	}
	delete(p, "interrupted")
}

func cpuList(cpus []int) string {
	parts := make([]string, len(cpus))
	for i, c := range cpus {
		parts[i] = fmt.Sprint(c)
	}
	return strings.Join(parts, ",")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// IsInterrupt reports whether err is the interrupt that stopped a run.
func IsInterrupt(err error) bool { return errors.Is(err, context.Canceled) }
