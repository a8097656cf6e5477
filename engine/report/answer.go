package report

import (
	"math"
	"slices"

	"spawnbench/engine/hostfacts"
)

// The answer is the bottom line in a sentence: what a thread spawn costs
// against the baseline at the first spawn and in steady state, for each
// kind of spawn (hostfacts.SpawnKinds: OS threads, goroutines, a worker
// per spawn, reused workers, cooperative threads). The groups are what
// the environments are, declared by their families, never a threshold on
// the figures: a threshold put a host that measured 6× on one machine
// and 13× on another in two different groups, and the sentence changed
// shape from machine to machine. It is built from the bottom line's
// rows, and only from ratios with an interval (both sides judged), so
// that the sentence says nothing the table would call not judged.

// BottomAnswer is the bottom line's rows grouped by what their spawn
// starts.
type BottomAnswer struct {
	// Groups are the spawn kinds that have rows, in hostfacts.SpawnKinds
	// order.
	Groups []AnswerGroup `json:"groups"`
	// LeftOut are the rows whose first-spawn ratio has no interval (a
	// side not judged), which no group holds.
	LeftOut []string `json:"left_out,omitempty"`
	// BaselineUnstable are the columns whose baseline cell is unstable
	// (the bottom line's NoteBaselineUnstable) and divides them whole:
	// every ratio there moves with it.
	BaselineUnstable []Column `json:"baseline_unstable,omitempty"`
	// BaselineClusters are the baseline's cells whose processes fall into
	// two clusters (the bottom line's NoteBaselineUnstable with
	// DivideByLowerCluster): the ratios over them divide by the lower one.
	BaselineClusters []BottomNote `json:"baseline_clusters,omitempty"`
}

// AnswerGroup is the rows of one spawn kind and the range of their
// ratios.
type AnswerGroup struct {
	// Spawn is the kind (hostfacts.SpawnKinds).
	Spawn        string   `json:"spawn"`
	Environments []string `json:"environments"`
	// First and Steady are the least and the most of the group's
	// first-spawn and steady-state ratios; Steady counts only the rows
	// whose steady-state ratio has an interval.
	First  *RatioRange `json:"first,omitempty"`
	Steady *RatioRange `json:"steady,omitempty"`
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

// answerOf groups b's rows (all but the baseline's) by their family's
// spawn kind; nil when no row has a judged first-spawn ratio.
func answerOf(b *BottomLine) *BottomAnswer {
	a := &BottomAnswer{}
	groups := map[string]*AnswerGroup{}
	for _, row := range b.Rows {
		if row.Environment == b.Baseline {
			continue
		}
		first, steady := judgedRatio(row.First), judgedRatio(row.Steady)
		if math.IsNaN(first) {
			a.LeftOut = append(a.LeftOut, row.Environment)
			continue
		}
		kind := hostfacts.Spawn(row.Family)
		g := groups[kind]
		if g == nil {
			g = &AnswerGroup{Spawn: kind}
			groups[kind] = g
		}
		g.Environments = append(g.Environments, row.Environment)
		g.First = widen(g.First, first)
		if !math.IsNaN(steady) {
			g.Steady = widen(g.Steady, steady)
		}
	}
	for _, kind := range hostfacts.SpawnKinds {
		if g := groups[kind]; g != nil {
			a.Groups = append(a.Groups, *g)
		}
	}
	if len(a.Groups) == 0 {
		return nil
	}
	for _, n := range b.Notes {
		switch {
		case n.Kind != NoteBaselineUnstable:
		case n.Divisor == DivideByLowerCluster:
			a.BaselineClusters = append(a.BaselineClusters, n)
		case !slices.Contains(a.BaselineUnstable, n.Column):
			a.BaselineUnstable = append(a.BaselineUnstable, n.Column)
		}
	}
	return a
}

// Group is a's group of spawn kind, nil where it has no rows.
func (a *BottomAnswer) Group(kind string) *AnswerGroup {
	for i := range a.Groups {
		if a.Groups[i].Spawn == kind {
			return &a.Groups[i]
		}
	}
	return nil
}

// widen is r widened to hold v.
func widen(r *RatioRange, v float64) *RatioRange {
	if r == nil {
		return &RatioRange{Low: Float(v), High: Float(v)}
	}
	return &RatioRange{Low: Float(math.Min(float64(r.Low), v)), High: Float(math.Max(float64(r.High), v))}
}
