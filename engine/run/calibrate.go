package run

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"spawnbench/engine/clockcheck"
	"spawnbench/engine/env"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/protocol"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

// Calibrate checks each environment's benchmark clock (the rules are
// clockcheck's) and records the verdicts in calibration.parquet of the
// result set as they are made, so an interrupt keeps what was checked. A
// failed check marks the environment's samples in the same result set as
// not clock-trusted, now and in later runs appended to it.
func (r *Runner) Calibrate(ctx context.Context, s *spec.Spec, envs []spec.EnvironmentSpec) error {
	cal := s.Calibration
	if cal == nil {
		return inputerr.New("spec %s has no calibration section; use specs/calibrate.cue or add one (see `spawnbench schema`)", s.Path)
	}
	var cells []cell
	for _, es := range envs {
		cells = append(cells, cell{key: es.Name + "/calibration", env: es, mode: "calibration", timeout: s.Timeout, cpus: s.CPUsOf(es)})
	}
	if err := r.begin("calibrate", s, cells, "", 0, nil); err != nil {
		return err
	}
	runErr := r.calibrateAll(ctx, cal, cells)
	if err := r.w.End(r.inv, runErr != nil && !isNothingMeasured(runErr)); err != nil {
		return err
	}
	return runErr
}

func (r *Runner) calibrateAll(ctx context.Context, cal *spec.Calibration, cells []cell) error {
	envs := envsOf(cells)
	prep, err := r.prepareAll(ctx, envs)
	defer r.closeAll(prep)
	if err != nil {
		return err
	}
	if len(cells) > 0 && allSkipped(envs, prep) {
		return nothingMeasured(envs, prep)
	}
	for _, c := range cells {
		if p := prep[c.env.Name]; p.skip == "" {
			if err := r.calibrateEnv(ctx, cal, c, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// calibrateEnv runs one environment's checks, recording each sleep's
// repeats and each coherence run as soon as they are judged.
func (r *Runner) calibrateEnv(ctx context.Context, cal *spec.Calibration, c cell, p prepared) error {
	first := true
	record := func(checks []results.CalibrationCheck) error {
		if len(checks) == 0 {
			return nil
		}
		for i := range checks {
			checks[i].Invocation = r.inv
			checks[i].Host = c.env.Host
			checks[i].ClockStepNS = p.env.Facts().ClockStepNS
		}
		err := r.w.Calibration(c.env.Name, checks, first)
		first = false
		return err
	}
	for _, us := range cal.SleepUS {
		var repeats []results.CalibrationCheck
		for k := 0; k < cal.Repeats; k++ {
			check := clockcheck.Sleep(c.env.Name, c.env.Kind, k, int64(us)*1000, cal.RelativeTolerance, cal.AbsoluteTolerance)
			out, lines, err := r.runChecked(ctx, c, p, env.Calibration, us, 1)
			if err != nil {
				// Interrupted: keep the repeats judged so far.
				if rerr := record(clockcheck.JudgeOversleep(repeats)); rerr != nil {
					return rerr
				}
				return err
			}
			status, msg := classify(out, lines, 1)
			clockcheck.JudgeSleep(&check, status, msg, lines.Lines(), out.Wall)
			if f := lines.Clock(); f != nil {
				check.ObservedStepNS, check.ClockReadNS = &f.StepNS, &f.ReadNS
			}
			repeats = append(repeats, check)
		}
		if err := record(clockcheck.JudgeOversleep(repeats)); err != nil {
			return err
		}
	}
	for k := 0; k < cal.CoherenceRuns; k++ {
		out, lines, err := r.runChecked(ctx, c, p, env.Sequential, cal.CoherenceN, cal.CoherenceN)
		if err != nil {
			return err
		}
		status, msg := classify(out, lines, cal.CoherenceN)
		check := clockcheck.Coherence(c.env.Name, c.env.Kind, p.env.Facts().ClockStepNS, k, cal.CoherenceN, status, msg, lines.Lines(), out.Wall)
		if err := record([]results.CalibrationCheck{check}); err != nil {
			return err
		}
	}
	return nil
}

// runChecked runs one calibration process; only an interrupt is an
// error. A process that could not start is an outcome with its reason.
func (r *Runner) runChecked(ctx context.Context, c cell, p prepared, b env.Benchmark, arg, want int) (env.Outcome, *protocol.Collector, error) {
	lines := protocol.NewCollector(want)
	out, err := r.runOne(ctx, p, c, b, arg, lines)
	if ctx.Err() != nil {
		return out, lines, ctx.Err()
	}
	if err != nil {
		out.ExitCode = -1
		out.Stderr = []byte(err.Error())
	}
	return out, lines, nil
}

// WriteVerdicts prints the tolerance used, one line per environment and
// check kind, and a loud warning for every failure.
func WriteVerdicts(w io.Writer, checks []results.CalibrationCheck, cal *spec.Calibration) {
	fmt.Fprintf(w, "sleep passes when request <= recorded <= process wall time, and the median of the repeats <= request x %.2f + %s\n",
		1+cal.RelativeTolerance, cal.AbsoluteTolerance)
	fmt.Fprintf(w, "coherence passes when every spawn has 0 <= spawn_ns <= joined_ns, each bound allowed one step of the host's clock:\n")
	stepped := map[string]bool{}
	for _, c := range checks {
		if c.Check == "coherence" && !stepped[c.Environment] {
			stepped[c.Environment] = true
			fmt.Fprintf(w, "  %s (%s on %s): %s\n", c.Environment, c.Kind, c.Host, clockcheck.BracketText(c.ClockStepNS))
		}
	}
	fmt.Fprintln(w)
	type key struct{ env, check string }
	var order []key
	agg := map[key][]results.CalibrationCheck{}
	for _, c := range checks {
		k := key{c.Environment, c.Check}
		if _, ok := agg[k]; !ok {
			order = append(order, k)
		}
		agg[k] = append(agg[k], c)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ENVIRONMENT\tCHECK\tVERDICT\tDETAIL")
	var failures []string
	for _, k := range order {
		var parts, bad []string
		for _, c := range agg[k] {
			if k.check == "sleep" {
				parts = append(parts, fmt.Sprintf("%s→%s", time.Duration(c.RequestedNS), time.Duration(c.MeasuredNS)))
			} else {
				parts = append(parts, fmt.Sprintf("%d spawns, %d outside bracket", c.RequestedNS, c.Violations))
			}
			if !c.Pass {
				bad = append(bad, c.Detail)
			}
		}
		verdict := "pass"
		if len(bad) > 0 {
			verdict = "FAIL"
			failures = append(failures, fmt.Sprintf("%s %s: %s", k.env, k.check, bad[0]))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.env, k.check, verdict, strings.Join(parts, "; "))
	}
	tw.Flush()
	for _, f := range failures {
		fmt.Fprintf(w, "\n!!! CLOCK NOT TRUSTED: %s\n!!! Samples of this environment in this result set are marked clock_trusted = false.\n", f)
	}
}
