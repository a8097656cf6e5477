package report

import (
	"math"
	"slices"
	"time"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// A design says how many occasions and processes per occasion each cell
// would need for a target precision, from the variance components and
// the costs a measured set shows (stats.DesignFor, after Kalibera and
// Jones): plan --precision P --from SET.

// CellDesign is one cell's design.
type CellDesign struct {
	Machine     string `json:"machine,omitempty"`
	Environment string `json:"environment"`
	Mode        string `json:"mode"`
	N           int32  `json:"n"`
	// Occasions and Processes (per occasion) are the design; Reached is
	// false when no design of up to the cap reaches the target.
	Occasions int  `json:"occasions"`
	Processes int  `json:"processes_per_occasion"`
	Reached   bool `json:"reached"`
	// Precision is what the design should reach; ExpectedS its cost in
	// seconds of wall time, from the set's costs.
	Precision Float `json:"precision"`
	ExpectedS Float `json:"expected_s"`
	// ProcessS is the median wall time of one of the cell's processes in
	// the set, and OccasionS the cell's share of an occasion's overhead.
	ProcessS  Float `json:"process_s"`
	OccasionS Float `json:"occasion_s"`
	// OccasionsMeasured is false when the set had one occasion, so the
	// between-occasion variance is unknown and the design assumes none.
	OccasionsMeasured bool `json:"occasions_measured"`
}

// DesignMaxOccasions caps the occasions a design may ask for.
const DesignMaxOccasions = 1000

// Design designs every measured cell's all-spawns view for target.
func (r *Report) Design(target float64) []CellDesign {
	overhead := occasionOverhead(r)
	var out []CellDesign
	cells := 0
	for i := range r.Cells {
		if c := &r.Cells[i]; c.Last == 0 && c.Stats != nil {
			cells++
		}
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Last != 0 || c.Stats == nil {
			continue
		}
		comp := stats.VarianceComponents(StatsProcesses(c.Stats.Summaries))
		processS := medianWallS(r.Groups[CellKey{c.Environment, c.Mode, c.N}])
		share := overhead / float64(max(cells, 1))
		d, ok := stats.DesignFor(comp, share, processS, target, DesignMaxOccasions)
		out = append(out, CellDesign{Machine: c.Machine, Environment: c.Environment, Mode: c.Mode, N: c.N,
			Occasions: d.Occasions, Processes: d.Processes, Reached: ok, Precision: Float(d.Precision), ExpectedS: Float(d.Cost),
			ProcessS: Float(processS), OccasionS: Float(share), OccasionsMeasured: comp.Occasions >= 2})
	}
	return out
}

// medianWallS is the median wall time of a cell's ok processes, seconds.
func medianWallS(g *Group) float64 {
	if g == nil {
		return math.NaN()
	}
	var w []float64
	for _, run := range g.Runs {
		if run.Status == results.StatusOK && run.WallNS > 0 {
			w = append(w, float64(run.WallNS)/1e9)
		}
	}
	return stats.Median(w)
}

// occasionOverhead is what one occasion costs beyond its processes, in
// seconds: the median over the set's measuring invocations of their wall
// time less their processes' wall times (builds, toolchain checks, the
// own-work measurement, browser starts); 0 when the set cannot tell.
func occasionOverhead(r *Report) float64 {
	var overheads []float64
	for _, src := range r.Sources {
		for _, inv := range src.Provenance.Invocations {
			if inv.Command != "run" && inv.Command != "resume" || inv.EndedAt == nil {
				continue
			}
			span := inv.EndedAt.Sub(inv.StartedAt)
			var busy time.Duration
			for _, g := range r.Groups {
				for _, run := range g.Runs {
					if run.Invocation == inv.ID {
						busy += time.Duration(run.WallNS)
					}
				}
			}
			overheads = append(overheads, max(0, (span-busy).Seconds()))
		}
	}
	slices.Sort(overheads)
	if len(overheads) == 0 {
		return 0
	}
	return stats.SortedQuantile(overheads, 0.5)
}
