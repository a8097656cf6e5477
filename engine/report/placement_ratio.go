package report

import (
	"spawnbench/engine/results"
	"spawnbench/engine/stats"
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
// parent's CPU in shares more than MixShareGap apart.
func mixesPlacements(placements []PlacementRatio) bool {
	for _, p := range placements {
		if p.Placement == results.SameCPU {
			d := float64(p.Share - p.BaselineShare)
			return d > MixShareGap || d < -MixShareGap
		}
	}
	return false
}

// MixShareGap is how far apart two cells' same-CPU shares may be before
// the bottom line says their pooled ratio mixes placements.
const MixShareGap = 0.2
