package run

import (
	"context"
	"fmt"
	"time"

	"spawnbench/engine/cost"
	"spawnbench/engine/report"
	"spawnbench/engine/spec"
)

// The bottom line's top-up: the allocation before the run sizes each
// ratio from an earlier set's spreads, and a run's own spreads scatter
// about those, so in a run some ratios come out a little wider than the
// target. With bottom_line.top_up, once the planned processes are done,
// the run builds its own report and gives the ratios still short the
// processes its own spreads call for (report.TopUp: the cheapest first,
// none for a ratio the rest of the top-up cannot reach), in rounds,
// until the top-up's wall time is spent. Every decision is taken from
// the set on disk, so a resumed run goes on from what the set holds,
// within the same top-up. A shard sees only its own cells, so a sharded
// run has no top-up.

// topUpRounds bounds the rounds where the budget would not: processes
// that fail at once spend almost none of it. The rounds otherwise end
// when no short ratio is within the rest of the budget, which a resumed
// run of a finished set finds at once, so it adds nothing.
const topUpRounds = 10

// topUp runs the bottom line's top-up rounds of plan, whose cells are
// cells (in the same order).
func (r *Runner) topUp(ctx context.Context, plan *spec.RunPlan, cells []cell, prep map[string]prepared, seed int64, opts RunOptions) error {
	b := plan.Spec.BottomLine
	if b == nil || b.From == "" || b.TopUp <= 0 || opts.Shard != nil {
		return nil
	}
	covered := map[report.CellKey]int{} // the covered cells' indexes
	for i, c := range plan.Cells {
		if b.Covers(c.Env, c.N) && prep[c.Env.Name].skip == "" {
			covered[report.CellKey{Env: c.Env.Name, Mode: c.Mode, N: int32(c.N)}] = i
		}
	}
	overhead := func(i int) time.Duration {
		if opts.Costs == nil {
			return 0
		}
		return opts.Costs.Process(plan.Cells[i]) - opts.Costs.Wall(plan.Cells[i])
	}
	for round := 1; round <= topUpRounds; round++ {
		rep, err := report.Build([]report.Input{{Set: r.Set()}}, report.Options{NoRegimes: true})
		if err != nil {
			return fmt.Errorf("the bottom line's top-up: the run's own report: %w", err)
		}
		states := r.cellStates(cells)
		// What earlier rounds (of this invocation or a killed one) spent:
		// the covered cells' processes past their planned ones.
		var spent time.Duration
		for _, i := range covered {
			st := states[cells[i].key]
			spent += st.added + time.Duration(st.addedN)*overhead(i)
		}
		sizes := func(env, mode string, n int32) (int, float64) {
			i, ok := covered[report.CellKey{Env: env, Mode: mode, N: n}]
			if !ok {
				return 0, 0
			}
			c := rep.Cell(env, mode, report.Column{N: n})
			if c == nil || c.Stats == nil {
				return 0, 0
			}
			return c.Stats.Processes, overhead(i).Seconds()
		}
		a := rep.TopUp(b.Precision, (b.TopUp - spent).Seconds(), b.MaxProcesses, sizes)
		var batch []step
		grown := 0
		for _, ca := range a.Cells {
			i, ok := covered[report.CellKey{Env: ca.Environment, Mode: ca.Mode, N: ca.N}]
			if !ok || ca.Processes <= ca.Floor {
				continue
			}
			grown++
			next := states[cells[i].key].next
			for k := range ca.Processes - ca.Floor {
				batch = append(batch, step{Cell: i, Process: next + k, Occasion: states[cells[i].key].occasion})
			}
		}
		if len(batch) == 0 {
			// Said either way: a top-up that added nothing tells why.
			if short := len(a.Unreached); short > 0 {
				r.logf("bottom line: top-up round %d: %d %s short of ±%.3g%%, none reachable within the rest of its top-up (%s of %s) and %d processes a cell: no processes more\n",
					round, short, plural(short, "ratio", "ratios"), 100*b.Precision,
					cost.Round(b.TopUp-spent), cost.Round(b.TopUp), b.MaxProcesses)
			} else {
				r.logf("bottom line: top-up round %d: no ratio short of ±%.3g%% that more processes would narrow: no processes more\n", round, 100*b.Precision)
			}
			return nil
		}
		r.logf("bottom line: top-up round %d: %d %s short of ±%.3g%%, %d within its top-up: %d processes more (about %s)\n",
			round, a.Ratios, plural(a.Ratios, "ratio", "ratios"), 100*b.Precision, a.Reached, len(batch),
			cost.Round(time.Duration(float64(a.AddedS)*float64(time.Second))))
		if err := r.runRound(ctx, cells, prep, batch, seed^int64(round)<<40, grown, opts); err != nil {
			return err
		}
	}
	return nil
}
