package report_test

import (
	"slices"
	"strings"
	"testing"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

// groupsOf is the answer's groups as "kind: env,env" lines.
func groupsOf(a *report.BottomAnswer) []string {
	var out []string
	for _, g := range a.Groups {
		out = append(out, g.Spawn+": "+strings.Join(g.Environments, ","))
	}
	return out
}

// The answer groups hosts by what a spawn in them starts, declared by
// their families, in hostfacts.SpawnKinds order; a host without a judged
// first spawn is in no group.
func TestTheAnswerGroupsHostsByWhatTheyAre(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.AnswerSet())
	a := r.BottomLine.Answer
	if a == nil {
		t.Fatal("no answer")
	}
	want := []string{
		hostfacts.SpawnOSThread + ": wasm,cli,vm",
		hostfacts.SpawnWorkerPerSpawn + ": workers",
		hostfacts.SpawnReusedWorker + ": reuse",
	}
	if got := groupsOf(a); !slices.Equal(got, want) || strings.Join(a.LeftOut, ",") != "few" {
		t.Errorf("groups %q, left out %q: want %q, few left out", got, a.LeftOut, want)
	}
	os := a.Group(hostfacts.SpawnOSThread)
	if lo, hi := float64(os.First.Low), float64(os.First.High); lo < 1.5 || lo > 3 || hi < 4 || hi > 8 {
		t.Errorf("OS threads' first-spawn range %.2f–%.2f×, want about 2–6×", lo, hi)
	}
	if g := a.Group(hostfacts.SpawnReusedWorker); g.Steady == nil || float64(g.Steady.High) > 8 || float64(g.First.Low) < 100 {
		t.Errorf("reused workers %+v: want about 200× at the first spawn and 4× in steady state, in one group", g)
	}
}

// A host that is 6× native on one machine and 13× on another stays in
// its group: the groups and their order do not depend on the figures.
func TestTheAnswerKeepsItsGroupsWhateverTheRatios(t *testing.T) {
	t.Parallel()
	near := reporttest.Build(t, reporttest.AnswerSet()).BottomLine.Answer
	far := reporttest.Build(t, reporttest.ScaledAnswerSet(13.0/6)).BottomLine.Answer
	if near == nil || far == nil {
		t.Fatal("no answer")
	}
	if hi := float64(far.Group(hostfacts.SpawnOSThread).First.High); hi < 10 {
		t.Fatalf("the scaled set's cli is %.1f× native at the first spawn, want over 10×", hi)
	}
	if a, b := groupsOf(near), groupsOf(far); !slices.Equal(a, b) {
		t.Errorf("groups at 6× %q, at 13× %q: want the same", a, b)
	}
}

// A row of a family whose spawn starts no OS thread (the component
// model's cooperative threads) is never inside the OS-thread hosts'
// ranges, however near native its ratio: it is a group of its own, as
// are wazero's goroutines.
func TestTheAnswerKeepsCooperativeThreadsApart(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.ApartAnswerSet())
	a := r.BottomLine.Answer
	if a == nil {
		t.Fatal("no answer")
	}
	want := []string{hostfacts.SpawnOSThread + ": wasm", hostfacts.SpawnGoroutine + ": goro", hostfacts.SpawnCooperative + ": coop"}
	if got := groupsOf(a); !slices.Equal(got, want) {
		t.Fatalf("groups %q, want %q", got, want)
	}
	g := a.Group(hostfacts.SpawnCooperative)
	if hi := float64(g.First.High); hi > 0.6 || g.Steady == nil {
		t.Errorf("apart group first spawn up to %.2f× (want about 0.4×), steady %v", hi, g.Steady)
	}
}
