package report_test

import (
	"strings"
	"testing"

	"spawnbench/engine/report/reporttest"
)

// The answer sorts hosts by their first spawn's ratio: under 10× native
// with the near ones, the rest far, a far host whose steady state is near
// named apart, and a host without a judged first spawn in neither group.
func TestTheAnswerSaysWhichHostsAreNearNative(t *testing.T) {
	t.Parallel()
	s := reporttest.AnswerSet()
	r := reporttest.Build(t, s)
	a := r.BottomLine.Answer
	if a == nil {
		t.Fatal("no answer")
	}
	if strings.Join(a.Near.Environments, ",") != "wasm" || len(a.Far.Environments) != 2 || strings.Join(a.Far.SteadyNear, ",") != "reuse" || strings.Join(a.LeftOut, ",") != "few" {
		t.Errorf("answer %+v: want wasm near, workers and reuse far (reuse near in steady state), few left out", a)
	}
	if lo, hi := float64(a.Far.First.Low), float64(a.Far.First.High); lo < 150 || hi > 500 || lo >= hi {
		t.Errorf("far first-spawn range %.0f–%.0f×, want about 200–400×", lo, hi)
	}
}

// A row of a family whose spawn starts no OS thread (the component
// model's cooperative threads) is never inside the OS-thread hosts'
// ranges, however near native its ratio: it is a group of its own.
func TestTheAnswerKeepsCooperativeThreadsApart(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.ApartAnswerSet())
	a := r.BottomLine.Answer
	if a == nil {
		t.Fatal("no answer")
	}
	if strings.Join(a.Near.Environments, ",") != "wasm" || len(a.Far.Environments) != 0 || strings.Join(a.NotOSThreads.Environments, ",") != "coop" {
		t.Fatalf("answer %+v: want wasm near, coop apart", a)
	}
	if lo := float64(a.Near.First.Low); lo < 1.5 {
		t.Errorf("near first-spawn range starts at %.2f×: coop's ratio is inside it", lo)
	}
	if hi := float64(a.NotOSThreads.First.High); hi > 0.6 || a.NotOSThreads.Steady == nil {
		t.Errorf("apart group first spawn up to %.2f× (want about 0.4×), steady %v", hi, a.NotOSThreads.Steady)
	}
}
