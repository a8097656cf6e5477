package render

import (
	"strings"
	"testing"

	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

// The answer sorts hosts by their first spawn's ratio: under 10× native
// with the near ones, the rest far, a far host whose steady state is near
// named apart, and a host without a judged first spawn in neither group.
func TestTheAnswerSaysWhichHostsAreNearNative(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	medians := map[string][2]float64{ // first spawn, steady state: ns
		"native":  {50e3, 10e3},
		"wasm":    {100e3, 30e3}, // 2×, 3×
		"workers": {20e6, 5e6},   // 400×, 500×
		"reuse":   {10e6, 40e3},  // 200×, 4×
		"few":     {30e6, 10e6},  // 3 processes: not judged
	}
	i := 0
	for env, m := range medians {
		processes := 20
		if env == "few" {
			processes = 3
		}
		for k, n := range []int32{1, 100} {
			i++
			reporttest.AddCell(s, reporttest.Cell{Env: env, Mode: "sequential", N: n, Processes: processes, SpawnNS: reporttest.LognormalSpawns(m[k], uint64(i)*1000)})
		}
	}
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
	text := BottomLineText(r)
	for _, want := range []string{"A thread spawn in wasm costs ", "native's at the first spawn (n = 1)", "In the 2 other environments", "except reuse in steady state", "(1 row not judged at the first spawn: few.)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the answer does not say %q:\n%s", want, text)
		}
	}
}
