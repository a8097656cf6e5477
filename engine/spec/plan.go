package spec

import (
	"fmt"
	"strings"
)

// Cell is one (environment, mode, n) of a plan and the processes it needs.
type Cell struct {
	Env  EnvironmentSpec
	Mode string
	N    int
	// Processes is the number of measured fresh processes: enough for
	// Samples.Min spawns, at least one.
	Processes int
	// Warmup processes run first; their samples are marked.
	Warmup int
}

// Samples is the number of measured spawns the cell will record.
func (c Cell) Samples() int { return c.N * c.Processes }

// RunPlan is a spec expanded into the cells to run, in order.
type RunPlan struct {
	Spec  *Spec
	Cells []Cell
}

// Expand turns the spec into a plan. only, when non-empty, keeps the named
// environments; a name the spec lacks is an InputError.
func Expand(s *Spec, only []string) (*RunPlan, error) {
	envs, err := Select(s, only)
	if err != nil {
		return nil, err
	}
	p := &RunPlan{Spec: s}
	for _, e := range envs {
		for _, m := range s.Modes {
			for _, n := range s.N {
				procs := (s.Samples.Min + n - 1) / n
				if procs < 1 {
					procs = 1
				}
				p.Cells = append(p.Cells, Cell{Env: e, Mode: m, N: n, Processes: procs, Warmup: s.Samples.Warmup})
			}
		}
	}
	return p, nil
}

// LoadPlan loads the spec at path and expands it, keeping only the named
// environments when only is non-empty.
func LoadPlan(path string, only []string) (*RunPlan, error) {
	s, err := Load(path)
	if err != nil {
		return nil, err
	}
	return Expand(s, only)
}

// Select returns the spec's environments named in only (all when empty),
// in spec order.
func Select(s *Spec, only []string) ([]EnvironmentSpec, error) {
	if len(only) == 0 {
		return s.Environments, nil
	}
	byName := map[string]EnvironmentSpec{}
	var names []string
	for _, e := range s.Environments {
		byName[e.Name] = e
		names = append(names, e.Name)
	}
	want := map[string]bool{}
	for _, n := range only {
		if _, ok := byName[n]; !ok {
			return nil, inputErrorf("--env %s: spec %s has no environment of that name; it has: %s", n, s.Path, strings.Join(names, ", "))
		}
		want[n] = true
	}
	var out []EnvironmentSpec
	for _, e := range s.Environments {
		if want[e.Name] {
			out = append(out, e)
		}
	}
	return out, nil
}

// String renders the plan as a table for `spawnbench plan`.
func (p *RunPlan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "spec %s (%s), sha256 %s\n", p.Spec.Path, p.Spec.Name, p.Spec.Hash[:12])
	pin := "none"
	if len(p.Spec.CPUs) > 0 {
		pin = fmt.Sprint(p.Spec.CPUs)
	}
	fmt.Fprintf(&b, "min samples %d, pause %s, warm-up processes %d, timeout %s, pinning %s, view last %d for n >= %d\n\n",
		p.Spec.Samples.Min, p.Spec.Samples.Pause, p.Spec.Samples.Warmup, p.Spec.Timeout, pin, p.Spec.Views.Last, p.Spec.Views.MinN)
	fmt.Fprintf(&b, "%-22s %-14s %-11s %6s %10s %8s %8s\n", "ENVIRONMENT", "KIND", "MODE", "N", "PROCESSES", "WARMUP", "SAMPLES")
	total := 0
	for _, c := range p.Cells {
		fmt.Fprintf(&b, "%-22s %-14s %-11s %6d %10d %8d %8d\n", c.Env.Name, c.Env.Kind, c.Mode, c.N, c.Processes, c.Warmup, c.Samples())
		total += c.Processes + c.Warmup
	}
	fmt.Fprintf(&b, "\n%d cells, %d processes\n", len(p.Cells), total)
	return b.String()
}
