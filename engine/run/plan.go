package run

import (
	"time"

	"spawnbench/engine/env"
	"spawnbench/engine/spec"
)

// cell is what the runner needs of one plan cell. cellsOf is the one place
// that reads the plan, so the runner never reaches into the spec.
type cell struct {
	key       string
	env       spec.EnvironmentSpec
	mode      string
	n         int
	bench     env.Benchmark
	arg       int
	processes int
	warmup    int
	pause     time.Duration
	timeout   time.Duration
	cpus      []int
}

// step is one process of the run, in run order.
type step struct {
	seq     int
	cell    int
	process int
	warmup  bool
}

func cellsOf(plan *spec.RunPlan) []cell {
	s := plan.Spec
	cells := make([]cell, len(plan.Cells))
	for i, c := range plan.Cells {
		bench := env.Sequential
		if c.Mode == "parallel" {
			bench = env.Parallel
		}
		cells[i] = cell{
			key: c.Env.Name + "/" + c.Mode + "/" + itoa(c.N), env: c.Env, mode: c.Mode, n: c.N,
			bench: bench, arg: c.N, processes: c.Processes, warmup: c.Warmup,
			pause: s.Samples.Pause, timeout: s.Timeout, cpus: s.CPUs,
		}
	}
	return cells
}

// scheduleOf is the plan's run order, its name and seed.
func scheduleOf(plan *spec.RunPlan) (order string, seed int64, steps []step) {
	for i, c := range plan.Cells {
		for w := 0; w < c.Warmup; w++ {
			steps = append(steps, step{seq: len(steps), cell: i, process: w, warmup: true})
		}
		for p := 0; p < c.Processes; p++ {
			steps = append(steps, step{seq: len(steps), cell: i, process: p})
		}
	}
	return "blocked", 0, steps
}

// reschedule recomputes the plan's order with seed, keeping its order kind.
func reschedule(plan *spec.RunPlan, seed int64) {
	_, _ = plan, seed // plan.Reschedule(plan.Schedule.Order, seed) once the plan carries its schedule
}
