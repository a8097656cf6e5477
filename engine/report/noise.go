package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// UnstableMinSpawns is the fewest spawns a process needs in the view
// before the heterogeneity test counts it: with one or two spawns a
// process's own noise is all there is to see.
const UnstableMinSpawns = 5

// HeterogeneityAlpha is the Kruskal–Wallis level below which a cell's
// processes are taken to differ, and HeterogeneitySpread the effect they
// must also show (the interquartile range of the process summaries over
// their median).
const (
	HeterogeneityAlpha  = 0.001
	HeterogeneitySpread = 0.10
)

// DefaultPrecision is the target precision for sets whose spec predates
// samples.precision (the schema's default).
const DefaultPrecision = 0.10

// Stability verdicts.
const (
	Stable    = "stable"
	Unstable  = "unstable"
	NotJudged = "not judged"
)

// Noise is what a report says about the conditions a cell was measured
// in.
type Noise struct {
	// Busy is results.CellLoad's verdict: the machine's other work
	// (others_cpu_ns) or the hypervisor's (steal_ns), pooled over the
	// cell's processes, above stats.BusyThreshold of their wall time.
	// BusyKnown is false when no process of the cell recorded the
	// machine's load (older sets, or a platform without /proc/stat).
	Busy      bool `json:"busy"`
	BusyKnown bool `json:"busy_known"`
	// OthersShare and StealShare are those shares (0 when unknown).
	OthersShare Float `json:"others_share"`
	StealShare  Float `json:"steal_share"`
	// Verdict is Stable, Unstable or NotJudged, for every cell; Reason
	// says why in a few words. A cell is judged when it has
	// MinIntervalProcesses processes or more. It is unstable when its
	// interval (over processes) is wider than the target precision, or
	// when its processes differ: the Kruskal–Wallis test between
	// processes (those with UnstableMinSpawns spawns or more in the view)
	// rejects at HeterogeneityAlpha and their summaries spread by more
	// than HeterogeneitySpread.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
	// Unstable is Verdict == Unstable.
	Unstable bool `json:"unstable"`
	// Spread is the interquartile range of the process summaries over
	// their median (0 with fewer than MinIntervalProcesses processes).
	Spread Float `json:"spread"`
	// Target is the precision the cell was judged against.
	Target Float `json:"target_precision"`
}

// Flags spells the cell's verdicts for a table: "busy", "unstable",
// "not judged", or a pair of them; "" for a stable cell on a quiet
// machine.
func (n Noise) Flags() string {
	var f []string
	if n.Busy {
		f = append(f, "busy")
	}
	if n.Verdict == Unstable || n.Verdict == NotJudged {
		f = append(f, n.Verdict)
	}
	return strings.Join(f, ", ")
}

// noiseOf judges one cell from its measured processes, the samples of its
// view (ok processes only), their process summaries and estimate.
func noiseOf(runs []results.ProcessRun, samples []results.SpawnSample, procs []ProcessSummary, est *Estimate, target float64) Noise {
	var n Noise
	// The busy rule is results', shared with run's closing warning.
	cn := results.CellLoad(runs)
	n.BusyKnown = !math.IsNaN(cn.OthersShare) || !math.IsNaN(cn.StealShare)
	n.Busy = cn.Busy
	n.OthersShare, n.StealShare = finite(cn.OthersShare), finite(cn.StealShare)
	n.Target = Float(target)
	if est == nil || est.Processes < MinIntervalProcesses {
		k := 0
		if est != nil {
			k = est.Processes
		}
		n.Verdict, n.Reason = NotJudged, fmt.Sprintf("%s; an interval needs %d", plural(k, "process", "processes"), MinIntervalProcesses)
		return n
	}
	n.Spread = Float(spreadOf(procs))
	byProcess := map[int32][]float64{}
	for _, s := range samples {
		byProcess[s.Process] = append(byProcess[s.Process], float64(s.SpawnNS))
	}
	groups := make([][]float64, 0, len(byProcess))
	for _, p := range procs {
		groups = append(groups, byProcess[p.Process])
	}
	n.Verdict = Stable
	switch {
	case float64(est.Precision) > target:
		n.Verdict, n.Reason = Unstable, fmt.Sprintf("not converged: ±%.3g%% > ±%.3g%%", 100*float64(est.Precision), 100*target)
		if est.Drifted {
			n.Reason += fmt.Sprintf(" (it drifted during the run: its time windows differ, p < %g)", DriftAlpha)
		}
	case heterogeneous(groups, procs):
		n.Verdict, n.Reason = Unstable, fmt.Sprintf("processes differ (Kruskal–Wallis p < %g, spread %.0f%%)", HeterogeneityAlpha, 100*float64(n.Spread))
	}
	n.Unstable = n.Verdict == Unstable
	return n
}

// heterogeneous applies the rule of Noise.Verdict's second half to the
// spawn times of each process (groups) and their summaries.
func heterogeneous(groups [][]float64, procs []ProcessSummary) bool {
	var tested [][]float64
	for _, g := range groups {
		if len(g) >= UnstableMinSpawns {
			tested = append(tested, g)
		}
	}
	if len(tested) < 3 || spreadOf(procs) <= HeterogeneitySpread {
		return false
	}
	p, ok := stats.KruskalWallis(tested)
	return ok && p < HeterogeneityAlpha
}

// spreadOf is the interquartile range of the process summaries over their
// median.
func spreadOf(procs []ProcessSummary) float64 {
	v := make([]float64, len(procs))
	for i, p := range procs {
		v[i] = p.TypicalUS
	}
	slices.Sort(v)
	mid := sortedQuantile(v, 0.5)
	if !(mid > 0) {
		return 0
	}
	return (sortedQuantile(v, 0.75) - sortedQuantile(v, 0.25)) / mid
}

// finite is v, or 0 when v is NaN (not recorded).
func finite(v float64) Float {
	if math.IsNaN(v) {
		return 0
	}
	return Float(v)
}

// busyShareThreshold is results' busy threshold, for legends.
const busyShareThreshold = stats.BusyThreshold

// noiseText is a cell's flags in brackets, for appending to a table cell.
func noiseText(n Noise) string {
	// "not judged" is said once, in the typical-time table and the
	// ratios' intervals, not beside every mean.
	if n.Verdict == NotJudged {
		n.Verdict = ""
	}
	if f := n.Flags(); f != "" {
		return fmt.Sprintf(" [%s]", f)
	}
	return ""
}
