package spec

import (
	"fmt"
	"sort"
)

// Work is a cell's expected cost for sharding: its processes, warm-ups
// included. Every environment here starts a fresh process (or browser)
// per repetition, and that start, plus the pause before it, outweighs
// the spawns inside it at the n of the shipped specs, so processes × n
// would weigh a one-process n = 1000 cell ten times a hundred-process
// n = 1 cell that in fact takes far longer.
func (c Cell) Work() int { return c.Total() }

// Shard returns shard k (0-based) of n: a plan holding a subset of the
// cells, whole, with the same order and seed. The n shards are disjoint,
// their union is the plan, and the split depends on nothing but the plan:
// cells go, heaviest first, to the shard with the least work so far
// (ties to the lower shard), so every machine that computes shard k of
// the same plan gets the same cells.
func (p *RunPlan) Shard(k, n int) (*RunPlan, error) {
	if n < 1 || k < 0 || k >= n {
		return nil, inputErrorf("shard %d of %d: give 0 <= k < n", k, n)
	}
	if n > len(p.Cells) {
		return nil, inputErrorf("%d shards for %d cells: a shard holds whole cells, so give at most %d shards", n, len(p.Cells), len(p.Cells))
	}
	order := make([]int, len(p.Cells))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		wa, wb := p.Cells[order[a]].Work(), p.Cells[order[b]].Work()
		if wa != wb {
			return wa > wb
		}
		return order[a] < order[b]
	})
	load := make([]int, n)
	owner := make([]int, len(p.Cells))
	for _, ci := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		owner[ci] = best
		load[best] += p.Cells[ci].Work()
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

// ShardSummary renders the split of the plan into n shards, one line
// each, for `spawnbench plan --shards`.
func (p *RunPlan) ShardSummary(n int) (string, error) {
	var out string
	for k := range n {
		s, err := p.Shard(k, n)
		if err != nil {
			return "", err
		}
		work := 0
		var keys []string
		for _, c := range s.Cells {
			work += c.Work()
			keys = append(keys, c.Key())
		}
		out += fmt.Sprintf("shard %d/%d: %d cells, %d processes: %v\n", k, n, len(s.Cells), work, keys)
	}
	return out, nil
}
