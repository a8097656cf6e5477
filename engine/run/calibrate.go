package run

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

// Calibrate checks each environment's benchmark clock and records the
// verdicts in calibration.parquet of the runner's result set:
//
//   - sleep: the calibration benchmark sleeps each requested duration; the
//     recorded figure must be at least the request and no more than the
//     process's wall time measured from outside, and the median of the
//     repeats at most request*(1+relative)+absolute;
//   - coherence: sequential runs in which every spawn must satisfy
//     0 <= spawn_ns <= joined_ns, the parent's own bracket around the
//     child's reading; a clock whose origin differs between threads fails.
//
// A failed check marks the environment's samples in the same result set as
// not clock-trusted, now and in later runs appended to it.
func (r *Runner) Calibrate(ctx context.Context, s *spec.Spec, envs []spec.EnvironmentSpec) error {
	cal := s.Calibration
	if cal == nil {
		return &inputerr.Error{Msg: fmt.Sprintf("spec %s has no calibration section; use specs/calibrate.cue or add one (see `spawnbench schema`)", s.Path)}
	}
	r.startProvenance(s)
	for _, es := range envs {
		p := r.prepare(ctx, es)
		if p.skip != "" {
			r.logf("SKIP %s: %s\n", es.Name, p.skip)
			r.recordSkip(es.Name, p.skip)
			continue
		}
		checks, err := r.calibrateEnv(ctx, s, es, p)
		if err != nil {
			return err
		}
		// A new calibration replaces the environment's older verdicts.
		kept := r.set.Calibration[:0]
		for _, c := range r.set.Calibration {
			if c.Environment != es.Name {
				kept = append(kept, c)
			}
		}
		r.set.Calibration = append(kept, checks...)
		if err := r.write(); err != nil {
			return err
		}
	}
	r.set.Provenance["ended_at"] = time.Now().UTC().Format(time.RFC3339)
	return r.write()
}

func (r *Runner) calibrateEnv(ctx context.Context, s *spec.Spec, es spec.EnvironmentSpec, p prepared) ([]results.CalibrationCheck, error) {
	cal := s.Calibration
	var checks []results.CalibrationCheck
	for _, us := range cal.SleepUS {
		var repeats []results.CalibrationCheck
		for k := 0; k < cal.Repeats; k++ {
			req := int64(us) * 1000
			c := results.CalibrationCheck{
				Environment: es.Name, Kind: es.Kind, Check: "sleep", Process: int32(k),
				RequestedNS: req, LowNS: req,
				HighNS: int64(float64(req)*(1+cal.RelativeTolerance)) + cal.AbsoluteTolerance.Nanoseconds(),
			}
			out, err := r.runOnce(ctx, s, p, env.Calibration, us)
			if err != nil {
				return nil, err
			}
			c.WallNS = out.Wall.Nanoseconds()
			lines, perr := parseLines(out.Stdout)
			status, msg := classify(out, len(lines), 1, perr)
			switch {
			case status != results.StatusOK:
				c.MeasuredNS = -1
				c.Detail = status + ": " + msg
			case lines[0].spawn < c.LowNS:
				c.MeasuredNS = lines[0].spawn
				c.Detail = "recorded less than the requested sleep: the clock is coarse or stopped"
			case lines[0].spawn > c.WallNS:
				c.MeasuredNS = lines[0].spawn
				c.Detail = "recorded more than the process's whole wall time: the clock runs fast"
			default:
				c.MeasuredNS = lines[0].spawn
				c.Pass = true
			}
			repeats = append(repeats, c)
		}
		checks = append(checks, judgeOversleep(repeats)...)
	}
	for k := 0; k < cal.CoherenceRuns; k++ {
		c := results.CalibrationCheck{
			Environment: es.Name, Kind: es.Kind, Check: "coherence", Process: int32(k),
			RequestedNS: int64(cal.CoherenceN),
		}
		out, err := r.runOnce(ctx, s, p, env.Sequential, cal.CoherenceN)
		if err != nil {
			return nil, err
		}
		c.WallNS = out.Wall.Nanoseconds()
		lines, perr := parseLines(out.Stdout)
		status, msg := classify(out, len(lines), cal.CoherenceN, perr)
		if len(lines) > 0 {
			c.MeasuredNS = lines[0].spawn
		}
		for _, l := range lines {
			c.MeasuredNS = min(c.MeasuredNS, l.spawn)
			if l.spawn < 0 || (l.joined != nil && l.spawn > *l.joined) || l.spawn > c.WallNS {
				c.Violations++
			}
		}
		switch {
		case status != results.StatusOK:
			c.Detail = status + ": " + msg
		case c.Violations > 0:
			c.Detail = fmt.Sprintf("%d of %d spawns outside 0 <= spawn_ns <= joined_ns: threads do not share one clock", c.Violations, len(lines))
		default:
			c.Pass = true
		}
		checks = append(checks, c)
	}
	return checks, nil
}

// judgeOversleep applies the upper tolerance to the median of a sleep's
// repeats rather than to each: on a busy machine one sleep now and then
// oversleeps (the scheduler, not the clock), while a clock that runs fast
// or steps coarsely does so every time.
func judgeOversleep(repeats []results.CalibrationCheck) []results.CalibrationCheck {
	var measured []int64
	for _, c := range repeats {
		measured = append(measured, c.MeasuredNS)
	}
	slices.Sort(measured)
	med := measured[len(measured)/2]
	for i := range repeats {
		c := &repeats[i]
		switch {
		case med > c.HighNS:
			c.Pass = false
			c.Detail = fmt.Sprintf("the median of %d repeats, %s, is above the request plus tolerance (%s)", len(repeats), time.Duration(med), time.Duration(c.HighNS))
		case c.Pass && c.MeasuredNS > c.HighNS:
			c.Detail = "an oversleep above the tolerance; the median is within it (scheduler noise, not the clock)"
		}
	}
	return repeats
}

// runOnce runs one calibration process; only an interrupt is an error.
func (r *Runner) runOnce(ctx context.Context, s *spec.Spec, p prepared, b env.Benchmark, arg int) (env.Outcome, error) {
	rctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	out, err := p.env.Run(rctx, env.Repetition{Benchmark: b, Arg: arg, BuildDir: p.buildDir, CPUs: s.CPUs, Timeout: s.Timeout})
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	if err != nil {
		out.ExitCode = -1
		out.Stderr = []byte(err.Error())
	}
	return out, nil
}

// WriteVerdicts prints the tolerance used, one line per environment and
// check kind, and a loud warning for every failure.
func WriteVerdicts(w io.Writer, checks []results.CalibrationCheck, cal *spec.Calibration) {
	fmt.Fprintf(w, "sleep passes when request <= recorded <= process wall time, and the median of the repeats <= request x %.2f + %s\n",
		1+cal.RelativeTolerance, cal.AbsoluteTolerance)
	fmt.Fprintf(w, "coherence passes when every spawn has 0 <= spawn_ns <= joined_ns\n\n")
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
				parts = append(parts, fmt.Sprintf("%s→%s", fmtNS(c.RequestedNS), fmtNS(c.MeasuredNS)))
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
		detail := strings.Join(parts, "; ")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.env, k.check, verdict, detail)
	}
	tw.Flush()
	for _, f := range failures {
		fmt.Fprintf(w, "\n!!! CLOCK NOT TRUSTED: %s\n!!! Samples of this environment in this result set are marked clock_trusted = false.\n", f)
	}
}

func fmtNS(ns int64) string {
	return time.Duration(ns).String()
}
