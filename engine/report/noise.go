package report

import (
	"fmt"
	"slices"

	"spawnbench/engine/results"
)

// UnstableMinProcesses is the fewest ok processes a cell needs before its
// spread between processes is judged: with fewer, the quartiles of the
// per-process medians are two or three numbers and say nothing.
const UnstableMinProcesses = 5

// UnstableSpread is the threshold of the unstable rule: a cell is
// unstable when the interquartile range of its per-process median spawn
// times exceeds this fraction of their median. On an idle machine the
// processes of one cell agree within a few percent (their medians come
// from the same runtime doing the same work); a quarter of the median
// between the first and third quartile means that some processes ran
// under different conditions (load that came and went, a frequency
// change, another core's work), so the cell's number depends on when it
// was measured.
const UnstableSpread = 0.25

// Noise is what a report says about the conditions a cell was measured
// in.
type Noise struct {
	// Busy is true when the cell's median process (by wall time) ran while
	// the rest of the machine used, or the hypervisor stole, more than
	// results' busy share of its wall time. BusyKnown is false when no
	// process of the cell recorded the machine's load (older sets, or a
	// platform without /proc/stat).
	Busy      bool `json:"busy"`
	BusyKnown bool `json:"busy_known"`
	// OthersShare and StealShare are the median process's others_cpu_ns
	// and steal_ns divided by its wall time (0 when unknown).
	OthersShare Float `json:"others_share"`
	StealShare  Float `json:"steal_share"`
	// Unstable is true when the cell has at least UnstableMinProcesses ok
	// processes and Spread exceeds UnstableSpread.
	Unstable bool `json:"unstable"`
	// Spread is the interquartile range of the per-process medians divided
	// by their median; 0 when the cell has too few processes to judge.
	Spread Float `json:"spread"`
}

// Flags spells the cell's verdicts for a table: "busy", "unstable", both,
// or "".
func (n Noise) Flags() string {
	switch {
	case n.Busy && n.Unstable:
		return "busy, unstable"
	case n.Busy:
		return "busy"
	case n.Unstable:
		return "unstable"
	}
	return ""
}

// noiseOf judges one cell from its measured processes and the samples of
// its view (ok processes only).
func noiseOf(runs []results.ProcessRun, samples []results.SpawnSample) Noise {
	var n Noise
	if mid, ok := medianProcess(runs); ok {
		n.OthersShare, n.StealShare, n.BusyKnown = busyShares(mid)
		n.Busy = n.BusyKnown && busy(mid)
	}
	perProcess := map[int32][]float64{}
	for _, s := range samples {
		perProcess[s.Process] = append(perProcess[s.Process], float64(s.SpawnNS))
	}
	if len(perProcess) >= UnstableMinProcesses {
		medians := make([]float64, 0, len(perProcess))
		for _, vs := range perProcess {
			medians = append(medians, Median(vs))
		}
		slices.Sort(medians)
		mid := sortedQuantile(medians, 0.5)
		iqr := sortedQuantile(medians, 0.75) - sortedQuantile(medians, 0.25)
		if mid > 0 {
			n.Spread = Float(iqr / mid)
			n.Unstable = float64(n.Spread) > UnstableSpread
		}
	}
	return n
}

// medianProcess is the ok process of median wall time (the lower middle
// one for an even count, so that it is a process that ran); without ok
// processes, the median of all of them.
func medianProcess(runs []results.ProcessRun) (results.ProcessRun, bool) {
	var pool []results.ProcessRun
	for _, r := range runs {
		if r.Status == results.StatusOK {
			pool = append(pool, r)
		}
	}
	if len(pool) == 0 {
		pool = runs
	}
	if len(pool) == 0 {
		return results.ProcessRun{}, false
	}
	pool = slices.Clone(pool)
	slices.SortStableFunc(pool, func(a, b results.ProcessRun) int {
		switch {
		case a.WallNS < b.WallNS:
			return -1
		case a.WallNS > b.WallNS:
			return 1
		}
		return int(a.Process - b.Process)
	})
	return pool[(len(pool)-1)/2], true
}

// noiseText is a cell's flags in brackets, for appending to a table cell.
func noiseText(n Noise) string {
	if f := n.Flags(); f != "" {
		return fmt.Sprintf(" [%s]", f)
	}
	return ""
}
