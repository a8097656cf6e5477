package run

import (
	"context"
	"syscall"
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

// A resume is right on every attempt of the same command line, which is
// what a scheduler's retry needs: where the directory holds nothing of a
// run yet it starts one, where it holds part of one it continues it, and
// where it holds all of it there is nothing to do (Complete). Only a
// directory of another spec, shard or seed is refused.

// resumes is the invocation a resume of plan continues (nil: the set has
// no measuring run yet, so the resume is a plain run), or why plan
// cannot continue it.
func (r *Runner) resumes(plan *spec.RunPlan, opts RunOptions) (*results.Invocation, error) {
	last := r.Set().Provenance.LastMeasuring()
	if last == nil {
		return nil, nil
	}
	if last.SpecHash != plan.Spec.Hash {
		return nil, inputerr.New("--resume: %s was made by spec %s (sha256 %.12s), not by %s (sha256 %.12s); resume with the same spec, or run into a new directory",
			r.w.Dir(), last.SpecPath, last.SpecHash, plan.Spec.Path, plan.Spec.Hash)
	}
	if !sameShard(last.Shard, opts.Shard) {
		return nil, inputerr.New("--resume: the run in %s was %s, not %s; resume it with the same --shard", r.w.Dir(), shardText(last.Shard), shardText(opts.Shard))
	}
	if opts.Seed != nil && *opts.Seed != last.Seed {
		return nil, inputerr.New("--resume --seed %d: the run in %s used seed %d; drop --seed to resume in the same order", *opts.Seed, r.w.Dir(), last.Seed)
	}
	return last, nil
}

// Complete says whether a resume of plan has nothing to do: one machine
// holds all of it, every invocation that measured there having ended
// (none interrupted or killed, unless a later one finished its work), and
// every cell of plan planned by one of them, with all its processes
// (or its environment skipped, as the set records). A directory a resume
// of plan would refuse is refused here the same way.
//
// The machine need not be this one: a task a scheduler runs again on
// another node, after the first node finished it, has nothing to do.
func (r *Runner) Complete(plan *spec.RunPlan, opts RunOptions) (bool, error) {
	if _, err := r.resumes(plan, opts); err != nil {
		return false, err
	}
	set := r.Set()
	machines := map[string]bool{}
	for _, inv := range set.Provenance.Invocations {
		if inv.Command == "run" || inv.Command == "resume" {
			machines[inv.Machine.Identity()] = true
		}
	}
	for m := range machines {
		if completeOn(set, m, plan) {
			return true, nil
		}
	}
	return false, nil
}

// completeOn: machine m's part of set is complete (results.Set.Incomplete)
// and its measuring invocations of plan's spec planned every cell of plan.
func completeOn(set *results.Set, m string, plan *spec.RunPlan) bool {
	part := &results.Set{}
	planned := map[string]bool{}
	for _, inv := range set.Provenance.Invocations {
		if inv.Machine.Identity() != m {
			continue
		}
		part.Provenance.Invocations = append(part.Provenance.Invocations, inv)
		if (inv.Command == "run" || inv.Command == "resume") && inv.SpecHash == plan.Spec.Hash {
			for _, c := range inv.Planned {
				planned[c.Key()] = true
			}
		}
	}
	for _, run := range set.Runs {
		machine := run.Machine
		if inv := set.Provenance.Find(run.Invocation); machine == "" && inv != nil {
			machine = inv.Machine.Identity() // a row of a set older than machine IDs
		}
		if machine == m {
			part.Runs = append(part.Runs, run)
		}
	}
	for _, c := range plan.Cells {
		if !planned[c.Key()] {
			return false
		}
	}
	return len(part.Incomplete()) == 0
}

// interruptGrace is how long a benchmark's death by SIGINT or SIGTERM
// waits for spawnbench's own interrupt (see awaitInterrupt).
const interruptGrace = 2 * time.Second

// awaitInterrupt waits, after a benchmark ended by SIGINT or SIGTERM, up
// to interruptGrace for ctx's interrupt. A scheduler that stops a task
// signals every process of it at once (Slurm's requeue and preemption
// do), so the benchmark may die of the signal a moment before spawnbench
// hears of it: then it is the process in flight of an interrupt, not one
// that crashed, and the retry measures it again. A benchmark that ends
// so on its own costs the wait, and is recorded as it ended.
func awaitInterrupt(ctx context.Context, out env.Outcome) {
	if ctx.Err() != nil || out.Signal != syscall.SIGTERM.String() && out.Signal != syscall.SIGINT.String() {
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(interruptGrace):
	}
}
