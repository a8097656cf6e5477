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
	// precision and adaptive are the cell's convergence target and, when
	// set, the bounds of the rounds adaptive stopping adds.
	precision float64
	adaptive  *spec.AdaptivePolicy
	pause     time.Duration
	settle    spec.SettleSpec
	timeout   time.Duration
	cpus      []int
}

// step is one process of the run, in run order.
type step = spec.Step

func cellsOf(plan *spec.RunPlan) []cell {
	cells := make([]cell, len(plan.Cells))
	for i, c := range plan.Cells {
		cells[i] = cell{
			key: c.Key(), env: c.Env, mode: c.Mode, n: c.N,
			bench: env.Benchmark(c.Benchmark), arg: c.Arg, processes: c.Processes, warmup: c.Warmup,
			precision: c.Precision, adaptive: c.Adaptive,
			pause: c.Pause, settle: c.Settle, timeout: c.Timeout, cpus: c.CPUs,
		}
	}
	return cells
}

// scheduleOf is the plan's run order, its name and seed.
func scheduleOf(plan *spec.RunPlan) (order string, seed int64, steps []step) {
	return plan.Schedule.Order, plan.Schedule.Seed, plan.Schedule.Steps
}

// reschedule recomputes the plan's order with seed, keeping its order kind.
func reschedule(plan *spec.RunPlan, seed int64) {
	plan.Reschedule(plan.Schedule.Order, seed)
}
