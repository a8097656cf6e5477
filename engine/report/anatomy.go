package report

import (
	"math"
	"slices"
	"strings"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// Where the time goes. A traced process's spawns carry the kernel's own
// events of each new task (results/anatomy.go), which split a spawn,
// from the parent's clock reading before the create call to the child's
// first one, into four parts that add up to it:
//
//	before    = task_new_ns                       the runtime's work on the caller
//	kernel    = task_wakeup_ns − task_new_ns      clone itself
//	scheduler = task_first_run_ns − task_wakeup_ns where and when the child first runs
//	in_thread = spawn_ns − task_first_run_ns      the runtime's work on the new thread
//
// A host that times its own work in the new thread (the embedded
// Wasmtime) splits in_thread further, into its named phases
// (SpawnPhases), each the same statistic as a part.
//
// Tracing costs something, so the spec's anatomy block measures each
// listed environment a second time, traced, as an environment of its own
// (NAME@traced, NAME@one-cpu@traced), interleaved with the rest: the
// headline stays on the untraced cells, the parts come from the traced
// twins, and what tracing costs is the twin's figure ÷ the untraced one's,
// cell by cell, with the Yuen–Welch interval over both cells' processes,
// as any other ratio. Each part is the median over processes of each
// process's median, with the order-statistics interval
// (stats.MedianInterval): parts may be zero or, across two clocks,
// slightly negative, which the log-scale estimators cannot take, and
// medians of one statistic are what a stacked bar can set side by side.

// TracedSuffix ends the name of a traced twin: NAME@traced measures NAME
// again with its processes traced.
const TracedSuffix = "@traced"

// The parts of a spawn, in the order they happen.
const (
	PartBefore    = "before"
	PartKernel    = "kernel"
	PartScheduler = "scheduler"
	PartInThread  = "in_thread"
)

// PartNames are the parts in the order they happen.
var PartNames = []string{PartBefore, PartKernel, PartScheduler, PartInThread}

// The figures an anatomy row is of: the bottom line's columns.
const (
	FigureFirst  = "first"
	FigureSteady = "steady"
)

// SpawnParts splits one traced spawn into its parts, ns, in PartNames'
// order; ok is false where the spawn made no new OS thread or an event
// is missing. The parts add up to spawn_ns exactly: each ends where the
// next begins.
func SpawnParts(s results.SpawnSample) (parts [4]int64, ok bool) {
	if s.NewOSThread == nil || !*s.NewOSThread || s.TaskNewNS == nil || s.TaskWakeupNS == nil || s.TaskFirstRunNS == nil {
		return parts, false
	}
	return [4]int64{*s.TaskNewNS, *s.TaskWakeupNS - *s.TaskNewNS, *s.TaskFirstRunNS - *s.TaskWakeupNS, s.SpawnNS - *s.TaskFirstRunNS}, true
}

// SpawnPhases splits a traced spawn's in_thread part into the host's own
// phases (results.SpawnTrace.Phases), ns, in the order they happen: each
// from where the one before ended (the first from the new task's first
// run) to its own end. ok is false where the spawn has no parts or its
// host named no phases. Where the host's last phase ends at the child's
// first clock reading, as the embedded Wasmtime's does, they add up to
// in_thread.
func SpawnPhases(s results.SpawnSample) (phases []results.Phase, ok bool) {
	if _, ok := SpawnParts(s); !ok || len(s.Phases) == 0 {
		return nil, false
	}
	from := *s.TaskFirstRunNS
	phases = make([]results.Phase, len(s.Phases))
	for i, p := range s.Phases {
		phases[i] = results.Phase{Name: p.Name, EndNS: p.EndNS - from}
		from = p.EndNS
	}
	return phases, true
}

// Anatomy is the report's "Where the time goes": the parts of the bottom
// line's figures, from their traced twins, and what tracing cost.
type Anatomy struct {
	// Rows are, for each figure (first, then steady) and each bottom-line
	// row with a traced twin, in the bottom line's order, the row's
	// headline figure and, beside a one-CPU headline, its free one.
	Rows []AnatomyRow `json:"rows"`
	// Costs divide every cell of every traced twin whose processes were
	// all traced by its untraced environment's.
	Costs []TracingCost `json:"costs"`
	// NotTraced says why processes that were to be traced were not
	// (runs.parquet's trace_note of an untraced process), one entry per
	// reason; Limits what limits the trace of traced ones (events lost,
	// say: the note of a traced process).
	NotTraced []TraceNote `json:"not_traced,omitempty"`
	Limits    []TraceNote `json:"trace_limits,omitempty"`
}

// TraceNote is one reason processes were not traced, with the
// environments and the number of processes it held back.
type TraceNote struct {
	Note         string   `json:"note"`
	Environments []string `json:"environments"`
	Processes    int      `json:"processes"`
}

// AnatomyRow is one figure of one bottom-line row, split into its parts.
type AnatomyRow struct {
	// Row is the bottom-line row's environment; Environment the untraced
	// environment whose cell the row explains (the row's own, or its
	// one-CPU twin), Traced its traced twin, whose processes the parts
	// are of, and Placement where their threads ran ("free", "one-cpu").
	Row         string `json:"row"`
	Environment string `json:"environment"`
	Traced      string `json:"traced_environment"`
	Placement   string `json:"placement"`
	// Figure is FigureFirst or FigureSteady, Column its column.
	Figure string `json:"figure"`
	Mode   string `json:"mode"`
	Column Column `json:"column"`
	// SpawnUS is the spawn time as the parts are: the median over the
	// traced processes of each one's median spawn in the view, with its
	// interval.
	SpawnUS     Float `json:"spawn_us"`
	SpawnLowUS  Float `json:"spawn_low_us"`
	SpawnHighUS Float `json:"spawn_high_us"`
	// Processes counts the traced processes with spawns in the view,
	// Spawns their spawns.
	Processes int `json:"processes"`
	Spawns    int `json:"spawns"`
	// NewThreadShare is the share of those spawns for which the kernel
	// made a new task: 0 where every spawn reused a worker, a pool's
	// thread or a goroutine, and then Parts is empty.
	NewThreadShare Float `json:"new_os_thread_share"`
	// Parts are the four parts (PartNames' order) over the spawns that
	// made a new OS thread and have every event; empty where none has.
	Parts []AnatomyPart `json:"parts"`
	// Largest names the part with the largest median; "" without parts.
	Largest string `json:"largest,omitempty"`
	// SchedulerByPlacement splits the scheduler part by where the child
	// first ran (task_first_cpu) against its parent's CPU (parent_cpu),
	// where both are known.
	SchedulerByPlacement []PlacementPart `json:"scheduler_by_placement,omitempty"`
	// Cost is what tracing cost this figure: the traced twin's cell ÷ the
	// untraced one's; nil where the untraced cell has no figure.
	Cost *TracingCost `json:"tracing_cost,omitempty"`
}

// AnatomyPart is one part of a figure: the median over processes of each
// process's median part, µs, with its interval (NaN, null in JSON, below
// MinIntervalProcesses processes), and the processes behind it.
type AnatomyPart struct {
	Name      string `json:"name"`
	MedianUS  Float  `json:"median_us"`
	LowUS     Float  `json:"low_us"`
	HighUS    Float  `json:"high_us"`
	Processes int    `json:"processes"`
	// Phases split the in_thread part into the runtime's own phases
	// (SpawnPhases), each the same statistic over the processes whose
	// spawns have it, in the order they happen; nil for every other part
	// and where the host names none.
	Phases []AnatomyPart `json:"phases,omitempty"`
}

// PlacementPart is the scheduler part of the spawns whose child first
// ran on its parent's CPU (results.SameCPU) or on another.
type PlacementPart struct {
	Placement results.Placement `json:"placement"`
	// Share is the placement's share of the spawns whose placement is
	// known.
	Share Float `json:"share"`
	AnatomyPart
}

// TracingCost is what tracing cost one cell: the traced twin's figure ÷
// the untraced environment's in the same mode and column.
type TracingCost struct {
	Ratio
	TracedUS Float `json:"traced_us"`
	// Untraced is the untraced cell's figure and interval.
	UntracedUS     Float `json:"untraced_us"`
	UntracedLowUS  Float `json:"untraced_low_us"`
	UntracedHighUS Float `json:"untraced_high_us"`
	// BeyondInterval is true when the traced figure lies outside the
	// untraced cell's interval. Nil where that cell has no interval.
	BeyondInterval *bool `json:"beyond_interval"`
	// Moved is true when, moreover, the cost's own interval excludes 1:
	// tracing, not the traced cell's noise, put the figure there (a
	// noisy traced cell of a few processes can land outside by chance).
	// Nil where the untraced cell has no interval.
	Moved *bool `json:"moved"`
}

// tracedEnvironment is env's traced twin in the report, or "".
func (r *Report) tracedEnvironment(env string) string {
	for twin, of := range r.tracedOf {
		if of == env {
			return twin
		}
	}
	return ""
}

// untracedOf is the environment a traced twin's name says it measures,
// or "" for a name that is no traced twin's.
func untracedOf(env string) string {
	of, ok := strings.CutSuffix(env, TracedSuffix)
	if !ok || of == "" {
		return ""
	}
	return of
}

// anatomyOf builds the report's anatomy; nil where the set has no traced
// twin of a bottom-line cell and no tracing cost to state.
func anatomyOf(r *Report) *Anatomy {
	notes, limits := traceNotes(r, false), traceNotes(r, true)
	if len(r.tracedOf) == 0 && len(notes) == 0 && len(limits) == 0 {
		return nil
	}
	a := &Anatomy{Costs: tracingCosts(r), NotTraced: notes, Limits: limits}
	if b := r.BottomLine; b != nil {
		for _, fig := range []struct {
			name string
			col  Column
			pick func(BottomRow) *BottomCell
		}{
			{FigureFirst, b.First, func(row BottomRow) *BottomCell { return row.First }},
			{FigureSteady, b.Steady, func(row BottomRow) *BottomCell { return row.Steady }},
		} {
			if fig.name == FigureSteady && b.Steady == b.First {
				break // a set of n = 1 only: its steady state is its first spawn
			}
			for _, row := range b.Rows {
				bc := fig.pick(row)
				if bc == nil {
					continue
				}
				cells := []*BottomCell{bc}
				if bc.Free != nil {
					cells = append(cells, bc.Free)
				}
				for _, c := range cells {
					if ar := r.anatomyRow(row.Environment, c, b.Mode, fig.name, fig.col, a.Costs); ar != nil {
						a.Rows = append(a.Rows, *ar)
					}
				}
			}
		}
	}
	if len(a.Rows) == 0 && len(a.Costs) == 0 && len(a.NotTraced) == 0 && len(a.Limits) == 0 {
		return nil
	}
	return a
}

// traceNotes gathers the trace notes of the measured processes that
// were traced (or were not), in the report's order of environments, one
// entry per note.
func traceNotes(r *Report, traced bool) []TraceNote {
	var out []TraceNote
	for _, env := range r.Environments {
		for _, mode := range r.Modes {
			for _, n := range r.columnNs() {
				g := r.Groups[CellKey{env, mode, n}]
				if g == nil {
					continue
				}
				for _, run := range g.Runs {
					if run.TraceNote == "" || run.Traced != traced {
						continue
					}
					i := slices.IndexFunc(out, func(t TraceNote) bool { return t.Note == run.TraceNote })
					if i < 0 {
						out = append(out, TraceNote{Note: run.TraceNote})
						i = len(out) - 1
					}
					out[i].Processes++
					if !slices.Contains(out[i].Environments, env) {
						out[i].Environments = append(out[i].Environments, env)
					}
				}
			}
		}
	}
	return out
}

// columnNs are the report's thread counts, each once.
func (r *Report) columnNs() []int32 {
	var out []int32
	for _, c := range r.Columns {
		if !slices.Contains(out, c.N) {
			out = append(out, c.N)
		}
	}
	return out
}

// allTraced is true when every ok process of the cell was traced: a
// twin's processes that could not be traced measure no tracing.
func (r *Report) allTraced(env, mode string, n int32) bool {
	g := r.Groups[CellKey{env, mode, n}]
	if g == nil {
		return false
	}
	ok := 0
	for _, run := range g.Runs {
		if run.Status == results.StatusOK {
			if !run.Traced {
				return false
			}
			ok++
		}
	}
	return ok > 0
}

// tracingCosts divides every cell of each traced twin by its untraced
// environment's, in the report's order of environments.
func tracingCosts(r *Report) []TracingCost {
	var out []TracingCost
	for _, twin := range r.Environments {
		of := r.tracedOf[twin]
		if of == "" {
			continue
		}
		for _, q := range r.cellRatios(twin, of) {
			if r.allTraced(twin, q.Mode, q.N) {
				out = append(out, r.costOf(q))
			}
		}
	}
	return out
}

// costOf is q, a traced twin ÷ its untraced environment, with both
// figures and whether the traced one left the untraced interval.
func (r *Report) costOf(q Ratio) TracingCost {
	t, u := r.cellOn(q.Machine, q.Environment, q.Mode, q.Column), r.cellOn(q.Machine, q.Baseline, q.Mode, q.Column)
	c := TracingCost{Ratio: q, TracedUS: t.Stats.TypicalUS, UntracedUS: u.Stats.TypicalUS, UntracedLowUS: u.Stats.LowUS, UntracedHighUS: u.Stats.HighUS}
	if u.Stats.Bounded() {
		beyond := t.Stats.TypicalUS < u.Stats.LowUS || t.Stats.TypicalUS > u.Stats.HighUS
		moved := beyond && (q.Low > 1 || q.High < 1)
		c.BeyondInterval, c.Moved = &beyond, &moved
	}
	return c
}

// anatomyRow splits the bottom-line figure bc (of row, in mode and col)
// into its parts, from its environment's traced twin, with that cell's
// cost among costs; nil where the set has no traced spawn of the cell.
func (r *Report) anatomyRow(row string, bc *BottomCell, mode, figure string, col Column, costs []TracingCost) *AnatomyRow {
	twin := r.tracedEnvironment(bc.Environment)
	if twin == "" {
		return nil
	}
	g := r.Groups[CellKey{twin, mode, col.N}]
	if g == nil {
		return nil
	}
	procs := g.Procs
	if col.Last > 0 {
		procs = lastOf(procs, col.Last)
	}
	procs = where(procs, func(_ int, s results.SpawnSample) bool { return s.Traced() })
	if len(procs) == 0 {
		return nil
	}
	t := newTally()
	for _, p := range procs {
		t.add(p.Spawns)
	}
	out := &AnatomyRow{Row: row, Environment: bc.Environment, Traced: twin, Placement: bc.Placement, Figure: figure, Mode: mode, Column: col,
		Processes: len(procs), Spawns: t.spawns, NewThreadShare: Float(float64(t.newThreads) / float64(t.spawns)), Parts: []AnatomyPart{}}
	spawn := partOf("", t.spawnMedians)
	out.SpawnUS, out.SpawnLowUS, out.SpawnHighUS = spawn.MedianUS, spawn.LowUS, spawn.HighUS
	if len(t.parts[0]) > 0 {
		largest := math.Inf(-1)
		for i, name := range PartNames {
			part := partOf(name, t.parts[i])
			if name == PartInThread {
				for _, ph := range t.phaseOrder {
					part.Phases = append(part.Phases, partOf(ph, t.phases[ph]))
				}
			}
			out.Parts = append(out.Parts, part)
			if float64(part.MedianUS) > largest {
				largest, out.Largest = float64(part.MedianUS), name
			}
		}
	}
	known := t.placed[results.SameCPU] + t.placed[results.OtherCPU]
	for _, pl := range []results.Placement{results.SameCPU, results.OtherCPU} {
		if len(t.sched[pl]) > 0 {
			out.SchedulerByPlacement = append(out.SchedulerByPlacement, PlacementPart{Placement: pl,
				Share: Float(float64(t.placed[pl]) / float64(known)), AnatomyPart: partOf(PartScheduler, t.sched[pl])})
		}
	}
	for i := range costs {
		if q := &costs[i]; q.Environment == twin && q.Baseline == bc.Environment && q.Mode == mode && q.Column == col {
			out.Cost = q
		}
	}
	return out
}

// tally gathers a view's traced spawns process by process: each
// process's median spawn, its median of each part (over its spawns that
// have parts), of each of the host's phases (over its spawns that have
// it) and of the scheduler's part in each placement, and the counts the
// shares come from.
type tally struct {
	spawns, newThreads int
	spawnMedians       []float64
	parts              [4][]float64
	// phases are by name, in phaseOrder: the order the first spawn that
	// names each gives.
	phases     map[string][]float64
	phaseOrder []string
	sched      map[results.Placement][]float64
	placed     map[results.Placement]int
}

func newTally() *tally {
	return &tally{phases: map[string][]float64{}, sched: map[results.Placement][]float64{}, placed: map[results.Placement]int{}}
}

// add tallies one process's traced spawns.
func (t *tally) add(spawns []results.SpawnSample) {
	var whole []float64
	var parts [4][]float64
	phases := map[string][]float64{}
	sched := map[results.Placement][]float64{}
	for _, s := range spawns {
		t.spawns++
		whole = append(whole, float64(s.SpawnNS)/1e3)
		if *s.NewOSThread {
			t.newThreads++
		}
		ps, ok := SpawnParts(s)
		if !ok {
			continue
		}
		for i, v := range ps {
			parts[i] = append(parts[i], float64(v)/1e3)
		}
		if phs, ok := SpawnPhases(s); ok {
			for _, ph := range phs {
				if !slices.Contains(t.phaseOrder, ph.Name) {
					t.phaseOrder = append(t.phaseOrder, ph.Name)
				}
				phases[ph.Name] = append(phases[ph.Name], float64(ph.EndNS)/1e3)
			}
		}
		if pl := firstRunPlacement(s); pl != results.UnknownPlacement {
			t.placed[pl]++
			sched[pl] = append(sched[pl], float64(ps[2])/1e3)
		}
	}
	t.spawnMedians = append(t.spawnMedians, stats.Median(whole))
	for i := range parts {
		if len(parts[i]) > 0 {
			t.parts[i] = append(t.parts[i], stats.Median(parts[i]))
		}
	}
	for name, v := range phases {
		t.phases[name] = append(t.phases[name], stats.Median(v))
	}
	for pl, v := range sched {
		t.sched[pl] = append(t.sched[pl], stats.Median(v))
	}
}

// partOf is one part over processes: the median of the processes'
// medians, with its interval.
func partOf(name string, perProcess []float64) AnatomyPart {
	m, lo, hi := stats.MedianInterval(perProcess)
	return AnatomyPart{Name: name, MedianUS: Float(m), LowUS: Float(lo), HighUS: Float(hi), Processes: len(perProcess)}
}

// firstRunPlacement is where the kernel first ran the spawn's new task:
// on the CPU its parent was on when the create call returned, or another.
func firstRunPlacement(s results.SpawnSample) results.Placement {
	return results.SpawnSample{ParentCPU: s.ParentCPU, ChildCPU: s.TaskFirstCPU}.Placement()
}
