package spec

import (
	"fmt"
	"slices"
	"testing"
)

// planOf parses and expands a spec's text, failing the test on an error.
func planOf(t *testing.T, name, src string) *RunPlan {
	t.Helper()
	s, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// threeEnvs is a plan of 3 environments x 2 n, with warm-ups.
func threeEnvs(t *testing.T, schedule string) *RunPlan {
	t.Helper()
	return planOf(t, "s.cue", `environments: [{name: "a", kind: "native"}, {name: "b", kind: "native"}, {name: "c", kind: "native"}]
n: [1, 10]
samples: {min: 20, warmup: 2}
`+schedule)
}

func stepKeys(p *RunPlan) []string {
	var out []string
	for _, s := range p.Schedule.Steps {
		out = append(out, fmt.Sprintf("%d/%d/%v", s.Cell, s.Process, s.Warmup))
	}
	return out
}

// checkComplete: every process of every cell appears once, numbered from
// 0 in order within its cell, Seq is the position, and a cell's warm-ups
// come before its first measured process.
func checkComplete(t *testing.T, p *RunPlan) {
	t.Helper()
	next := map[[2]any]int{}
	measuredSeen := map[int]bool{}
	for i, s := range p.Schedule.Steps {
		if s.Seq != i {
			t.Fatalf("step %d has seq %d", i, s.Seq)
		}
		k := [2]any{s.Cell, s.Warmup}
		if s.Process != next[k] {
			t.Fatalf("step %d: cell %d process %d (warmup %v), want %d", i, s.Cell, s.Process, s.Warmup, next[k])
		}
		next[k]++
		if s.Warmup && measuredSeen[s.Cell] {
			t.Fatalf("step %d: a warm-up of cell %d after its first measured process", i, s.Cell)
		}
		if !s.Warmup {
			measuredSeen[s.Cell] = true
		}
	}
	for _, c := range p.Cells {
		if next[[2]any{c.Index, false}] != c.Processes || next[[2]any{c.Index, true}] != c.Warmup {
			t.Errorf("cell %s: %d measured and %d warm-up steps, want %d and %d", c.Key(),
				next[[2]any{c.Index, false}], next[[2]any{c.Index, true}], c.Processes, c.Warmup)
		}
	}
	if len(p.Schedule.Steps) != p.TotalProcesses() {
		t.Errorf("%d steps for %d processes", len(p.Schedule.Steps), p.TotalProcesses())
	}
}

func TestScheduleInterleaves(t *testing.T) {
	p := threeEnvs(t, "schedule: seed: 42\n")
	if p.Schedule.Order != Interleave || p.Schedule.Seed != 42 {
		t.Fatalf("schedule %s seed %d", p.Schedule.Order, p.Schedule.Seed)
	}
	checkComplete(t, p)
	// The same seed replays the same order, from the spec or Reschedule.
	again := threeEnvs(t, "schedule: seed: 42\n")
	if !slices.Equal(stepKeys(p), stepKeys(again)) {
		t.Error("the same seed gave two orders")
	}
	other := threeEnvs(t, "schedule: seed: 43\n")
	if slices.Equal(stepKeys(p), stepKeys(other)) {
		t.Error("seeds 42 and 43 gave the same order")
	}
	other.Reschedule(Interleave, 42)
	if !slices.Equal(stepKeys(p), stepKeys(other)) {
		t.Error("Reschedule(42) differs from a plan seeded 42")
	}
	// The order mixes environments: in the first half of the measured
	// processes, every environment appears, and the environment changes
	// often (cell by cell it would change only twice in the whole run).
	var envs []string
	for _, s := range p.Schedule.Steps {
		if !s.Warmup {
			envs = append(envs, p.Cells[s.Cell].Env.Name)
		}
	}
	half := map[string]bool{}
	for _, e := range envs[:len(envs)/2] {
		half[e] = true
	}
	changes := 0
	for i := 1; i < len(envs); i++ {
		if envs[i] != envs[i-1] {
			changes++
		}
	}
	if len(half) != 3 || changes < len(envs)/4 {
		t.Errorf("first half has environments %v, %d changes in %d steps: not interleaved", half, changes, len(envs))
	}
}

func TestScheduleBlocked(t *testing.T) {
	p := threeEnvs(t, "schedule: order: \"blocked\"\n")
	checkComplete(t, p)
	// Cell by cell, in plan order, warm-ups first.
	var want []string
	for _, c := range p.Cells {
		for w := range c.Warmup {
			want = append(want, fmt.Sprintf("%d/%d/true", c.Index, w))
		}
		for i := range c.Processes {
			want = append(want, fmt.Sprintf("%d/%d/false", c.Index, i))
		}
	}
	if !slices.Equal(stepKeys(p), want) {
		t.Errorf("blocked order:\n%v\nwant\n%v", stepKeys(p), want)
	}
}

func TestSchedulePicksASeed(t *testing.T) {
	seeds := map[int64]bool{}
	for range 3 {
		p := threeEnvs(t, "")
		if p.Schedule.Seed < 0 {
			t.Errorf("seed %d < 0", p.Schedule.Seed)
		}
		checkComplete(t, p)
		seeds[p.Schedule.Seed] = true
	}
	if len(seeds) < 2 {
		t.Errorf("three plans without a seed all used %v", seeds)
	}
}

func TestEmptyPlanIsBadInput(t *testing.T) {
	s, err := Parse("s.cue", []byte(nativeEnv+"n: [1]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s.N = nil // Parse refuses n: [], so only a caller can do this
	if _, err := Expand(s, nil); err == nil {
		t.Error("an empty plan was accepted")
	}
}
