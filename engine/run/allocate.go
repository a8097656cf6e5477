package run

import (
	"fmt"

	"spawnbench/engine/cost"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

// AllocateBottomLine gives the cells of p's bottom_line block their
// processes before the run, from the set the block's from names
// (report.Allocate): the processes are then planned, and the schedule
// interleaves them with every other cell's. model prices what a process
// costs the run beyond its wall time (pause, settling, the runner's own
// work). Nil, and p unchanged, when the spec allocates nothing. The same
// plan and set give the same allocation, so a resumed run measures the
// same processes.
func AllocateBottomLine(p *spec.RunPlan, model *cost.Model) (*report.Allocation, error) {
	b := p.Spec.BottomLine
	if b == nil || b.From == "" {
		return nil, nil
	}
	r, err := priorReport(p)
	if err != nil {
		return nil, err
	}
	return allocate(p, r, model), nil
}

// priorReport is the report of the set p's bottom_line.from names.
func priorReport(p *spec.RunPlan) (*report.Report, error) {
	b := p.Spec.BottomLine
	set, err := results.Read(b.From)
	if err != nil {
		return nil, &inputerr.Error{Msg: fmt.Sprintf("spec %s: bottom_line.from: %v; give a finished result set of an earlier run (results/sequential is the main job's), or leave from out for adaptive stopping", p.Spec.Path, err)}
	}
	r, err := report.Build([]report.Input{{Dir: b.From, Set: set}}, report.Options{NoRegimes: true})
	if err != nil {
		return nil, fmt.Errorf("spec %s: bottom_line.from %s: %w", p.Spec.Path, b.From, err)
	}
	return r, nil
}

// allocate sizes p's bottom-line cells by r's allocation.
func allocate(p *spec.RunPlan, r *report.Report, model *cost.Model) *report.Allocation {
	b := p.Spec.BottomLine
	covered := map[report.CellKey]*spec.Cell{}
	for i := range p.Cells {
		c := &p.Cells[i]
		if b.Covers(c.Env, c.N) {
			covered[report.CellKey{Env: c.Env.Name, Mode: c.Mode, N: int32(c.N)}] = c
		}
	}
	plan := func(env, mode string, n int32) (int, float64) {
		c := covered[report.CellKey{Env: env, Mode: mode, N: n}]
		if c == nil {
			return 0, 0
		}
		return c.Processes, (model.Process(*c) - model.Wall(*c)).Seconds()
	}
	a := r.Allocate(b.Precision, b.Budget.Seconds(), b.MaxProcesses, plan)
	for _, ca := range a.Cells {
		if c := covered[report.CellKey{Env: ca.Environment, Mode: ca.Mode, N: ca.N}]; c != nil {
			c.Processes = max(c.Processes, ca.Processes)
		}
	}
	p.Reschedule(p.Schedule.Order, p.Schedule.Seed)
	return a
}
