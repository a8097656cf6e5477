package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// DefaultBaseline is the environment other environments are divided by.
const DefaultBaseline = "native"

// Input is one result set and the directory it was read from.
type Input struct {
	Dir string
	Set *results.Set
}

// Options choose what a report divides by.
type Options struct {
	// Baseline names the environment for the ratio table; empty means
	// DefaultBaseline.
	Baseline string
	// NoRegimes leaves every cell's Regimes out, for a caller that needs
	// only the figures (a plan's allocation, the top-up): finding them,
	// a kernel density over every spawn of every cell, is most of a
	// report's work.
	NoRegimes bool
}

// Column is one column of the classic table: a thread count, and either
// every spawn of each process (Last == 0) or only its last Last spawns.
type Column struct {
	N    int32 `json:"n"`
	Last int   `json:"last,omitempty"`
}

// Stats summarise the spawn times of one cell, in microseconds.
type Stats struct {
	// Estimate is the cell's figure and interval, computed over its
	// processes (estimate.go): what every table shows and every ratio
	// and comparison uses.
	Estimate
	// Summaries are the cell's processes, each reduced to one number.
	Summaries []ProcessSummary `json:"process_summaries"`
	// Variance splits the cell's variance by level (occasions.go); nil
	// for a last-spawns view.
	Variance *VarianceComponents `json:"variance,omitempty"`
	// MeanUS is the mean of every spawn (the earlier study's statistic),
	// MedianUS the median of every spawn and P95US the 95th percentile
	// (Hyndman and Fan's definition 8): descriptions of the pooled
	// spawns, with no interval, since pooled spawns are not independent.
	MeanUS   Float `json:"mean_us"`
	MedianUS Float `json:"median_us"`
	P95US    Float `json:"p95_us"`
}

// Cell is everything known about one (environment, mode, column).
type Cell struct {
	// Machine is the ID of the machine that measured the cell.
	Machine     string `json:"machine,omitempty"`
	Environment string `json:"environment"`
	// Kind is the environment's kind, Host its host and Family the host's
	// family.
	Kind   string `json:"kind,omitempty"`
	Host   string `json:"host,omitempty"`
	Family string `json:"family"`
	Mode   string `json:"mode"`
	Column
	// Samples counts the spawns in the view of the cell's ok processes:
	// warm-ups and failed processes never enter a statistic.
	Samples int `json:"samples"`
	// Processes counts measured processes; Failures counts those whose
	// status was not ok, by status.
	Processes int            `json:"processes"`
	Failures  map[string]int `json:"failures,omitempty"`
	// Untrusted counts samples with clock_trusted = false.
	Untrusted int `json:"untrusted_samples"`
	// ClockCouldMove is true where the cell's clock is in doubt
	// (stats.ClockRule): its untrusted samples could move its figure
	// outside its interval, or its environment failed a calibration check.
	ClockCouldMove bool `json:"clock_could_move,omitempty"`
	// Skipped is the reason the runner skipped the environment.
	Skipped string `json:"skipped,omitempty"`
	Stats   *Stats `json:"stats,omitempty"`
	// Parallel holds, for a parallel-mode cell's all-spawns view, the
	// quantities that do not grow with n by construction (parallel.go).
	Parallel *ParallelStats `json:"parallel,omitempty"`
	// Placements split the cell by where each child first ran, where the
	// environment records it (placement.go).
	Placements []PlacementShare `json:"placements,omitempty"`
	// Regimes are the modes of the cell's spawn times when there are two
	// or more (regimes.go), each with its share and figure.
	Regimes []Regime `json:"regimes,omitempty"`
	// Judgement is the cell's busy and unstable verdicts.
	Judgement Judgement `json:"judgement"`
}

// Ratio is an environment's typical spawn time divided by the baseline's
// in the same (mode, column), both computed over processes.
type Ratio struct {
	// Machine measured both the cell and the baseline's.
	Machine     string `json:"machine,omitempty"`
	Environment string `json:"environment"`
	Baseline    string `json:"baseline"`
	Mode        string `json:"mode"`
	Column
	Ratio Float `json:"ratio"`
	// Low and High bound the ratio at Confidence (Yuen–Welch over the
	// two cells' processes). Where a cell has too few processes to bound
	// it, Low is 0 and High infinite (null in JSON).
	Low  Float `json:"low"`
	High Float `json:"high"`
	// Processes and BaselineProcesses count the processes behind each
	// side.
	Processes         int `json:"processes"`
	BaselineProcesses int `json:"baseline_processes"`
	// Divisor is what the ratio divides by: DivideByCell, the baseline
	// cell's figure, or DivideByLowerCluster, where the report's baseline
	// cell's processes fall into two clusters, the lower cluster's figure
	// (DivisorUS, over its BaselineProcesses, DivisorShare of the cell's
	// processes), which does not move with the clusters' shares from run
	// to run (stats.Divisor).
	Divisor      string `json:"divisor"`
	DivisorUS    Float  `json:"divisor_us"`
	DivisorShare Float  `json:"divisor_share"`
	// Placements are the ratio within each placement, where both cells
	// record where their children start (placement_ratio.go).
	Placements []PlacementRatio `json:"placements,omitempty"`
	// MixesPlacements is true when the two sides start their children
	// on the parent's CPU in shares more than MixShareGap apart, so the
	// pooled ratio mixes placements.
	MixesPlacements bool `json:"-"`
}

// Precision is the ratio's 95% interval's relative half-width, (High −
// Low) ÷ 2 ÷ Ratio, as a bottom line's target counts it; infinite where
// the interval is unbounded.
func (r *Ratio) Precision() float64 {
	if !(r.Low > 0) || math.IsInf(float64(r.High), 0) || !(r.Ratio > 0) {
		return math.Inf(1)
	}
	return float64(r.High-r.Low) / 2 / float64(r.Ratio)
}

// ClockVerdict is what calibration and the samples' own checks say about
// one environment's clock.
type ClockVerdict struct {
	Environment     string        `json:"environment"`
	SleepPassed     int           `json:"sleep_passed"`
	SleepChecks     int           `json:"sleep_checks"`
	CoherencePassed int           `json:"coherence_passed"`
	CoherenceChecks int           `json:"coherence_checks"`
	Untrusted       int           `json:"untrusted_samples"`
	Samples         int           `json:"samples"`
	Failed          []FailedCheck `json:"failed_checks,omitempty"`
	// Cells are the environment's cells whose figures its clock could
	// move (Cell.ClockCouldMove): the ones the verdict is about.
	Cells []CellID `json:"cells_could_move,omitempty"`
	// ObservedStepNS is the smallest clock step the calibration processes
	// observed and ClockReadNS the median of their read costs; 0 when
	// none said.
	ObservedStepNS int64 `json:"observed_step_ns,omitempty"`
	ClockReadNS    int64 `json:"clock_read_ns,omitempty"`

	reads []float64
}

// FailedCheck is one calibration check that failed: which, in which
// calibration process, and the check's own detail.
type FailedCheck struct {
	Check   string `json:"check"`
	Process int32  `json:"process"`
	Detail  string `json:"detail,omitempty"`
}

// Trusted is false when any check failed or any sample's clock was
// flagged.
func (v ClockVerdict) Trusted() bool {
	return v.SleepPassed == v.SleepChecks && v.CoherencePassed == v.CoherenceChecks && v.Untrusted == 0
}

// Calibrated is true when the environment has any calibration check.
func (v ClockVerdict) Calibrated() bool { return v.SleepChecks+v.CoherenceChecks > 0 }

// CalibrationFailed is true when any calibration check failed: the clock
// itself is off, not a few samples.
func (v ClockVerdict) CalibrationFailed() bool {
	return v.SleepPassed < v.SleepChecks || v.CoherencePassed < v.CoherenceChecks
}

// Failure is one process that did not end ok.
type Failure struct {
	Environment string `json:"environment"`
	Mode        string `json:"mode"`
	N           int32  `json:"n"`
	Process     int32  `json:"process"`
	Status      string `json:"status"`
	ExitCode    int32  `json:"exit_code"`
	Signal      string `json:"signal,omitempty"`
	Error       string `json:"error,omitempty"`
}

// Source is one result set that went into a report.
type Source struct {
	Dir        string             `json:"dir"`
	Provenance results.Provenance `json:"provenance"`
	// Incomplete says why the set is less than its invocations planned
	// (results.Set.Incomplete); empty for a complete set.
	Incomplete []string `json:"incomplete,omitempty"`
	// Processes counts the set's measured processes (warm-ups
	// included).
	Processes int `json:"processes"`
}

// Report is everything spawnbench report prints, computed once and then
// rendered as Markdown, CSV or JSON.
type Report struct {
	Sources    []Source `json:"sources"`
	Baseline   string   `json:"baseline"`
	Confidence float64  `json:"confidence"`
	// Precision is the target precision cells are judged against.
	Precision    float64  `json:"target_precision"`
	ViewLast     int      `json:"view_last"`
	ViewMinN     int32    `json:"view_min_n"`
	Environments []string `json:"environments"`
	Modes        []string `json:"modes"`
	Columns      []Column `json:"columns"`
	Cells        []Cell   `json:"cells"`
	Ratios       []Ratio  `json:"ratios"`
	// Against divides each environment that its spec sets against another
	// by that one (against.go); Baseline is then the other environment.
	Against  []Ratio           `json:"against,omitempty"`
	Clocks   []ClockVerdict    `json:"clocks"`
	Failures []Failure         `json:"failures"`
	Skipped  map[string]string `json:"skipped,omitempty"`
	// Incomplete names, per result set, what its invocations planned but
	// did not measure, and invocations that were interrupted.
	Incomplete []string `json:"incomplete,omitempty"`
	// Warnings are caveats about what could not be computed (a baseline
	// with no measurements, a machine's own warnings), deduplicated.
	Warnings []Warning `json:"warnings,omitempty"`
	// Machines holds one whole report per machine when the sets were
	// measured on more than one; Cells and Ratios then gather theirs,
	// each naming its machine.
	Machines []MachineReport `json:"machines,omitempty"`
	// Releases sets the Wasmtime CLI's releases side by side when the
	// report holds two or more (releases.go).
	Releases []ReleaseRow `json:"wasmtime_releases,omitempty"`
	// ToolReleases sets an environment's newer Emscripten, Node.js or
	// Firefox beside its older (toolreleases.go).
	ToolReleases []ToolReleaseRow `json:"tool_releases,omitempty"`
	// BottomLine is the answer first (bottomline.go); nil when the set
	// holds no cell of the baseline.
	BottomLine *BottomLine `json:"bottom_line,omitempty"`
	// Anatomy splits the bottom line's figures into their parts, from
	// their traced twins (anatomy.go); nil where the set traced none.
	Anatomy *Anatomy `json:"anatomy,omitempty"`

	// Groups keeps the measured samples, for the plots.
	Groups map[CellKey]*Group `json:"-"`
	// kinds maps each measured environment to its kind, families to its
	// family.
	kinds, families map[string]string
	// noRegimes is Options.NoRegimes.
	noRegimes bool
	// twinOf maps each one-CPU twin to the environment it measures
	// pinned (spec's placement block).
	twinOf map[string]string
	// tracedOf maps each traced twin (NAME@traced) to the environment
	// it measures traced.
	tracedOf map[string]string
	// CellMachines is the machine that measured each cell (nil where no
	// invocation says).
	CellMachines map[CellKey]*results.Machine `json:"-"`
}

// Cell returns the cell for (environment, mode, column), or nil.
func (r *Report) Cell(env, mode string, col Column) *Cell {
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Environment == env && c.Mode == mode && c.Column == col {
			return c
		}
	}
	return nil
}

// Ran reports whether the report has cells for (env, mode): whether the
// environment was skipped or has any run or sample in that mode.
func (r *Report) Ran(env, mode string) bool {
	return slices.ContainsFunc(r.Cells, func(c Cell) bool { return c.Environment == env && c.Mode == mode })
}

// CellKey names one measured (environment, mode, n).
type CellKey struct {
	Env, Mode string
	N         int32
}

// Group is the measured data of one CellKey.
type Group struct {
	kind    string
	payload string
	host    string
	family  string
	// placementOf is, for a one-CPU twin, the environment it measures.
	placementOf string
	Samples     []results.SpawnSample // of ok processes only
	Runs        []results.ProcessRun  // every measured process, whatever its status
	// Procs are the ok processes that printed spawns, in process order,
	// each with its spawns in spawn order (byProcess).
	Procs []process
}

// byProcess groups g's samples by process, once, after every input is
// read (g.runs no longer grows). Each process must carry its stored
// summary: the report reads it, and does not reduce the process again.
func (g *Group) byProcess(dir string, k CellKey) error {
	spawns := map[int32][]results.SpawnSample{}
	for _, s := range g.Samples {
		spawns[s.Process] = append(spawns[s.Process], s)
	}
	for i := range g.Runs {
		run := &g.Runs[i]
		ss := spawns[run.Process]
		if len(ss) == 0 {
			continue // failed, or printed nothing
		}
		if run.TypicalSpawnNS == nil || (len(ss) > 1 && run.SpawnLogVar == nil) {
			return fmt.Errorf("%s: %s %s n=%d process %d printed %d spawns but stores no summary (typical_spawn_ns, spawn_log_var): a set is summarized when written (ProcessRun.Summarize) and when read",
				dir, k.Env, k.Mode, k.N, run.Process, len(ss))
		}
		sort.SliceStable(ss, func(a, b int) bool { return ss[a].Thread < ss[b].Thread })
		g.Procs = append(g.Procs, process{run, ss})
	}
	sort.SliceStable(g.Procs, func(a, b int) bool { return g.Procs[a].Run.Process < g.Procs[b].Run.Process })
	return nil
}

// Build computes a report from one or more result sets. Sets are merged
// when they measured disjoint cells (for example one run per environment);
// two sets measuring the same (environment, mode, n) are an input error,
// since that is what Compare is for.
func Build(inputs []Input, opt Options) (*Report, error) {
	if len(inputs) == 0 {
		return nil, &inputerr.Error{Msg: "no result directories given"}
	}
	machines := machinesOf(inputs)
	if len(machines) > 1 {
		return buildPerMachine(inputs, opt, machines)
	}
	r := &Report{Baseline: opt.Baseline, Confidence: Confidence, Skipped: map[string]string{}, CellMachines: map[CellKey]*results.Machine{}, noRegimes: opt.NoRegimes}
	if r.Baseline == "" {
		r.Baseline = DefaultBaseline
	}
	m := &measured{groups: map[CellKey]*Group{}, owner: map[CellKey]int{}}
	for i := range inputs {
		if err := r.gather(m, inputs, i); err != nil {
			return nil, err
		}
	}
	for _, k := range m.keys {
		if err := m.groups[k].byProcess(inputs[m.owner[k]].Dir, k); err != nil {
			return nil, err
		}
	}
	r.setAxes(inputs, m)
	warnings := map[Warning]bool{}
	r.fillCells(m.groups, warnings)
	r.derive(inputs, m, warnings)
	if len(machines) == 1 {
		r.markMachine(machines[0])
	}
	return r, nil
}

// measured is what Build gathers from its sets before it computes:
// each cell's group, which input measured it, the cells in the order
// first seen, and the sets' calibration checks.
type measured struct {
	groups      map[CellKey]*Group
	owner       map[CellKey]int
	keys        []CellKey
	calibration []results.CalibrationCheck
}

// gather adds inputs[i]'s processes and samples to m, and its views,
// precision, sources and skipped environments to r. A set holds many
// rows of each of its cells; a second set measuring one of them would
// mix two runs' processes, so that is an input error.
func (r *Report) gather(m *measured, inputs []Input, i int) error {
	in := inputs[i]
	s := in.Set
	last, minN, err := views(&s.Provenance)
	if err != nil {
		return &inputerr.Error{Msg: fmt.Sprintf("%s: %v", in.Dir, err)}
	}
	if r.ViewLast == 0 {
		r.ViewLast, r.ViewMinN = last, minN
	} else if last != 0 && (last != r.ViewLast || minN != r.ViewMinN) {
		return &inputerr.Error{Msg: fmt.Sprintf("%s uses views last %d for n >= %d but %s uses last %d for n >= %d; report them separately",
			in.Dir, last, minN, inputs[0].Dir, r.ViewLast, r.ViewMinN)}
	}
	if p := precisionTarget(&s.Provenance); p > 0 && (r.Precision == 0 || p < r.Precision) {
		r.Precision = p // several sets: judge by the strictest
	}
	r.Sources = append(r.Sources, Source{Dir: in.Dir, Provenance: s.Provenance, Incomplete: s.Incomplete(), Processes: len(s.Runs)})
	for _, why := range s.Incomplete() {
		r.Incomplete = append(r.Incomplete, in.Dir+": "+why)
	}
	inv := s.Provenance.LastMeasuring()
	if inv == nil {
		inv = s.Provenance.Last()
	}
	var machine *results.Machine
	if inv != nil {
		machine = &inv.Machine
	}
	add := func(k CellKey) (*Group, error) {
		if prev, ok := m.owner[k]; ok && prev != i {
			return nil, &inputerr.Error{Msg: fmt.Sprintf("%s and %s both measured %s %s n=%d; use `spawnbench compare` to compare sets",
				inputs[prev].Dir, in.Dir, k.Env, k.Mode, k.N)}
		}
		m.owner[k] = i
		r.CellMachines[k] = machine
		g := m.groups[k]
		if g == nil {
			g = &Group{}
			m.groups[k] = g
			m.keys = append(m.keys, k)
			r.Environments = appendNew(r.Environments, k.Env)
			r.Modes = appendNew(r.Modes, k.Mode)
		}
		return g, nil
	}
	if err := results.CheckUnique(in.Dir, s); err != nil {
		return err
	}
	// Samples count only when their process ended ok: a process that
	// failed half-way printed spawns under conditions that killed it.
	type procKey struct {
		CellKey
		process int32
	}
	okProcess := map[procKey]bool{}
	for _, run := range s.Runs {
		g, err := add(CellKey{run.Environment, run.Mode, run.N})
		if err != nil {
			return err
		}
		if g.kind == "" {
			g.kind, g.payload, g.host, g.family = run.Kind, run.Payload, run.Host, run.Family
			g.placementOf = run.PlacementOf
			if g.payload == "" && g.host == "" {
				g.payload, g.host, _ = results.PairOfKind(run.Kind) // a set older than the columns
			}
		}
		if !run.Warmup {
			g.Runs = append(g.Runs, run)
			if run.Status == results.StatusOK {
				okProcess[procKey{CellKey{run.Environment, run.Mode, run.N}, run.Process}] = true
			}
		}
	}
	for _, smp := range s.Samples {
		k := CellKey{smp.Environment, smp.Mode, smp.N}
		g, err := add(k)
		if err != nil {
			return err
		}
		if g.kind == "" {
			g.kind = smp.Kind
		}
		if !smp.Warmup && okProcess[procKey{k, smp.Process}] {
			g.Samples = append(g.Samples, smp)
		}
	}
	skipped := skippedEnvironments(&s.Provenance)
	if len(s.Samples) == 0 && len(s.Runs) == 0 && len(s.Calibration) == 0 && len(skipped) == 0 {
		return &inputerr.Error{Msg: fmt.Sprintf("%s holds no results: no runs, samples, calibration checks or skipped environments", in.Dir)}
	}
	for env, why := range skipped {
		r.Skipped[env] = why
	}
	m.calibration = append(m.calibration, s.Calibration...)
	return nil
}

// setAxes sets the report's rows and columns from what was measured:
// the environments in the order planned and by family (the skipped ones
// last), each environment's kind, family and twin, and a column per n
// and per view.
func (r *Report) setAxes(inputs []Input, m *measured) {
	// An environment skipped by one set but measured by another was not
	// skipped.
	for env := range r.Skipped {
		if slices.Contains(r.Environments, env) {
			delete(r.Skipped, env)
		}
	}
	r.Environments = append(r.Environments, sortedKeys(r.Skipped)...)

	r.kinds, r.families, r.twinOf, r.tracedOf = map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	var nList []int32
	for _, k := range m.keys {
		if !slices.Contains(nList, k.N) {
			nList = append(nList, k.N)
		}
		g := m.groups[k]
		if r.kinds[k.Env] == "" {
			r.kinds[k.Env] = g.kind
		}
		// A traced twin of a one-CPU twin is no one-CPU twin of its own:
		// each environment has one, untraced.
		if of := untracedOf(k.Env); of != "" {
			r.tracedOf[k.Env] = of
		} else if g.placementOf != "" {
			r.twinOf[k.Env] = g.placementOf
		}
		if r.families[k.Env] == "" {
			r.families[k.Env] = g.family
		}
	}
	for _, in := range inputs {
		for _, inv := range in.Set.Provenance.Invocations {
			for _, c := range inv.Planned {
				if r.families[c.Environment] == "" {
					r.families[c.Environment] = c.Family
				}
			}
		}
	}
	r.orderAsPlanned(inputs)
	r.orderByFamily()
	slices.Sort(nList)
	for _, n := range nList {
		r.Columns = append(r.Columns, Column{N: n})
	}
	for _, n := range nList {
		if r.ViewLast > 0 && n >= r.ViewMinN {
			r.Columns = append(r.Columns, Column{N: n, Last: r.ViewLast})
		}
	}
}

// fillCells computes a cell per row and column. A mode an environment
// never ran in would only be a row of n/a, so it has none; a skipped
// environment keeps its rows to say so.
func (r *Report) fillCells(groups map[CellKey]*Group, warnings map[Warning]bool) {
	for _, env := range r.Environments {
		for _, mode := range r.Modes {
			ran := r.Skipped[env] != ""
			for _, col := range r.Columns {
				if groups[CellKey{env, mode, col.N}] != nil {
					ran = true
				}
			}
			if !ran {
				continue
			}
			for _, col := range r.Columns {
				c := Cell{Environment: env, Kind: r.kinds[env], Family: r.Family(env), Mode: mode, Column: col, Skipped: r.Skipped[env]}
				if g := groups[CellKey{env, mode, col.N}]; g != nil {
					c.Host = g.host
					fillCell(&c, g, r.Precision, !r.noRegimes, warnings)
				}
				r.Cells = append(r.Cells, c)
			}
		}
	}
	r.Groups = groups
}

// derive computes what the cells give: the ratios, the against pairs,
// the releases, the clocks' verdicts, the failures, the warnings and the
// bottom line.
func (r *Report) derive(inputs []Input, m *measured, warnings map[Warning]bool) {
	r.Ratios = ratios(r, warnings)
	r.makespanRatios()
	against := map[string]string{}
	for _, in := range inputs {
		for env, other := range againstOf(&in.Set.Provenance) {
			against[env] = other
		}
	}
	r.Against = againstRatios(r, against)
	r.Releases = releasesOf(r)
	r.ToolReleases = toolReleasesOf(r)
	r.Clocks = clockVerdicts(r, m.groups, m.calibration)
	r.markClockCells()
	for _, k := range m.keys {
		for _, run := range m.groups[k].Runs {
			if run.Status != results.StatusOK {
				r.Failures = append(r.Failures, Failure{
					Environment: run.Environment, Mode: run.Mode, N: run.N, Process: run.Process,
					Status: run.Status, ExitCode: run.ExitCode, Signal: run.Signal, Error: run.Error,
				})
			}
		}
	}
	r.Warnings = warningsOf(warnings)
	r.BottomLine = bottomLine(r)
	r.Anatomy = anatomyOf(r)
}

// fillCell computes c from the measured data of its (environment, mode, n).
func fillCell(c *Cell, g *Group, target float64, regimes bool, warnings map[Warning]bool) {
	c.Processes = len(g.Runs)
	for _, run := range g.Runs {
		if run.Status != results.StatusOK {
			if c.Failures == nil {
				c.Failures = map[string]int{}
			}
			c.Failures[run.Status]++
		}
	}
	procs, summaries := g.Procs, storedSummaries(g.Procs)
	if c.Last > 0 {
		procs = lastOf(g.Procs, c.Last)
		summaries = viewSummaries(procs)
	}
	samples := spawnsOf(procs)
	c.Samples = len(samples)
	if len(samples) == 0 {
		c.Judgement = judge(g.Runs, nil, nil, target)
		return
	}
	values := make([]float64, len(samples))
	for i, s := range samples {
		values[i] = float64(s.SpawnNS) / 1e3
		if !s.ClockTrusted {
			c.Untrusted++
		}
	}
	c.Stats = summarize(values, summaries)
	if c.Untrusted > 0 {
		tainted := make([]bool, len(procs))
		for i, p := range procs {
			tainted[i] = slices.ContainsFunc(p.Spawns, func(s results.SpawnSample) bool { return !s.ClockTrusted })
		}
		c.ClockCouldMove = stats.ClockCouldMove(StatsProcesses(summaries), tainted, c.Stats.est)
	}
	if c.Last == 0 {
		c.Stats.Variance = varianceOf(c.Stats.Summaries)
	}
	if regimes {
		c.Regimes = regimesOf(procs, values)
	}
	c.Placements = placementsOf(procs, len(samples))
	if c.Mode == "parallel" && c.Last == 0 {
		c.Parallel = parallelOf(c.N, g.Procs)
	}
	c.Judgement = judge(g.Runs, c.Stats.Summaries, &c.Stats.Estimate, target)
}

// summarize computes a cell's statistics from its spawn times in µs and
// its process summaries.
func summarize(values []float64, procs []ProcessSummary) *Stats {
	pooled := stats.Pool(values)
	return &Stats{
		Estimate:  *estimate(procs),
		Summaries: procs,
		MeanUS:    Float(pooled.Mean),
		MedianUS:  Float(pooled.Median),
		P95US:     Float(pooled.P95),
	}
}

// ratios divides every environment's typical spawn time by the
// baseline's, with the Yuen–Welch interval of the difference of their log
// trimmed means (estimate.go): the two cells' processes are independent,
// so their standard errors add.
func ratios(r *Report, warnings map[Warning]bool) []Ratio {
	if !slices.Contains(r.Environments, r.Baseline) || r.Skipped[r.Baseline] != "" {
		if len(r.Cells) > 0 {
			warnings[Warning{Kind: WarnNoBaseline, Baseline: r.Baseline}] = true
		}
		return nil
	}
	var out []Ratio
	for _, env := range r.Environments {
		if env != r.Baseline {
			out = append(out, r.cellRatios(env, r.baselineOf(env))...)
		}
	}
	return out
}

// baselineOf is what env's cells are divided by: the baseline, or for a
// one-CPU twin the baseline's one-CPU twin where the set has it, so
// that a ratio compares like placement with like.
func (r *Report) baselineOf(env string) string {
	if of := r.tracedOf[env]; of != "" {
		return r.baselineOf(of) // as its untraced environment is divided
	}
	if r.twinOf[env] == "" {
		return r.Baseline
	}
	if twin := r.oneCPUTwin(r.Baseline); twin != "" && twin != env {
		return twin
	}
	return r.Baseline
}

// oneCPUTwin is env's one-CPU twin in the report, or "".
func (r *Report) oneCPUTwin(env string) string {
	for twin, of := range r.twinOf {
		if of == env && slices.Contains(r.Environments, twin) {
			return twin
		}
	}
	return ""
}

// What a Ratio divides by.
const (
	DivideByCell         = "cell"
	DivideByLowerCluster = "lower-cluster"
)

// cellRatios divides each of env's cells by baseline's in the same (mode,
// column), where both have figures: by the whole cell, or, where baseline
// is the report's baseline (or its one-CPU twin) and its cell's processes
// fall into two clusters, by the lower cluster (divisorOf).
func (r *Report) cellRatios(env, baseline string) []Ratio {
	var out []Ratio
	byCluster := baseline == r.Baseline || r.twinOf[baseline] == r.Baseline
	for _, mode := range r.Modes {
		for _, col := range r.Columns {
			c, b := r.Cell(env, mode, col), r.Cell(baseline, mode, col)
			if c == nil || b == nil || c.Stats == nil || b.Stats == nil {
				continue
			}
			d := divisorOf(b, byCluster)
			ratio, lo, hi := stats.Ratio(c.Stats.est, d.est)
			placements := placementRatios(c, b)
			out = append(out, Ratio{
				Environment: env, Baseline: baseline, Mode: mode, Column: col,
				Ratio: Float(ratio), Low: Float(lo), High: Float(hi),
				Processes: c.Stats.Processes, BaselineProcesses: d.est.Processes,
				Divisor: d.kind, DivisorUS: Float(d.est.Center), DivisorShare: Float(d.share),
				Placements: placements, MixesPlacements: mixesPlacements(placements),
			})
		}
	}
	return out
}

// divisor is what ratios divide a baseline cell's column by.
type divisor struct {
	kind  string
	est   *stats.Estimate
	procs []stats.Process
	share float64
}

// divisorOf is b's divisor: the whole cell, or with byCluster its lower
// cluster where its processes fall into two (stats.Divisor).
func divisorOf(b *Cell, byCluster bool) divisor {
	procs := StatsProcesses(b.Stats.Summaries)
	if !byCluster {
		return divisor{DivideByCell, b.Stats.est, procs, 1}
	}
	est, in, share := stats.Divisor(procs, b.Stats.est)
	kind := DivideByCell
	if share < 1 {
		kind = DivideByLowerCluster
	}
	return divisor{kind, est, in, share}
}

// divide is a/b for positive times; a non-positive or unbounded divisor
// gives an unbounded (infinite) result rather than a misleading number.
func divide(a, b float64) float64 {
	if b <= 0 || math.IsInf(b, 0) || math.IsInf(a, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return math.Inf(1)
	}
	return a / b
}

// clockVerdicts gathers calibration checks and sample flags by environment.
func clockVerdicts(r *Report, groups map[CellKey]*Group, checks []results.CalibrationCheck) []ClockVerdict {
	byEnv := map[string]*ClockVerdict{}
	var order []string
	get := func(env string) *ClockVerdict {
		v := byEnv[env]
		if v == nil {
			v = &ClockVerdict{Environment: env}
			byEnv[env] = v
			order = append(order, env)
		}
		return v
	}
	for _, env := range r.Environments {
		if r.Skipped[env] == "" {
			get(env)
		}
	}
	for k, g := range groups {
		v := get(k.Env)
		for _, s := range g.Samples {
			v.Samples++
			if !s.ClockTrusted {
				v.Untrusted++
			}
		}
	}
	for _, c := range checks {
		v := get(c.Environment)
		switch c.Check {
		case "sleep":
			v.SleepChecks++
			if c.Pass {
				v.SleepPassed++
			}
			if c.ObservedStepNS != nil && *c.ObservedStepNS > 0 && (v.ObservedStepNS == 0 || *c.ObservedStepNS < v.ObservedStepNS) {
				v.ObservedStepNS = *c.ObservedStepNS
			}
			if c.ClockReadNS != nil {
				v.reads = append(v.reads, float64(*c.ClockReadNS))
			}
		case "coherence":
			v.CoherenceChecks++
			if c.Pass {
				v.CoherencePassed++
			}
		}
		if !c.Pass {
			v.Failed = append(v.Failed, FailedCheck{Check: c.Check, Process: c.Process, Detail: c.Detail})
		}
	}
	out := make([]ClockVerdict, 0, len(order))
	for _, env := range order {
		v := byEnv[env]
		if len(v.reads) > 0 {
			v.ClockReadNS = int64(math.Round(stats.Median(v.reads)))
		}
		out = append(out, *v)
	}
	return out
}

// markClockCells marks every cell of an environment that failed a
// calibration check, and names in each clock verdict the cells it marks
// (stats.ClockRule).
func (r *Report) markClockCells() {
	for i := range r.Clocks {
		v := &r.Clocks[i]
		for j := range r.Cells {
			c := &r.Cells[j]
			if c.Environment != v.Environment || c.Stats == nil {
				continue
			}
			if v.CalibrationFailed() {
				c.ClockCouldMove = true
			}
			if c.ClockCouldMove {
				v.Cells = append(v.Cells, c.ID())
			}
		}
	}
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// Float is a float64 that encodes as JSON null when it is not finite, as
// an unbounded confidence interval is.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// Ratio is the ratio to the baseline of (env, mode, col), or nil.
func (r *Report) Ratio(env, mode string, col Column) *Ratio {
	i := slices.IndexFunc(r.Ratios, func(q Ratio) bool {
		return q.Environment == env && q.Mode == mode && q.Column == col
	})
	if i < 0 {
		return nil
	}
	return &r.Ratios[i]
}

// Kinds of Warning.
const (
	// WarnNoBaseline: the baseline has no measurements, so no ratios.
	WarnNoBaseline = "no-baseline"
	// WarnNoTest: a compared cell has too few processes on a side for a
	// test (fewer than MinIntervalProcesses).
	WarnNoTest = "no-test"
)

// Warning is a caveat about what a report or a comparison could not
// compute: a kind, and what it is about.
type Warning struct {
	Kind string `json:"kind"`
	// Machine is the machine whose report the warning is of, in a report
	// of several machines.
	Machine  string `json:"machine,omitempty"`
	Baseline string `json:"baseline,omitempty"`
	Cell     CellID `json:"cell,omitzero"`
}

// CellID names one cell: its machine, environment, mode and column.
type CellID struct {
	Machine     string `json:"machine,omitempty"`
	Environment string `json:"environment"`
	Mode        string `json:"mode"`
	Column
}

// ID is the cell's name.
func (c *Cell) ID() CellID {
	return CellID{Machine: c.Machine, Environment: c.Environment, Mode: c.Mode, Column: c.Column}
}

// warningsOf are the warnings of a set, in a fixed order.
func warningsOf(set map[Warning]bool) []Warning {
	out := slices.Collect(maps.Keys(set))
	slices.SortFunc(out, func(a, b Warning) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Machine, b.Machine), cmp.Compare(a.Baseline, b.Baseline),
			cmp.Compare(a.Cell.Machine, b.Cell.Machine), cmp.Compare(a.Cell.Environment, b.Cell.Environment), cmp.Compare(a.Cell.Mode, b.Cell.Mode),
			cmp.Compare(a.Cell.N, b.Cell.N), cmp.Compare(a.Cell.Last, b.Cell.Last))
	})
	return out
}
