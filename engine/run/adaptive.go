package run

import (
	"context"
	"fmt"
	"math"
	"time"

	"spawnbench/engine/spec"
)

// Adaptive stopping: after the planned processes, every cell whose
// interval (over processes: stats.Summarize of their stored typical
// spawns, as the report computes its figure) is still wider than its
// target gets another round of processes, until it converges, reaches
// its MaxProcesses, or would overrun its Budget of wall time in added
// rounds (judged by the mean wall time of its processes so far). The
// rounds stay interleaved (each round's processes in a seeded random
// order, so load that comes and goes still lands on every cell alike),
// and every decision is taken from the set on disk, so a resumed run
// takes the same decisions and continues where the killed one stopped.
// A cell whose interval a level above its processes sets (it drifted, so
// its batches set it, or it is computed over occasions) gets no more
// rounds: more processes cannot narrow what moves between batches or
// occasions.

// cellState is what the set says of one cell, for the stopping rule.
type cellState struct {
	measured  int           // measured processes (any status)
	wall      time.Duration // their wall time, summed
	next      int           // the next free process index
	added     time.Duration // wall time of processes past the planned ones
	addedN    int           // and their number
	precision float64
	ok        int  // ok processes behind precision
	above     bool // a level above processes sets the interval
	occasion  int  // the occasion of its latest process, for added ones
}

func (r *Runner) cellStates(cells []cell) map[string]*cellState {
	measured, _ := measuredCells(r.Set(), r.machine.ID, "")
	states := map[string]*cellState{}
	for _, c := range cells {
		st := &cellState{}
		states[c.key] = st
		m := measured[c.key]
		if m == nil {
			st.precision = math.Inf(1)
			continue
		}
		for _, run := range m.runs {
			st.occasion = max(st.occasion, int(run.Occasion))
			st.measured++
			st.wall += time.Duration(run.WallNS)
			st.next = max(st.next, int(run.Process)+1)
			if int(run.Process) >= c.processes {
				st.added += time.Duration(run.WallNS)
				st.addedN++
			}
		}
		st.precision = math.Inf(1)
		if e := m.estimate(); e != nil {
			st.precision, st.ok, st.above = e.Precision, e.Processes, e.Windowed || e.Occasions > 0
		}
		// The steady state's view too, where the bottom line quotes it:
		// the cell has converged only when both views have.
		if a := c.adaptive; a != nil && a.Last > 0 {
			if e := m.lastEstimate(r.Set(), a.Last); e == nil {
				st.precision = math.Inf(1)
			} else if e.Precision > st.precision || e.Windowed || e.Occasions > 0 {
				st.precision = max(st.precision, e.Precision)
				st.above = st.above || e.Windowed || e.Occasions > 0
			}
		}
	}
	return states
}

// adapt runs rounds of processes for the cells that have not converged.
func (r *Runner) adapt(ctx context.Context, cells []cell, prep map[string]prepared, seed int64, opts RunOptions) error {
	for round := 1; ; round++ {
		states := r.cellStates(cells)
		var batch []step
		open := 0
		for ci, c := range cells {
			a := c.adaptive
			if a == nil || prep[c.env.Name].skip != "" {
				continue
			}
			st := states[c.key]
			if st.precision <= c.precision || st.measured >= a.MaxProcesses || st.above {
				continue
			}
			// No process is started that the cell's processes so far say
			// would overrun the budget: a round of browser processes can
			// take minutes.
			k := min(a.Round, a.MaxProcesses-st.measured)
			if st.measured > 0 {
				mean := st.wall / time.Duration(st.measured)
				k = min(k, int((a.Budget-st.added)/max(mean, time.Nanosecond)))
			}
			if k <= 0 {
				continue
			}
			open++
			for i := range k {
				batch = append(batch, step{Cell: ci, Process: st.next + i, Occasion: st.occasion})
			}
		}
		if len(batch) == 0 {
			return nil
		}
		r.logf("adaptive round %d: %d %s above target precision, %d processes more\n", round, open, plural(open, "cell", "cells"), len(batch))
		if err := r.runRound(ctx, cells, prep, batch, seed^int64(round)<<32, open, opts); err != nil {
			return err
		}
	}
}

// runRound runs a round of processes added after the planned ones (of
// open cells) in an order of their own, seeded from seed and what the
// set holds, so that a resume replays the same order.
func (r *Runner) runRound(ctx context.Context, cells []cell, prep map[string]prepared, batch []step, seed int64, open int, opts RunOptions) error {
	order := make([]int, len(batch))
	for i := range order {
		order[i] = i
	}
	spec.Shuffle(order, seed^int64(len(r.Set().Runs)))
	r.progress = newProgress(r.opts.Log, expectedSteps(cells, batch, opts.Costs), open, opts.ProgressEvery)
	defer r.progress.finish()
	for _, i := range order {
		st := batch[i]
		c := cells[st.Cell]
		if err := r.process(ctx, c, prep[c.env.Name], st); err != nil {
			return err
		}
		r.progress.add(1)
	}
	return nil
}

// Converged describes, per adaptive cell of the set, whether it reached
// its target: for the closing lines of a run.
func (r *Runner) convergence(cells []cell) []string {
	states := r.cellStates(cells)
	var out []string
	for _, c := range cells {
		if c.adaptive == nil {
			continue
		}
		st := states[c.key]
		if st.precision > c.precision {
			prec := "no interval"
			if !math.IsInf(st.precision, 0) {
				prec = fmt.Sprintf("±%.3g%%", 100*st.precision)
			}
			why := ""
			if st.above {
				why = "; a level above processes sets its interval (drift or occasions), so more processes would not narrow it"
			}
			out = append(out, fmt.Sprintf("%s not converged: %s over %d processes (target ±%.3g%%)%s", c.key, prec, st.ok, 100*c.precision, why))
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
