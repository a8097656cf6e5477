package report

import (
	"fmt"
	"slices"
	"sort"

	"spawnbench/engine/results"
)

// MachineReport is the whole report of one machine's cells, in a set
// measured on several machines (spawnbench merge). Its ratios divide by
// the baseline measured on the same machine: a ratio across machines
// would mix the machines' difference into the environments'.
type MachineReport struct {
	ID     string  `json:"id"`
	Label  string  `json:"label"`
	Report *Report `json:"report"`
}

// machinesOf lists the machine IDs of the inputs' rows, in order of
// first appearance.
func machinesOf(inputs []Input) []string {
	var out []string
	for _, in := range inputs {
		for _, r := range in.Set.Runs {
			out = appendNew(out, r.Machine)
		}
		for _, s := range in.Set.Samples {
			out = appendNew(out, s.Machine)
		}
	}
	return out
}

// onMachine is the part of s that machine m measured: its rows, and the
// invocations (with their calibration checks) that ran on m; nil when m
// measured nothing in s.
func onMachine(s *results.Set, m string) *results.Set {
	out := &results.Set{Provenance: results.Provenance{Format: s.Provenance.Format}, Generation: s.Generation}
	keep := map[int32]bool{}
	for _, inv := range s.Provenance.Invocations {
		if inv.Machine.Identity() == m && inv.Command != "merge" {
			keep[inv.ID] = true
			out.Provenance.Invocations = append(out.Provenance.Invocations, inv)
		}
	}
	for _, r := range s.Runs {
		if r.Machine == m {
			out.Runs = append(out.Runs, r)
		}
	}
	for _, x := range s.Samples {
		if x.Machine == m {
			out.Samples = append(out.Samples, x)
		}
	}
	if len(out.Runs) == 0 && len(out.Samples) == 0 {
		return nil
	}
	for _, c := range s.Calibration {
		if keep[c.Invocation] {
			out.Calibration = append(out.Calibration, c)
		}
	}
	return out
}

// machineLabel describes machine m from the first invocation that ran on it.
func machineLabel(inputs []Input, m string) string {
	for _, in := range inputs {
		for _, inv := range in.Set.Provenance.Invocations {
			if inv.Machine.Identity() == m {
				return inv.Machine.Label()
			}
		}
	}
	return m
}

// buildPerMachine builds one report per machine and gathers their cells
// and ratios (each marked with its machine) and the machine ×
// environment table.
func buildPerMachine(inputs []Input, opt Options, machines []string) (*Report, error) {
	r := &Report{Baseline: opt.Baseline, Confidence: Confidence, Skipped: map[string]string{}, CellMachines: map[CellKey]*results.Machine{}}
	if r.Baseline == "" {
		r.Baseline = DefaultBaseline
	}
	for _, in := range inputs {
		inc := in.Set.Incomplete()
		r.Sources = append(r.Sources, Source{Dir: in.Dir, Provenance: in.Set.Provenance, Incomplete: inc, Processes: len(in.Set.Runs)})
		for _, why := range inc {
			r.Incomplete = append(r.Incomplete, in.Dir+": "+why)
		}
	}
	warnings := map[Warning]bool{}
	for _, m := range machines {
		var sub []Input
		for _, in := range inputs {
			if s := onMachine(in.Set, m); s != nil {
				sub = append(sub, Input{Dir: in.Dir, Set: s})
			}
		}
		mr, err := Build(sub, opt)
		if err != nil {
			return nil, fmt.Errorf("machine %s: %w", m, err)
		}
		r.Machines = append(r.Machines, MachineReport{ID: m, Label: machineLabel(inputs, m), Report: mr})
		r.Cells = append(r.Cells, mr.Cells...)
		r.Ratios = append(r.Ratios, mr.Ratios...)
		r.Against = append(r.Against, mr.Against...)
		r.Failures = append(r.Failures, mr.Failures...)
		for _, w := range mr.Warnings {
			w.Machine = m
			warnings[w] = true
		}
		for _, env := range mr.Environments {
			r.Environments = appendNew(r.Environments, env)
		}
		for _, mode := range mr.Modes {
			r.Modes = appendNew(r.Modes, mode)
		}
		for _, col := range mr.Columns {
			if !slices.Contains(r.Columns, col) {
				r.Columns = append(r.Columns, col)
			}
		}
		if r.ViewLast == 0 {
			r.ViewLast, r.ViewMinN = mr.ViewLast, mr.ViewMinN
		}
		for env, why := range mr.Skipped {
			r.Skipped[env] = why
		}
	}
	sort.SliceStable(r.Columns, func(i, j int) bool {
		a, b := r.Columns[i], r.Columns[j]
		if (a.Last == 0) != (b.Last == 0) {
			return a.Last == 0
		}
		return a.N < b.N
	})
	r.Warnings = warningsOf(warnings)
	return r, nil
}

// markMachine records machine m on every cell and ratio of a one-machine
// report.
func (r *Report) markMachine(m string) {
	for i := range r.Cells {
		r.Cells[i].Machine = m
	}
	for i := range r.Ratios {
		r.Ratios[i].Machine = m
	}
}

// MachineRatio is the ratio of environment to the baseline on machine,
// or nil.
func (r *Report) MachineRatio(machine, env, mode string, col Column) *Ratio {
	i := slices.IndexFunc(r.Ratios, func(q Ratio) bool {
		return q.Machine == machine && q.Environment == env && q.Mode == mode && q.Column == col
	})
	if i < 0 {
		return nil
	}
	return &r.Ratios[i]
}
