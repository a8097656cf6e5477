package render

import (
	"strings"
	"testing"

	"spawnbench/engine/report/reporttest"
)

// TestTheAnswerIsWordedAboveTheBottomLine: the answer's sentence names
// the groups the model made (engine/report tests the grouping).
func TestTheAnswerIsWordedAboveTheBottomLine(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.AnswerSet())
	text := BottomLineText(r)
	for _, want := range []string{"A thread spawn in wasm costs ", "native's at the first spawn (n = 1)", "In the 2 other environments", "except reuse in steady state", "(1 row not judged at the first spawn: few.)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the answer does not say %q:\n%s", want, text)
		}
	}
}

// TestTheAnswerSaysWhatCooperativeThreadsAre: the row the model keeps
// apart is worded apart, with what its threads are.
func TestTheAnswerSaysWhatCooperativeThreadsAre(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.ApartAnswerSet())
	text := BottomLineText(r)
	for _, want := range []string{"A thread spawn in wasm costs ", "coop (its threads are the component model's own threads", "starts no OS thread: a spawn there costs 0.", "not the cost of starting a thread that runs in parallel."} {
		if !strings.Contains(text, want) {
			t.Errorf("the answer does not say %q:\n%s", want, text)
		}
	}
}
