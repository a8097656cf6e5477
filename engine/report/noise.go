package report

import (
	"fmt"
	"math"
	"slices"

	"spawnbench/engine/results"
)

// UnstableMinProcesses is the fewest ok processes a cell needs before its
// spread between processes is judged: with fewer, the quartiles of the
// per-process medians are two or three numbers and say nothing.
const UnstableMinProcesses = 5

// UnstableMinSpawns is the fewest spawns a process needs in the view for
// its median to stand for the process: the median of one or two spawns is
// their own noise (at n = 1 the per-process spread is simply the spread of
// single spawns), so cells of smaller n are not judged.
const UnstableMinSpawns = 5

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
	// Busy is results.CellNoise's verdict: the median over the cell's
	// processes of others_cpu_ns ÷ wall_ns, or of steal_ns ÷ wall_ns, is
	// above results.BusyThreshold. BusyKnown is false when no process of
	// the cell recorded the machine's load (older sets, or a platform
	// without /proc/stat).
	Busy      bool `json:"busy"`
	BusyKnown bool `json:"busy_known"`
	// OthersShare and StealShare are those medians (0 when unknown).
	OthersShare Float `json:"others_share"`
	StealShare  Float `json:"steal_share"`
	// Unstable is true when the cell has at least UnstableMinProcesses ok
	// processes with UnstableMinSpawns spawns or more in the view, and
	// Spread exceeds UnstableSpread.
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
	// The busy rule is results', shared with run's closing warning.
	cn := results.CellNoise(runs)
	n.BusyKnown = !math.IsNaN(cn.OthersShare) || !math.IsNaN(cn.StealShare)
	n.Busy = cn.Busy
	n.OthersShare, n.StealShare = finite(cn.OthersShare), finite(cn.StealShare)
	perProcess := map[int32][]float64{}
	for _, s := range samples {
		perProcess[s.Process] = append(perProcess[s.Process], float64(s.SpawnNS))
	}
	medians := make([]float64, 0, len(perProcess))
	for _, vs := range perProcess {
		if len(vs) >= UnstableMinSpawns {
			medians = append(medians, results.Median(vs))
		}
	}
	if len(medians) >= UnstableMinProcesses {
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

// finite is v, or 0 when v is NaN (not recorded).
func finite(v float64) Float {
	if math.IsNaN(v) {
		return 0
	}
	return Float(v)
}

// busyShareThreshold is results' busy threshold, for legends.
const busyShareThreshold = results.BusyThreshold

// noiseText is a cell's flags in brackets, for appending to a table cell.
func noiseText(n Noise) string {
	if f := n.Flags(); f != "" {
		return fmt.Sprintf(" [%s]", f)
	}
	return ""
}
