package report

import (
	"math"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// Stability verdicts.
const (
	Stable    = "stable"
	Unstable  = "unstable"
	NotJudged = "not judged"
)

// Judgement is what a report says of a cell: how loaded the machine was
// while it was measured (the load /proc/stat recorded, as numbers),
// whether that load moved its figure (stats.Busy), and the
// verdict its processes' evidence gives.
type Judgement struct {
	// Busy is the busy rule's verdict (stats.Busy of results.ProcessLoads):
	// the cell's figure rises with its processes' load (BusyRises), or
	// others' work took half the wall time or more throughout
	// (BusyThroughout), with the numbers below as its evidence. BusyKnown
	// is false when no process of the cell recorded the machine's load
	// (older sets, or a platform without /proc/stat).
	Busy           bool `json:"busy"`
	BusyKnown      bool `json:"busy_known"`
	BusyRises      bool `json:"busy_rises"`
	BusyThroughout bool `json:"busy_throughout"`
	// OthersShare and StealShare are the machine's other work (less
	// spawnbench's own) and the hypervisor's steal over the cell's wall
	// time, pooled over its processes (0 when unknown).
	OthersShare Float `json:"others_share"`
	StealShare  Float `json:"steal_share"`
	// LoadTested is how many processes the test of figure against load
	// took (0: too few); LoadRho, LoadP and LoadRatio are its correlation,
	// one-sided p-value and most-loaded half's figure over the
	// least-loaded half's (null when untested).
	LoadTested int   `json:"load_tested"`
	LoadRho    Float `json:"load_rho"`
	LoadP      Float `json:"load_p"`
	LoadRatio  Float `json:"load_ratio"`
	// Verdict is Stable, Unstable or NotJudged, for every cell. A cell is
	// judged when it has MinIntervalProcesses processes or more
	// (Processes counts those it has), and unstable only on evidence at
	// the level of processes (stats.Estimate.Unstable): its process
	// summaries drifted over the run (Drifted, with the drift test's
	// p-value DriftP), or they fall into two clusters (Clusters, lower
	// first). Precision is a number, not a verdict.
	Verdict   string            `json:"verdict"`
	Processes int               `json:"processes"`
	Drifted   bool              `json:"drifted,omitempty"`
	DriftP    Float             `json:"drift_p,omitempty"`
	Clusters  []ClusterEvidence `json:"clusters,omitempty"`
	// Unstable is Verdict == Unstable.
	Unstable bool `json:"unstable"`
	// Spread is the interquartile range of the process summaries over
	// their median (0 with fewer than MinIntervalProcesses processes), a
	// description, not a verdict.
	Spread Float `json:"spread"`
	// Target is the precision the cell's "about m processes for ±target"
	// is worked out for.
	Target Float `json:"target_precision"`
	// Needed is about how many processes the cell would need for Target
	// (stats.Estimate.ProcessesFor); 0 when it cannot say.
	Needed int `json:"processes_for_target,omitempty"`
}

// ClusterEvidence is one of the two clusters that make a cell unstable:
// its share of the processes and its typical spawn, µs.
type ClusterEvidence struct {
	Share     Float `json:"share"`
	TypicalUS Float `json:"typical_us"`
}

// Load is the busy rule's result the judgement holds, as stats.Busy
// gave it (shares not recorded read 0).
func (n Judgement) Load() stats.Load {
	return stats.Load{OthersShare: float64(n.OthersShare), StealShare: float64(n.StealShare),
		Busy: n.Busy, Throughout: n.BusyThroughout, Rises: n.BusyRises,
		Tested: n.LoadTested, Rho: float64(n.LoadRho), P: float64(n.LoadP), Ratio: float64(n.LoadRatio)}
}

// judge judges one cell from its measured processes, their process
// summaries and estimate.
func judge(runs []results.ProcessRun, procs []ProcessSummary, est *Estimate, target float64) Judgement {
	var n Judgement
	load := stats.Busy(results.ProcessLoads(runs))
	n.BusyKnown = !math.IsNaN(load.OthersShare) || !math.IsNaN(load.StealShare)
	n.Busy, n.BusyRises, n.BusyThroughout = load.Busy, load.Rises, load.Throughout
	n.OthersShare, n.StealShare = finite(load.OthersShare), finite(load.StealShare)
	n.LoadTested, n.LoadRho, n.LoadP, n.LoadRatio = load.Tested, Float(load.Rho), Float(load.P), Float(load.Ratio)
	n.Target = Float(target)
	if est == nil || !est.est.Judged() {
		if est != nil {
			n.Processes = est.Processes
		}
		n.Verdict = NotJudged
		return n
	}
	typical := make([]float64, len(procs))
	for i, p := range procs {
		typical[i] = p.TypicalUS
	}
	n.Spread = Float(stats.RelativeIQR(typical))
	n.Needed = est.est.ProcessesFor(target)
	n.Processes = est.Processes
	n.Verdict = Stable
	if e := est.est; e.Unstable() {
		n.Verdict = Unstable
		if e.Drifted {
			n.Drifted, n.DriftP = true, Float(e.DriftP)
		}
		if len(e.Clusters) == 2 {
			for _, c := range e.Clusters {
				n.Clusters = append(n.Clusters, ClusterEvidence{Share: Float(c.Share), TypicalUS: Float(c.Estimate.Center)})
			}
		}
	}
	n.Unstable = n.Verdict == Unstable
	return n
}

// finite is v, or 0 when v is NaN (not recorded).
func finite(v float64) Float {
	if math.IsNaN(v) {
		return 0
	}
	return Float(v)
}
