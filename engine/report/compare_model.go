package report

import (
	"fmt"
	"math"
	"reflect"
	"slices"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// CompareAlpha is the level at which compare calls a change significant,
// unless CompareOptions say otherwise.
const CompareAlpha = 0.05

// CompareOptions choose compare's test level and its change intervals'
// confidence; zero values are CompareAlpha and Confidence.
type CompareOptions struct {
	Alpha, Confidence float64
}

func (o CompareOptions) withDefaults() CompareOptions {
	if o.Alpha == 0 {
		o.Alpha = CompareAlpha
	}
	if o.Confidence == 0 {
		o.Confidence = Confidence
	}
	return o
}

// CheckCompareOptions rejects a level outside (0, 1).
func CheckCompareOptions(o CompareOptions) error {
	if o.Alpha <= 0 || o.Alpha >= 1 || o.Confidence <= 0 || o.Confidence >= 1 {
		return &inputerr.Error{Msg: fmt.Sprintf("compare --alpha %g --confidence %g: give levels between 0 and 1, e.g. --alpha 0.01 --confidence 0.99", o.Alpha, o.Confidence)}
	}
	return nil
}

// Change is one cell measured by both result sets of a comparison.
type Change struct {
	// Machine is the machine both sides were measured on (the old side's
	// when the sets share no machine).
	Machine     string `json:"machine,omitempty"`
	Environment string `json:"environment"`
	Mode        string `json:"mode"`
	Column
	Old *Stats `json:"old"`
	New *Stats `json:"new"`
	// OldSamples and NewSamples count the spawns compared, OldProcesses
	// and NewProcesses the independent processes behind them.
	OldSamples   int `json:"old_samples"`
	NewSamples   int `json:"new_samples"`
	OldProcesses int `json:"old_processes"`
	NewProcesses int `json:"new_processes"`
	// ChangePct is (new − old) / old of the typical spawn times, in
	// percent, and ChangeLowPct and ChangeHighPct its interval.
	ChangePct     Float `json:"change_pct"`
	ChangeLowPct  Float `json:"change_low_pct"`
	ChangeHighPct Float `json:"change_high_pct"`
	// P is the Yuen–Welch test's p-value over the two cells' process
	// summaries (NaN, null in JSON, when a side has fewer than
	// MinIntervalProcesses processes); Significant is P < Alpha.
	P           Float   `json:"p"`
	Alpha       float64 `json:"alpha"`
	Significant bool    `json:"significant"`
	// InsideOld is true when the new figure lies inside the old one's
	// interval (false when the old side has none).
	InsideOld bool `json:"inside_old_interval"`
	// Untrusted is true when either side includes flagged clock samples.
	Untrusted bool `json:"untrusted"`
	// OldJudgement and NewJudgement are each side's busy and unstable verdicts.
	OldJudgement Judgement `json:"old_judgement"`
	NewJudgement Judgement `json:"new_judgement"`
}

// RatioChange is one ratio to the baseline that both sets have.
type RatioChange struct {
	Machine     string `json:"machine,omitempty"`
	Environment string `json:"environment"`
	Baseline    string `json:"baseline"`
	Mode        string `json:"mode"`
	Column
	Old Ratio `json:"old"`
	New Ratio `json:"new"`
	// ChangePct is (new − old) / old of the ratios, in percent.
	ChangePct Float `json:"change_pct"`
	// Judged is true when the old ratio has an interval, and InsideOld
	// when the new ratio lies inside it.
	Judged    bool `json:"-"`
	InsideOld bool `json:"inside_old_interval"`
	// Occasions is the number of occasions the old ratio is computed over
	// (0: over processes).
	Occasions int `json:"occasions,omitempty"`
}

// BusyLevel is how busy the machine was while one set was measured: the
// share of its judged cells (all-spawns view) flagged busy, that is whose
// figure its load moved (stats.Busy), and the median judged cell's load.
type BusyLevel struct {
	Judged int `json:"judged_cells"`
	Busy   int `json:"busy_cells"`
	// OthersShare and StealShare are the median over the judged cells of
	// their others' CPU and steal over their wall time.
	OthersShare Float `json:"median_others_share"`
	StealShare  Float `json:"median_steal_share"`
}

// Share is Busy ÷ Judged, or 0 when no cell could be judged.
func (l BusyLevel) Share() float64 {
	if l.Judged == 0 {
		return 0
	}
	return float64(l.Busy) / float64(l.Judged)
}

// busyLevel counts the judged and busy cells of a report.
func busyLevel(r *Report) BusyLevel {
	var l BusyLevel
	var others, steal []float64
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Last == 0 && c.Judgement.BusyKnown {
			l.Judged++
			others, steal = append(others, float64(c.Judgement.OthersShare)), append(steal, float64(c.Judgement.StealShare))
			if c.Judgement.Busy {
				l.Busy++
			}
		}
	}
	if l.Judged > 0 {
		l.OthersShare, l.StealShare = Float(stats.Median(others)), Float(stats.Median(steal))
	}
	return l
}

// busyLevelsDiffer is true when one set was measured on a busier machine
// than the other: one has busy cells and the other none, or their busy
// shares are more than ten percentage points apart.
func busyLevelsDiffer(a, b BusyLevel) bool {
	if a.Judged == 0 || b.Judged == 0 {
		return false
	}
	if (a.Busy == 0) != (b.Busy == 0) {
		return true
	}
	d := a.Share() - b.Share()
	return d > 0.1 || d < -0.1
}

// ProvenanceDiff is one provenance entry that differs between two sets.
// Old and New are the entry's values as the provenance holds them: a
// string, the cores (int), the pinning ([]int, sorted; nil for none),
// the views (results.Views); nil where a set has no invocation.
type ProvenanceDiff struct {
	Key string `json:"key"`
	Old any    `json:"old"`
	New any    `json:"new"`
}

// Comparison is what spawnbench compare prints.
type Comparison struct {
	Old Source `json:"old"`
	New Source `json:"new"`
	// Alpha is the test's level and Confidence the change intervals'.
	Alpha       float64          `json:"alpha"`
	Confidence  float64          `json:"confidence"`
	Differences []ProvenanceDiff `json:"provenance_differences"`
	Changes     []Change         `json:"changes"`
	// Inside counts the changes whose new figure lies inside the old
	// interval, of Judged changes whose old side has an interval: how
	// far the old intervals held for a second measurement.
	Inside int `json:"inside_old_intervals"`
	Judged int `json:"judged_old_intervals"`
	// MedianChangePct is the median of the changes, and SameWay the
	// number of changes of its sign: when most cells move one way
	// together, the machine changed between the sets, not the
	// environments.
	MedianChangePct Float `json:"median_change_pct"`
	SameWay         int   `json:"same_way"`
	// Ratios are the ratios to the baseline that both sets have.
	Ratios []RatioChange `json:"ratio_changes,omitempty"`
	// RatiosWithin10Pct counts the ratios that moved by at most 10%,
	// RatiosJudged those whose old ratio has an interval, RatiosInside
	// those of them whose new ratio lies inside it, and
	// RatiosOverOccasions those whose old ratio is computed over
	// occasions. (Not in the JSON, which lists every ratio.)
	RatiosWithin10Pct   int `json:"-"`
	RatiosJudged        int `json:"-"`
	RatiosInside        int `json:"-"`
	RatiosOverOccasions int `json:"-"`
	// OnlyOld and OnlyNew name measured cells the other set lacks.
	OnlyOld []CellID `json:"only_old,omitempty"`
	OnlyNew []CellID `json:"only_new,omitempty"`
	// Untrusted names environments whose clock is not trusted in either set.
	Untrusted []string `json:"untrusted_clocks,omitempty"`
	// OldBusy and NewBusy are the two sets' busy levels; BusyDiffers is
	// true when they differ enough to explain a change.
	OldBusy     BusyLevel `json:"old_busy"`
	NewBusy     BusyLevel `json:"new_busy"`
	BusyDiffers bool      `json:"busy_differs"`
	// Incomplete says, per set, what its invocations planned but did not
	// measure.
	Incomplete []string  `json:"incomplete,omitempty"`
	Warnings   []Warning `json:"warnings,omitempty"`
	// OldMachines and NewMachines are the machines each set was measured
	// on; DifferentMachines is true when they differ, so a change may be
	// the machine's rather than the code's.
	OldMachines       []string `json:"old_machines"`
	NewMachines       []string `json:"new_machines"`
	DifferentMachines bool     `json:"different_machines"`
}

// Compare compares every (environment, mode, n, view) cell that both sets
// measured, like benchstat: typical spawn times, their change with its
// interval, and whether the Yuen–Welch test over the cells' processes
// finds the difference significant. Sets that share no cell are an input
// error; sets from different specs are compared cell by cell, with their
// provenance differences listed.
func Compare(oldIn, newIn Input, opts CompareOptions) (*Comparison, error) {
	opts = opts.withDefaults()
	oldR, err := Build([]Input{oldIn}, Options{})
	if err != nil {
		return nil, err
	}
	newR, err := Build([]Input{newIn}, Options{})
	if err != nil {
		return nil, err
	}
	cmp := &Comparison{Old: oldR.Sources[0], New: newR.Sources[0], Alpha: opts.Alpha, Confidence: opts.Confidence}
	cmp.Differences = provenanceDiffs(&oldIn.Set.Provenance, &newIn.Set.Provenance)
	cmp.OldMachines, cmp.NewMachines = machinesOf([]Input{oldIn}), machinesOf([]Input{newIn})
	cmp.DifferentMachines = !slices.Equal(slices.Sorted(slices.Values(cmp.OldMachines)), slices.Sorted(slices.Values(cmp.NewMachines)))
	// Cells match on their machine too. Two one-machine sets from
	// different machines are compared cell by cell, with a warning.
	counterpart := func(m string) string { return m }
	if len(cmp.OldMachines) == 1 && len(cmp.NewMachines) == 1 {
		counterpart = func(string) string { return cmp.NewMachines[0] }
	} else if !slices.ContainsFunc(cmp.OldMachines, func(m string) bool { return slices.Contains(cmp.NewMachines, m) }) {
		return nil, &inputerr.Error{Msg: fmt.Sprintf("%s (machines %v) and %s (machines %v) share no machine; compare sets machine by machine, or one-machine sets",
			oldIn.Dir, cmp.OldMachines, newIn.Dir, cmp.NewMachines)}
	}
	oldOf := map[string]string{}
	for _, m := range cmp.OldMachines {
		oldOf[counterpart(m)] = m
	}
	warnings := cmp.matchCells(oldR, newR, counterpart, opts)
	for i := range newR.Cells {
		n := &newR.Cells[i]
		if n.Stats != nil && oldR.cellOn(oldOf[n.Machine], n.Environment, n.Mode, n.Column) == nil {
			cmp.OnlyNew = append(cmp.OnlyNew, n.ID())
		}
	}
	changes := make([]float64, 0, len(cmp.Changes))
	for _, ch := range cmp.Changes {
		if ch.Old.Bounded() {
			cmp.Judged++
			if ch.InsideOld {
				cmp.Inside++
			}
		}
		changes = append(changes, float64(ch.ChangePct))
	}
	shift := stats.ShiftOf(changes)
	cmp.MedianChangePct, cmp.SameWay = Float(shift.Median), shift.SameWay
	cmp.matchRatios(oldR, newR, counterpart)
	if len(cmp.Changes) == 0 {
		return nil, &inputerr.Error{Msg: fmt.Sprintf("%s and %s share no measured (environment, mode, n) cell; nothing to compare",
			oldIn.Dir, newIn.Dir)}
	}
	for _, r := range []*Report{oldR, newR} {
		for _, v := range r.Clocks {
			if !v.Trusted() {
				cmp.Untrusted = appendNew(cmp.Untrusted, v.Environment)
			}
		}
	}
	cmp.OldBusy, cmp.NewBusy = busyLevel(oldR), busyLevel(newR)
	cmp.BusyDiffers = busyLevelsDiffer(cmp.OldBusy, cmp.NewBusy)
	cmp.Incomplete = append(slices.Clone(oldR.Incomplete), newR.Incomplete...)
	cmp.Warnings = warningsOf(warnings)
	return cmp, nil
}

// matchCells adds a Change for every cell both reports measured (the new
// one on counterpart's machine) and notes the cells only the old one has,
// or only the new one where the old has the row; it returns the warnings.
func (cmp *Comparison) matchCells(oldR, newR *Report, counterpart func(string) string, opts CompareOptions) map[Warning]bool {
	warnings := map[Warning]bool{}
	for i := range oldR.Cells {
		o := &oldR.Cells[i]
		n := newR.cellOn(counterpart(o.Machine), o.Environment, o.Mode, o.Column)
		if o.Stats == nil {
			if n != nil && n.Stats != nil {
				cmp.OnlyNew = append(cmp.OnlyNew, n.ID())
			}
			continue
		}
		if n == nil || n.Stats == nil {
			cmp.OnlyOld = append(cmp.OnlyOld, o.ID())
			continue
		}
		p := yuenTest(&n.Stats.Estimate, &o.Stats.Estimate)
		if math.IsNaN(p) {
			warnings[Warning{Kind: WarnNoTest, Cell: o.ID()}] = true
		}
		ratio, lo, hi := stats.RatioAt(n.Stats.est, o.Stats.est, opts.Confidence)
		cmp.Changes = append(cmp.Changes, Change{
			Machine: o.Machine, Environment: o.Environment, Mode: o.Mode, Column: o.Column,
			Old: o.Stats, New: n.Stats, OldSamples: o.Samples, NewSamples: n.Samples,
			OldProcesses: o.Stats.Processes, NewProcesses: n.Stats.Processes,
			ChangePct:     Float(100 * (ratio - 1)),
			ChangeLowPct:  Float(100 * (lo - 1)),
			ChangeHighPct: Float(100 * (hi - 1)),
			P:             Float(p),
			Alpha:         opts.Alpha,
			Significant:   p < opts.Alpha,
			InsideOld:     o.Stats.Bounded() && o.Stats.LowUS <= n.Stats.TypicalUS && n.Stats.TypicalUS <= o.Stats.HighUS,
			Untrusted:     o.Untrusted > 0 || n.Untrusted > 0,
			OldJudgement:  o.Judgement,
			NewJudgement:  n.Judgement,
		})
	}
	return warnings
}

// matchRatios pairs each old ratio with the new one of its cell.
func (cmp *Comparison) matchRatios(oldR, newR *Report, counterpart func(string) string) {
	for _, oq := range oldR.Ratios {
		for _, nq := range newR.Ratios {
			if counterpart(oq.Machine) == nq.Machine && oq.Environment == nq.Environment && oq.Baseline == nq.Baseline && oq.Mode == nq.Mode && oq.Column == nq.Column {
				occasions := 0
				if c := oldR.cellOn(oq.Machine, oq.Environment, oq.Mode, oq.Column); c != nil && c.Stats != nil {
					occasions = c.Stats.Occasions
				}
				q := RatioChange{Machine: oq.Machine, Environment: oq.Environment, Baseline: oq.Baseline,
					Mode: oq.Mode, Column: oq.Column, Old: oq, New: nq, ChangePct: Float(100 * (divide(float64(nq.Ratio), float64(oq.Ratio)) - 1)),
					Judged: !math.IsInf(float64(oq.High), 0), Occasions: occasions}
				q.InsideOld = q.Judged && oq.Low <= nq.Ratio && nq.Ratio <= oq.High
				cmp.Ratios = append(cmp.Ratios, q)
				cmp.countRatio(q)
			}
		}
	}
}

// countRatio adds q to the comparison's counts of ratios.
func (cmp *Comparison) countRatio(q RatioChange) {
	if math.Abs(float64(q.ChangePct)) <= 10 {
		cmp.RatiosWithin10Pct++
	}
	if q.Judged {
		cmp.RatiosJudged++
		if q.InsideOld {
			cmp.RatiosInside++
		}
	}
	if q.Occasions > 0 {
		cmp.RatiosOverOccasions++
	}
}

// cellOn is the cell for (environment, mode, column) measured on machine,
// or nil.
func (r *Report) cellOn(machine, env, mode string, col Column) *Cell {
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Machine == machine && c.Environment == env && c.Mode == mode && c.Column == col {
			return c
		}
	}
	return nil
}

// provenanceDiffs lists what differs between the two sets' latest
// measuring invocations (their latest invocation when none measured):
// spec, spawnbench, machine, pinning, views, schedule and each
// environment's toolchain.
func provenanceDiffs(a, b *results.Provenance) []ProvenanceDiff {
	ia, ib := describe(a), describe(b)
	var out []ProvenanceDiff
	for _, k := range describedKeys {
		if !reflect.DeepEqual(ia[k], ib[k]) {
			out = append(out, ProvenanceDiff{Key: k, Old: ia[k], New: ib[k]})
		}
	}
	ta, tb := toolchains(a), toolchains(b)
	envs := map[string]bool{}
	for env := range ta {
		envs[env] = true
	}
	for env := range tb {
		envs[env] = true
	}
	for _, env := range sortedKeys(envs) {
		if ta[env] != tb[env] {
			out = append(out, ProvenanceDiff{Key: "toolchain " + env, Old: ta[env], New: tb[env]})
		}
	}
	return out
}

// describedKeys are the entries of describe, in the order they are listed.
var describedKeys = []string{"spec_name", "spec_hash", "spawnbench_version", "go_version",
	"cpu_model", "cores", "kernel", "arch", "pinning", "views", "order"}

// describe gathers the provenance entries that can explain a change.
func describe(p *results.Provenance) map[string]any {
	inv := p.LastMeasuring()
	if inv == nil {
		inv = p.Last()
	}
	if inv == nil {
		return map[string]any{}
	}
	m := inv.Machine
	var pinning []int // nil for none, in whatever order the spec listed them
	if len(inv.CPUs) > 0 {
		pinning = slices.Sorted(slices.Values(inv.CPUs))
	}
	return map[string]any{
		"spec_name": inv.SpecName, "spec_hash": inv.SpecHash, "spawnbench_version": inv.Version, "go_version": m.GoVersion,
		"cpu_model": m.CPUModel, "cores": m.Cores, "kernel": m.Kernel, "arch": m.Arch,
		"pinning": pinning, "views": inv.Views, "order": inv.Order,
	}
}

// Machine-wide move: a compare says the machine moved when the median
// change is at least MachineMovePct and at least MachineMoveShare of the
// cells moved its way. Two honest sets of one machine have a median
// change near 0 and their cells' signs split about evenly.
const (
	MachineMovePct   = 5
	MachineMoveShare = 0.75
)

// MachineMoved is true when most cells moved one way together.
func (c *Comparison) MachineMoved() bool {
	return len(c.Changes) >= 4 && math.Abs(float64(c.MedianChangePct)) >= MachineMovePct &&
		float64(c.SameWay) >= MachineMoveShare*float64(len(c.Changes))
}
