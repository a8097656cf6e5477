package report

import (
	"fmt"
	"math"
	"strings"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
	"spawnbench/engine/textfmt"
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
	// (BusyThroughout); BusyEvidence says which, with its numbers ("" when
	// not busy). BusyKnown is false when no process of the cell recorded
	// the machine's load (older sets, or a platform without /proc/stat).
	Busy           bool   `json:"busy"`
	BusyKnown      bool   `json:"busy_known"`
	BusyRises      bool   `json:"busy_rises"`
	BusyThroughout bool   `json:"busy_throughout"`
	BusyEvidence   string `json:"busy_evidence,omitempty"`
	// OthersShare and StealShare are the machine's other work (less
	// spawnbench's own) and the hypervisor's steal over the cell's wall
	// time, pooled over its processes (0 when unknown).
	OthersShare Float `json:"others_share"`
	StealShare  Float `json:"steal_share"`
	// LoadTested is how many processes the test of figure against load
	// took (0: too few); LoadRho, LoadP and LoadRatio are its correlation,
	// one-sided p-value and most-loaded half's figure over the
	// least-loaded half's (null when untested), LoadEffect the three in
	// words.
	LoadTested int    `json:"load_tested"`
	LoadRho    Float  `json:"load_rho"`
	LoadP      Float  `json:"load_p"`
	LoadRatio  Float  `json:"load_ratio"`
	LoadEffect string `json:"load_effect,omitempty"`
	// Verdict is Stable, Unstable or NotJudged, for every cell; Reason
	// says why in a few words. A cell is judged when it has
	// MinIntervalProcesses processes or more, and unstable only on
	// evidence at the level of processes (stats.Estimate.Unstable): its
	// process summaries drifted over the run, or they fall into two
	// clusters. Precision is a number, not a verdict.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
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

// Flags spells the cell's verdicts for a table: "busy", "unstable",
// "not judged", or a pair of them; "" for a stable cell on a quiet
// machine.
func (n Judgement) Flags() string {
	var f []string
	if n.Busy {
		f = append(f, "busy")
	}
	if n.Verdict == Unstable || n.Verdict == NotJudged {
		f = append(f, n.Verdict)
	}
	return strings.Join(f, ", ")
}

// judge judges one cell from its measured processes, their process
// summaries and estimate.
func judge(runs []results.ProcessRun, procs []ProcessSummary, est *Estimate, target float64) Judgement {
	var n Judgement
	load := stats.Busy(results.ProcessLoads(runs))
	n.BusyKnown = !math.IsNaN(load.OthersShare) || !math.IsNaN(load.StealShare)
	n.Busy, n.BusyRises, n.BusyThroughout, n.BusyEvidence = load.Busy, load.Rises, load.Throughout, textfmt.BusyEvidence(load)
	n.OthersShare, n.StealShare = finite(load.OthersShare), finite(load.StealShare)
	n.LoadTested, n.LoadRho, n.LoadP, n.LoadRatio, n.LoadEffect = load.Tested, Float(load.Rho), Float(load.P), Float(load.Ratio), textfmt.LoadEffect(load)
	n.Target = Float(target)
	if est == nil || !est.est.Judged() {
		k := 0
		if est != nil {
			k = est.Processes
		}
		n.Verdict, n.Reason = NotJudged, notJudgedText(k)
		return n
	}
	typical := make([]float64, len(procs))
	for i, p := range procs {
		typical[i] = p.TypicalUS
	}
	n.Spread = Float(stats.RelativeIQR(typical))
	n.Needed = est.est.ProcessesFor(target)
	n.Verdict = Stable
	if est.est.Unstable() {
		n.Verdict, n.Reason = Unstable, unstableReason(est.est)
	}
	n.Unstable = n.Verdict == Unstable
	return n
}

// notJudgedText says why a cell of k processes is not judged.
func notJudgedText(k int) string {
	return fmt.Sprintf("%s; a verdict needs %d", textfmt.Plural(k, "process", "processes"), MinIntervalProcesses)
}

// unstableReason says, in a few words, what evidence made a cell
// unstable.
func unstableReason(e *stats.Estimate) string {
	var why []string
	if e.Drifted {
		why = append(why, fmt.Sprintf("drifted: its later half of processes differs from its earlier half (p = %.2g)", e.DriftP))
	}
	if len(e.Clusters) == 2 {
		lo, hi := e.Clusters[0], e.Clusters[1]
		why = append(why, fmt.Sprintf("two clusters of processes, %.0f%% at %s and %.0f%% at %s",
			100*lo.Share, textfmt.TimeUS(lo.Estimate.Center), 100*hi.Share, textfmt.TimeUS(hi.Estimate.Center)))
	}
	return strings.Join(why, "; ")
}

// finite is v, or 0 when v is NaN (not recorded).
func finite(v float64) Float {
	if math.IsNaN(v) {
		return 0
	}
	return Float(v)
}
