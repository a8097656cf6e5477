// Package clockcheck holds the rules that decide whether an environment's
// benchmark clock can be trusted: the verdicts of `spawnbench calibrate`.
//
// This package is opinionated: a clock is judged from outside the
// benchmark. A sleep must record at least what was requested and no more
// than the process's wall time measured by spawnbench; the oversleep
// tolerance applies to the median of repeats, since the scheduler, not the
// clock, makes one sleep now and then run long; and every spawn of a
// sequential run must fall inside the parent's own bracket,
// 0 <= spawn_ns <= joined_ns, or the threads do not share one clock
// (each bound allowed exactly one step of the clock, as the host declares
// it: two readings of a clock that steps can land one step apart).
// Printing the verdicts is the caller's business.
package clockcheck

import (
	"fmt"
	"slices"
	"time"

	"spawnbench/engine/protocol"
	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// Sleep is one sleep check before the median rule: requested reqNS,
// passing between LowNS and HighNS.
func Sleep(env, kind string, process int, reqNS int64, relative float64, absolute time.Duration) results.CalibrationCheck {
	return results.CalibrationCheck{
		Environment: env, Kind: kind, Check: "sleep", Process: int32(process),
		RequestedNS: reqNS, LowNS: reqNS,
		HighNS: int64(float64(reqNS)*(1+relative)) + absolute.Nanoseconds(),
	}
}

// JudgeSleep fills c from one calibration process: its status (from the
// runner's classification), its lines and its wall time.
func JudgeSleep(c *results.CalibrationCheck, status, msg string, lines []protocol.Line, wall time.Duration) {
	c.WallNS = wall.Nanoseconds()
	switch {
	case status != results.StatusOK || len(lines) == 0:
		c.MeasuredNS = -1
		c.Detail = status + ": " + msg
	case lines[0].SpawnNS < c.LowNS:
		c.MeasuredNS = lines[0].SpawnNS
		c.Detail = "recorded less than the requested sleep: the clock is coarse or stopped"
	case lines[0].SpawnNS > c.WallNS:
		c.MeasuredNS = lines[0].SpawnNS
		c.Detail = "recorded more than the process's whole wall time: the clock runs fast"
	default:
		c.MeasuredNS = lines[0].SpawnNS
		c.Pass = true
	}
}

// JudgeOversleep applies the upper tolerance to the median of a sleep's
// repeats rather than to each: on a busy machine one sleep now and then
// oversleeps (the scheduler, not the clock), while a clock that runs fast
// or steps coarsely does so every time.
func JudgeOversleep(repeats []results.CalibrationCheck) []results.CalibrationCheck {
	if len(repeats) == 0 {
		return repeats
	}
	var measured []float64
	for _, c := range repeats {
		measured = append(measured, float64(c.MeasuredNS))
	}
	slices.Sort(measured)
	med := int64(stats.Median(measured))
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

// BracketText is how the bracket rule reads with one clock step of stepNS
// on each bound.
func BracketText(stepNS int64) string {
	if stepNS == 0 {
		return "0 <= spawn_ns <= joined_ns"
	}
	d := time.Duration(stepNS).String()
	return "-" + d + " <= spawn_ns <= joined_ns + " + d
}

// Coherence judges one sequential run of n spawns, each bound of the
// bracket allowed one step (stepNS) of the host's clock.
func Coherence(env, kind string, stepNS int64, process, n int, status, msg string, lines []protocol.Line, wall time.Duration) results.CalibrationCheck {
	c := results.CalibrationCheck{
		Environment: env, Kind: kind, ClockStepNS: stepNS, Check: "coherence", Process: int32(process),
		RequestedNS: int64(n), WallNS: wall.Nanoseconds(),
	}
	if len(lines) > 0 {
		c.MeasuredNS = lines[0].SpawnNS
	}
	for _, l := range lines {
		c.MeasuredNS = min(c.MeasuredNS, l.SpawnNS)
		if l.SpawnNS < -stepNS || (l.JoinedNS != nil && l.SpawnNS > *l.JoinedNS+stepNS) || l.SpawnNS > c.WallNS {
			c.Violations++
		}
	}
	switch {
	case status != results.StatusOK:
		c.Detail = status + ": " + msg
	case c.Violations > 0:
		c.Detail = fmt.Sprintf("%d of %d spawns outside %s: threads do not share one clock", c.Violations, len(lines), BracketText(stepNS))
	default:
		c.Pass = true
	}
	return c
}
