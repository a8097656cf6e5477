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
