package report

import (
	"math"
	"time"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// Every figure and interval of a report is engine/stats' (see its
// package doc): each process is reduced to its typical spawn in the view,
// and a cell's figure is computed over those process summaries. This
// file turns a cell's samples into process summaries and stats' estimates
// into the report's JSON view of them.

// The estimator's constants, as reports and their legends quote them.
const (
	Confidence           = stats.Confidence
	MinIntervalProcesses = stats.MinIntervalProcesses
	DriftAlpha           = stats.DriftAlpha
)

// ProcessSummary is one process's spawns in one view, reduced.
type ProcessSummary struct {
	Process int32 `json:"process"`
	// Spawns is the number of spawns in the view.
	Spawns int `json:"spawns"`
	// TypicalUS is the 20% trimmed mean of the spawn times, µs.
	TypicalUS float64 `json:"typical_us"`
	// Occasion is the occasion the process ran on (0: unknown).
	Occasion int32 `json:"occasion,omitempty"`
	// StartedAt is when the process started; zero where unknown.
	StartedAt time.Time `json:"-"`
	// SpawnVar is the variance of the process's log spawn times, for the
	// variance components.
	SpawnVar float64 `json:"-"`
	// MeanNS is the plain mean of the spawn times, ns: the value a
	// process carries in the benchfmt output, whose median benchstat
	// takes.
	MeanNS float64 `json:"-"`
}

// Estimate is a cell's figure, computed over its processes
// (stats.Summarize), in µs.
type Estimate struct {
	// TypicalUS is the cell's typical spawn time: the exponentiated 20%
	// trimmed mean of the log process summaries, µs.
	TypicalUS Float `json:"typical_us"`
	// LowUS and HighUS bound it at Confidence; NaN (null in JSON) when
	// the cell has fewer than MinIntervalProcesses processes.
	LowUS  Float `json:"low_us"`
	HighUS Float `json:"high_us"`
	// Processes is the number of independent processes behind the figure.
	Processes int `json:"processes"`
	// Precision is the interval's relative half-width, (High − Low) / 2 /
	// Typical; infinite when the interval is.
	Precision Float `json:"precision"`
	// Windowed is true when the cell's time windows, not its processes,
	// set the interval.
	Windowed bool `json:"windowed"`
	// Drifted is true when, moreover, the windows differ beyond chance:
	// the cell moved during the run.
	Drifted bool `json:"drifted"`
	// Occasions is the number of occasions the figure and interval are
	// computed over (3 or more), 0 when they are over processes.
	Occasions int `json:"occasions,omitempty"`
	// Clusters are the cell's two process clusters, lower first, when its
	// processes fall into two (stats' cluster test); each has its share of
	// the processes and its own figure.
	Clusters []ClusterShare `json:"clusters,omitempty"`

	est *stats.Estimate
}

// ClusterShare is one cluster of a cell's processes.
type ClusterShare struct {
	Share Float `json:"share"`
	Estimate
}

// Bounded is true when the estimate has an interval.
func (e *Estimate) Bounded() bool { return e != nil && e.est.Bounded() }

// estimateOf is the report's view of a stats estimate (nil for none).
func estimateOf(s *stats.Estimate) *Estimate {
	if s == nil {
		return nil
	}
	e := &Estimate{TypicalUS: Float(s.Center), LowUS: Float(s.Low), HighUS: Float(s.High), Processes: s.Processes,
		Precision: Float(s.Precision), Windowed: s.Windowed, Drifted: s.Drifted, Occasions: s.Occasions, est: s}
	for _, c := range s.Clusters {
		e.Clusters = append(e.Clusters, ClusterShare{Share: Float(c.Share), Estimate: *estimateOf(c.Estimate)})
	}
	return e
}

// process is one ok process of a cell that printed spawns, with its
// spawns in spawn order: a cell's samples are grouped by process once
// (group.byProcess), and every view and split of the cell starts here.
type process struct {
	Run    *results.ProcessRun
	Spawns []results.SpawnSample
}

// lastOf keeps, of each process, its last k spawns: the steady state
// after the slow first spawns.
func lastOf(procs []process, k int) []process {
	out := make([]process, len(procs))
	for i, p := range procs {
		out[i] = p
		if len(p.Spawns) > k {
			out[i].Spawns = p.Spawns[len(p.Spawns)-k:]
		}
	}
	return out
}

// where keeps, of each process, the spawns keep says yes to, and the
// processes left with any. keep is given each spawn and its index among
// the processes' spawns one after another (spawnsOf).
func where(procs []process, keep func(i int, s results.SpawnSample) bool) []process {
	var out []process
	i := 0
	for _, p := range procs {
		var in []results.SpawnSample
		for _, s := range p.Spawns {
			if keep(i, s) {
				in = append(in, s)
			}
			i++
		}
		if len(in) > 0 {
			out = append(out, process{p.Run, in})
		}
	}
	return out
}

// spawnsOf are the processes' spawns one after another.
func spawnsOf(procs []process) []results.SpawnSample {
	var out []results.SpawnSample
	for _, p := range procs {
		out = append(out, p.Spawns...)
	}
	return out
}

// summary is a process's summary of reduced spawns.
func summary(run *results.ProcessRun, spawns int, typicalUS, logVar float64) ProcessSummary {
	return ProcessSummary{Process: run.Process, Spawns: spawns, TypicalUS: typicalUS, Occasion: run.Occasion, StartedAt: run.StartedAt, SpawnVar: logVar}
}

// storedSummaries are the processes' summaries of every spawn, as the
// result set stores them (typical_spawn_ns, spawn_log_var): the report
// reads the reduction made when each process was written, never makes it
// again.
func storedSummaries(procs []process) []ProcessSummary {
	out := make([]ProcessSummary, len(procs))
	for i, p := range procs {
		logVar := math.NaN()
		if p.Run.SpawnLogVar != nil {
			logVar = *p.Run.SpawnLogVar
		}
		out[i] = summary(p.Run, len(p.Spawns), p.Run.TypicalUS(), logVar)
		out[i].MeanNS = meanNS(p.Spawns)
	}
	return out
}

// viewSummaries reduce each process's spawns in a view (or a part of
// one) as the result set reduces every spawn (stats.ReduceSpawns).
func viewSummaries(procs []process) []ProcessSummary {
	out := make([]ProcessSummary, len(procs))
	for i, p := range procs {
		ns := make([]int64, len(p.Spawns))
		for j, s := range p.Spawns {
			ns[j] = s.SpawnNS
		}
		r := stats.ReduceSpawns(ns)
		out[i] = summary(p.Run, r.Spawns, r.TypicalNS/1e3, r.LogVar)
		out[i].MeanNS = meanNS(p.Spawns)
	}
	return out
}

// meanNS is the plain mean of a process's spawn times, ns.
func meanNS(spawns []results.SpawnSample) float64 {
	ns := make([]float64, len(spawns))
	for j, s := range spawns {
		ns[j] = float64(s.SpawnNS)
	}
	return stats.Mean(ns)
}

// estimate computes a cell's figure and interval from its process
// summaries; nil for none.
func estimate(procs []ProcessSummary) *Estimate {
	return estimateOf(stats.Summarize(StatsProcesses(procs)))
}

// StatsProcesses are process summaries as stats takes them.
func StatsProcesses(procs []ProcessSummary) []stats.Process {
	ps := make([]stats.Process, len(procs))
	for i, p := range procs {
		ps[i] = stats.Process{Value: p.TypicalUS, Start: p.StartedAt, Occasion: int(p.Occasion), Spawns: p.Spawns, SpawnVar: p.SpawnVar}
	}
	return ps
}

// ratioEstimate is a / b with its Yuen–Welch interval at Confidence.
func ratioEstimate(a, b *Estimate) (ratio, low, high float64) { return stats.Ratio(a.est, b.est) }

// yuenTest is the Yuen–Welch test of a and b: compare's p-value.
func yuenTest(a, b *Estimate) float64 { return stats.Test(a.est, b.est) }
