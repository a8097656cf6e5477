package spec

import (
	"sort"
	"time"
)

// Shard returns shard k (0-based) of n: a plan holding a subset of the
// cells, whole, with the same order and seed. The n shards are disjoint,
// their union is the plan, and the split depends on nothing but the plan
// and cost, a cell's expected wall time (package cost): cells go, costliest
// first, to the shard with the least expected time so far (ties to the
// lower cell, then the lower shard), so every machine that computes shard
// k of the same plan with the same costs gets the same cells.
func (p *RunPlan) Shard(k, n int, cost func(Cell) time.Duration) (*RunPlan, error) {
	if n < 1 || k < 0 || k >= n {
		return nil, inputErrorf("shard %d of %d: give 0 <= k < n", k, n)
	}
	if n > len(p.Cells) {
		return nil, inputErrorf("%d shards for %d cells: a shard holds whole cells, so give at most %d shards", n, len(p.Cells), len(p.Cells))
	}
	weight := make([]time.Duration, len(p.Cells))
	order := make([]int, len(p.Cells))
	for i, c := range p.Cells {
		weight[i], order[i] = cost(c), i
	}
	sort.SliceStable(order, func(a, b int) bool {
		wa, wb := weight[order[a]], weight[order[b]]
		if wa != wb {
			return wa > wb
		}
		return order[a] < order[b]
	})
	load := make([]time.Duration, n)
	owner := make([]int, len(p.Cells))
	for _, ci := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		owner[ci] = best
		load[best] += weight[ci]
	}
	out := &RunPlan{Spec: p.Spec}
	for ci, c := range p.Cells {
		if owner[ci] == k {
			c.Index = len(out.Cells)
			out.Cells = append(out.Cells, c)
		}
	}
	out.Reschedule(p.Schedule.Order, p.Schedule.Seed)
	return out, nil
}
