package report

import (
	"math"
	"slices"

	"spawnbench/engine/hostfacts"
)

// The answer is the bottom line in a sentence: which hosts spawn within a
// few times the baseline and which are an order of magnitude or more
// slower, at the first spawn and in steady state. It is built from the
// bottom line's rows, and only from ratios with an interval (both sides
// judged), so that the sentence says nothing the table would call not
// judged. Rows whose threads are not the OS's (hostfacts.NotOSThreads:
// the component model's cooperative threads) are a group of their own,
// never inside the others' ranges: their spawn starts no thread at all.

// answerNear parts the hosts: under 10× the baseline at the first spawn
// is "a few times"; at 10× and over, the spawn is of another order.
const answerNear = 10

// BottomAnswer is the bottom line's rows sorted by their first spawn's
// ratio to the baseline.
type BottomAnswer struct {
	// Near are the rows under answerNear× the baseline at the first
	// spawn, Far the rest.
	Near AnswerGroup `json:"near"`
	Far  AnswerGroup `json:"far"`
	// NotOSThreads are the rows of the families whose spawn starts no OS
	// thread, whatever their ratio.
	NotOSThreads AnswerGroup `json:"not_os_threads,omitzero"`
	// LeftOut are the rows whose first-spawn ratio has no interval (a
	// side not judged), which neither group holds.
	LeftOut []string `json:"left_out,omitempty"`
}

// AnswerGroup is a group of rows and the range of their ratios.
type AnswerGroup struct {
	Environments []string `json:"environments"`
	// First and Steady are the least and the most of the group's
	// first-spawn and steady-state ratios; Steady counts only the rows
	// whose steady-state ratio has an interval.
	First  *RatioRange `json:"first,omitempty"`
	Steady *RatioRange `json:"steady,omitempty"`
	// SteadyNear are the group's rows whose steady state is under
	// answerNear× although their first spawn is not (hosts that reuse
	// their workers), with the range of those ratios; Steady then counts
	// the rest.
	SteadyNear      []string    `json:"steady_near,omitempty"`
	SteadyNearRange *RatioRange `json:"steady_near_range,omitempty"`
}

// RatioRange is the least and the most of some ratios.
type RatioRange struct {
	Low  Float `json:"low"`
	High Float `json:"high"`
}

// judgedRatio is the cell's ratio where it has an interval, else NaN.
func judgedRatio(c *BottomCell) float64 {
	if c == nil || c.Ratio == nil || math.IsInf(float64(c.Ratio.High), 0) || math.IsNaN(float64(c.Ratio.High)) {
		return math.NaN()
	}
	return float64(c.Ratio.Ratio)
}

// answerOf sorts b's rows (all but the baseline's) into the answer; nil
// when no row has a judged first-spawn ratio.
func answerOf(b *BottomLine) *BottomAnswer {
	a := &BottomAnswer{}
	for _, row := range b.Rows {
		if row.Environment == b.Baseline {
			continue
		}
		first, steady := judgedRatio(row.First), judgedRatio(row.Steady)
		if math.IsNaN(first) {
			a.LeftOut = append(a.LeftOut, row.Environment)
			continue
		}
		g := &a.Far
		switch {
		case slices.Contains(hostfacts.NotOSThreads, row.Family):
			g = &a.NotOSThreads
		case first < answerNear:
			g = &a.Near
		}
		g.Environments = append(g.Environments, row.Environment)
		g.First = widen(g.First, first)
		switch {
		case math.IsNaN(steady):
		case g == &a.Far && steady < answerNear:
			g.SteadyNear = append(g.SteadyNear, row.Environment)
			g.SteadyNearRange = widen(g.SteadyNearRange, steady)
		default:
			g.Steady = widen(g.Steady, steady)
		}
	}
	if len(a.Near.Environments)+len(a.Far.Environments)+len(a.NotOSThreads.Environments) == 0 {
		return nil
	}
	return a
}

// widen is r widened to hold v.
func widen(r *RatioRange, v float64) *RatioRange {
	if r == nil {
		return &RatioRange{Low: Float(v), High: Float(v)}
	}
	return &RatioRange{Low: Float(math.Min(float64(r.Low), v)), High: Float(math.Max(float64(r.High), v))}
}
