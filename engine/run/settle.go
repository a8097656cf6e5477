package run

import (
	"context"

	"spawnbench/engine/proc"
)

// settle waits, before one of c's processes, until the machine's other
// work is below the cell's bar or its cap has passed (proc.Settle). A
// wait that reached the cap is said once per cell, where it happened,
// since the process's row records it anyway. known is false when the
// cell does not settle or the machine cannot say.
func (r *Runner) settle(ctx context.Context, c cell) (s proc.Settled, known bool) {
	if c.settle.Cap <= 0 {
		return proc.Settled{}, false
	}
	s, known = proc.Settle(ctx, proc.SettleRule{Window: c.settle.Window, BelowCPUs: c.settle.BelowCPUs, Cap: c.settle.Cap})
	if known && !s.Quiet && ctx.Err() == nil {
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
	}
	return s, known
}
