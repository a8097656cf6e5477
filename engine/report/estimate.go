package report

import (
	"math"
	"sort"
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
	// spawnVar is the variance of the process's log spawn times, for the
	// variance components.
	spawnVar float64
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

// processStarts are when and on which occasion a cell's measured
// processes ran, by process number.
type processStarts map[int32]processStart

type processStart struct {
	at       time.Time
	occasion int32
}

// startsOf collects the start times and occasions of a cell's measured
// runs.
func startsOf(runs []results.ProcessRun) processStarts {
	starts := processStarts{}
	for _, r := range runs {
		if !r.Warmup {
			starts[r.Process] = processStart{r.StartedAt, r.Occasion}
		}
	}
	return starts
}

// summarizeProcesses reduces each process's samples (already cut to the
// view) to its ProcessSummary, in process order.
func summarizeProcesses(samples []results.SpawnSample, starts processStarts) []ProcessSummary {
	byProcess := map[int32][]float64{}
	for _, s := range samples {
		byProcess[s.Process] = append(byProcess[s.Process], float64(s.SpawnNS)/1e3)
	}
	out := make([]ProcessSummary, 0, len(byProcess))
	for p, vs := range byProcess {
		out = append(out, ProcessSummary{Process: p, Spawns: len(vs), TypicalUS: stats.Typical(vs), Occasion: starts[p].occasion, StartedAt: starts[p].at,
			spawnVar: logVariance(vs)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Process < out[j].Process })
	return out
}

// estimate computes a cell's figure and interval from its process
// summaries; nil for none.
func estimate(procs []ProcessSummary) *Estimate {
	return estimateOf(stats.Summarize(statsProcesses(procs)))
}

// statsProcesses are process summaries as stats takes them.
func statsProcesses(procs []ProcessSummary) []stats.Process {
	ps := make([]stats.Process, len(procs))
	for i, p := range procs {
		ps[i] = stats.Process{Value: p.TypicalUS, Start: p.StartedAt, Occasion: int(p.Occasion), Spawns: p.Spawns, SpawnVar: p.spawnVar}
	}
	return ps
}

// logVariance is the variance of the logs of positive times (NaN for
// fewer than two).
func logVariance(us []float64) float64 {
	if len(us) < 2 {
		return math.NaN()
	}
	var sum, sum2 float64
	for _, v := range us {
		l := math.Log(max(v, 1e-3))
		sum, sum2 = sum+l, sum2+l*l
	}
	n := float64(len(us))
	return max(0, (sum2-sum*sum/n)/(n-1))
}

// ratioEstimate is a / b with its Yuen–Welch interval at Confidence.
func ratioEstimate(a, b *Estimate) (ratio, low, high float64) { return stats.Ratio(a.est, b.est) }

// yuenTest is the Yuen–Welch test of a and b: compare's p-value.
func yuenTest(a, b *Estimate) float64 { return stats.Test(a.est, b.est) }

// CellPrecision is what adaptive stopping asks of a cell: the relative
// half-width of its all-spawns figure's interval (+Inf while it has too
// few processes) and the number of processes behind it, from the
// samples of its measured, ok processes (warm-ups excluded) and its runs
// (for their start times).
func CellPrecision(samples []results.SpawnSample, runs []results.ProcessRun) (precision float64, processes int) {
	e := CellEstimate(samples, runs)
	if e == nil {
		return math.Inf(1), 0
	}
	return float64(e.Precision), e.Processes
}

// CellEstimate is the all-spawns figure of a cell over its processes,
// from the samples of its measured, ok processes (warm-ups excluded) and
// its runs (for their start times); nil for none.
func CellEstimate(samples []results.SpawnSample, runs []results.ProcessRun) *Estimate {
	return estimate(summarizeProcesses(samples, startsOf(runs)))
}

// Text is the figure with its interval and the processes behind it, as
// the reports print it.
func (e *Estimate) Text() string { return estimateText(e) }

// TypicalSpawnNS is one process's typical spawn, as reports reduce it
// (stats.Typical) in ns; NaN for none.
func TypicalSpawnNS(spawnNS []int64) float64 {
	v := make([]float64, len(spawnNS))
	for i, s := range spawnNS {
		v[i] = float64(s)
	}
	return stats.Typical(v)
}
