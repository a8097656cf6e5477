package run

import (
	"context"
	"time"

	"spawnbench/engine/proc"
)

// busyInARow is how many processes in a row must have waited the whole
// cap before the runner stops waiting: on a machine that stays busy (the
// user's own browser, a shared CI runner) a full cap before every process
// would add up to minutes and settle nothing.
const busyInARow = 3

// settle waits, before one of c's processes, the cell's pause and then
// until the machine's other work is below the cell's bar or its cap has
// passed (proc.Settle: the pause is the first reading's span). After
// busyInARow waits in a row that reached the cap, it only reads one
// window (the load is still recorded) until a reading is below the bar
// again. A wait that reached the cap is said once per cell, where it
// happened, since the process's row records it anyway. known is false
// when the cell does not settle or the machine cannot say.
func (r *Runner) settle(ctx context.Context, c cell) (s proc.Settled, known bool) {
	if c.settle.Cap <= 0 {
		if c.pause > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(c.pause):
			}
		}
		return proc.Settled{}, false
	}
	rule := proc.SettleRule{Window: c.settle.Window, BelowCPUs: c.settle.BelowCPUs, Cap: c.settle.Cap, AtLeast: c.pause}
	if r.cappedInARow >= busyInARow {
		rule.Cap = 0 // one window: proc.Settle always reads one
	}
	s, known = proc.Settle(ctx, rule)
	if !known || ctx.Err() != nil {
		return s, known
	}
	if s.Quiet {
		r.cappedInARow = 0
		return s, known
	}
	r.cappedInARow++
	if r.cappedInARow == busyInARow {
		r.progress.pause()
		r.logf("the machine stays busy (%.2f CPUs of other programs' work after %d waits in a row of %s each): until it is quiet again, processes start after one reading; the load is recorded with each\n",
			s.OthersCPUs, busyInARow, c.settle.Cap)
		r.progress.resume()
	}
	if r.unsettled == nil {
		r.unsettled = map[string]bool{}
	}
	if !r.unsettled[c.key] {
		r.unsettled[c.key] = true
		r.progress.pause()
		r.logf("%s: other programs used %.2f CPUs after %s of waiting for the machine to settle (schedule.settle: below %.2f CPUs); measured anyway, the load recorded\n",
			c.key, s.OthersCPUs, s.Waited.Round(1e6), c.settle.BelowCPUs)
		r.progress.resume()
	}
	return s, known
}
