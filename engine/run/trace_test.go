package run

import (
	"context"
	"strings"
	"testing"

	"spawnbench/engine/env"
	"spawnbench/engine/trace"
	"spawnbench/internal/fulltest"
)

// A run as root traces its @traced environments and no other: every
// process of a traced twin is traced, and in at least 95% of the spawns
// of every traced host (native, the embedded Wasmtime, the Wasmtime CLI
// 46, WAMR; sequential and parallel; free and on one CPU) the kernel's
// times keep call <= new task <= wake-up <= first run <= first
// instruction within the host's clock step, each spawn having made a new
// OS thread. The untraced environments' rows carry no trace.
func TestTracedRunInOrder(t *testing.T) {
	fulltest.Only(t, "builds real payloads and traces real runtimes")
	if _, err := trace.Open(); err != nil {
		t.Skipf("cannot trace here: %v", err)
	}
	env.HostExecutable = func() (string, error) { return fulltest.Spawnbench(t), nil }
	set, _, err := runSpec(t, context.Background(), `
environments: [
	{name: "native", kind: "native"},
	{name: "wasi-threads", kind: "wasi-threads"},
	{name: "wasmtime-46", kind: "wasmtime-cli", wasmtime: "wasmtime-46"},
	{name: "wamr", kind: "wamr"},
]
modes: ["sequential", "parallel"]
n: [1, 30]
samples: {min: 1, processes: 3, pause: "1ms"}
schedule: settle: cap: "0s"
placement: {one_cpu: ["native"]}
anatomy: traced: ["native", "wasi-threads", "wasmtime-46", "wamr", "native@one-cpu"]
`)
	if err != nil {
		t.Fatal(err)
	}
	inv := set.Provenance.Invocations[len(set.Provenance.Invocations)-1]
	for _, must := range []string{"native@traced", "wasi-threads@traced"} {
		if why, skipped := inv.Skipped[must]; skipped {
			t.Fatalf("%s was skipped: %s", must, why)
		}
	}
	runs := map[string]int{}
	for _, r := range set.Runs {
		traced := strings.HasSuffix(r.Environment, "@traced")
		if r.Traced != traced {
			t.Errorf("%s %s n=%d process %d: traced %v (note %q)", r.Environment, r.Mode, r.N, r.Process, r.Traced, r.TraceNote)
		}
		if traced {
			runs[r.Environment]++
		}
	}
	type tally struct{ spawns, newOS, inOrder int }
	by := map[string]*tally{}
	for _, s := range set.Samples {
		if !strings.HasSuffix(s.Environment, "@traced") {
			if s.NewOSThread != nil || s.TaskNewNS != nil {
				t.Errorf("%s: an untraced spawn carries a trace", s.Environment)
			}
			continue
		}
		g := by[s.Environment]
		if g == nil {
			g = &tally{}
			by[s.Environment] = g
		}
		g.spawns++
		if s.NewOSThread == nil || !*s.NewOSThread {
			continue
		}
		g.newOS++
		a := trace.Anatomy{NewOSThread: true, TaskNewNS: s.TaskNewNS, TaskWakeupNS: s.TaskWakeupNS, TaskFirstRunNS: s.TaskFirstRunNS}
		if trace.InOrder(a, s.SpawnNS, max(s.ClockStepNS, 1)) {
			g.inOrder++
		}
	}
	for _, e := range []string{"native@traced", "native@one-cpu@traced", "wasi-threads@traced", "wasmtime-46@traced", "wamr@traced"} {
		if why, skipped := inv.Skipped[e]; skipped {
			t.Logf("%s skipped: %s", e, why)
			continue
		}
		g := by[e]
		if g == nil || runs[e] == 0 {
			t.Errorf("%s: no traced spawns", e)
			continue
		}
		t.Logf("%s: %d processes traced, %d spawns, %d made a new OS thread, %d in order", e, runs[e], g.spawns, g.newOS, g.inOrder)
		if 100*g.newOS < 95*g.spawns || 100*g.inOrder < 95*g.spawns {
			t.Errorf("%s: of %d spawns, %d made a new OS thread and %d are in order; want at least 95%% each", e, g.spawns, g.newOS, g.inOrder)
		}
	}
}
