package report

import (
	"fmt"
	"strings"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
	"spawnbench/engine/textfmt"
)

// PlacementRatio is a ratio computed within one placement: the
// environment's spawns whose child started on the parent's CPU (or on
// another) divided by the baseline's of the same placement. Where two
// environments start their children on the parent's CPU in different
// shares, the pooled ratio is partly a scheduling difference; these say
// how much.
type PlacementRatio struct {
	Placement results.Placement `json:"placement"`
	Ratio     Float             `json:"ratio"`
	Low       Float             `json:"low"`
	High      Float             `json:"high"`
	// Share and BaselineShare are the placement's shares of each side's
	// spawns.
	Share         Float `json:"share"`
	BaselineShare Float `json:"baseline_share"`
}

// placementRatios divides c's placements by b's, where both record them.
func placementRatios(c, b *Cell) []PlacementRatio {
	var out []PlacementRatio
	for _, p := range []results.Placement{results.SameCPU, results.OtherCPU} {
		cp, bp := placementOf(c, p), placementOf(b, p)
		if cp == nil || bp == nil {
			continue
		}
		q, lo, hi := stats.Ratio(cp.est, bp.est)
		out = append(out, PlacementRatio{Placement: p, Ratio: Float(q), Low: Float(lo), High: Float(hi), Share: cp.Share, BaselineShare: bp.Share})
	}
	if len(out) < 2 {
		return nil // one placement only: the pooled ratio is that one
	}
	return out
}

func placementOf(c *Cell, p results.Placement) *PlacementShare {
	for i := range c.Placements {
		if c.Placements[i].Placement == p {
			return &c.Placements[i]
		}
	}
	return nil
}

// mixesPlacements is true when the two sides start their children on the
// parent's CPU in shares more than mixShareGap apart.
func (q *Ratio) mixesPlacements() bool {
	for _, p := range q.Placements {
		if p.Placement == results.SameCPU {
			d := float64(p.Share - p.BaselineShare)
			return d > mixShareGap || d < -mixShareGap
		}
	}
	return false
}

// mixShareGap is how far apart two cells' same-CPU shares may be before
// the bottom line says their pooled ratio mixes placements.
const mixShareGap = 0.2

// writePlacementRatios renders the ratios that have a figure within each
// placement.
func (r *Report) writePlacementRatios(b *strings.Builder) {
	var rows [][]string
	for _, q := range r.Ratios {
		if !q.mixesPlacements() {
			continue
		}
		row := []string{q.Environment, q.Mode, q.Column.Label(), textfmt.Ratio(float64(q.Ratio)) + "× " + ratioInterval(&q)}
		for _, p := range q.Placements {
			row = append(row, fmt.Sprintf("%s× %s (%.0f%% : %.0f%% of spawns)", textfmt.Ratio(float64(p.Ratio)), plainInterval(p.Low, p.High),
				100*float64(p.Share), 100*float64(p.BaselineShare)))
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "### Ratios to %s within one placement\n\n", r.Baseline)
	mdTable(b, []string{"Environment", "Mode", "n", "Pooled", "Child on the parent's CPU", "Child on another CPU"}, "lll", rows)
	fmt.Fprintf(b, "The cells whose children start on the parent's CPU in shares more than %.0f points apart from %s's: there the pooled ratio is partly the scheduler's choice, "+
		"and the ratio within each placement sets the runtimes' costs apart from it (both environments record where each child first ran). "+
		"Shares: this environment's : %s's. Every ratio's placements are in the JSON format.\n\n", 100*mixShareGap, r.Baseline, r.Baseline)
}
