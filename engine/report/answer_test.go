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
