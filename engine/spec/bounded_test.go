package spec

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"spawnbench/engine/inputerr"
)

// huge asks CUE for 400 million list elements.
const huge = `import "list"
name: "huge"
environments: [{name: "native", kind: "native"}]
n: [1]
big: [for i in list.Range(0, 20000, 1) for j in list.Range(0, 20000, 1) {i + j}]
`

// boundVar makes the test binary evaluate huge under the bound it names
// (see TestHelperEvaluation).
const boundVar = "SPAWNBENCH_TEST_EVAL_BOUND"

// TestHelperEvaluation is not a test: run by TestEvaluationBounded in a
// process of its own, so that the evaluation it abandons dies with it.
func TestHelperEvaluation(t *testing.T) {
	switch os.Getenv(boundVar) {
	case "":
		t.Skip("only run by TestEvaluationBounded")
	case "time":
		EvalTimeout = 2 * time.Second
	case "memory":
		EvalTimeout, EvalMemory = time.Hour, 64<<20
	}
	EvalProgress = nil
	_, err := Parse("huge.cue", []byte(huge))
	var in *inputerr.Error
	fmt.Printf("input error %v: %v\n", errors.As(err, &in), err)
	os.Exit(0)
}

// TestEvaluationBounded: issue 20, item 8. A spec whose evaluation runs
// away is refused as bad input, naming the bound, instead of running on;
// under the memory bound, the process never held more (issue 33, item 5:
// its peak resident memory, from its rusage).
func TestEvaluationBounded(t *testing.T) {
	for bound, want := range map[string]string{"time": "took longer than 2s", "memory": "stopped short of the bound of 64 MiB"} {
		t.Run(bound, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperEvaluation$")
			cmd.Env = append(os.Environ(), boundVar+"="+bound)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if !strings.HasPrefix(string(out), "input error true: spec huge.cue: ") || !strings.Contains(string(out), want) {
				t.Fatalf("got %q, want an input error saying %q", out, want)
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); bound == "memory" && (!ok || ru.Maxrss<<10 > 64<<20) {
				t.Errorf("peak resident memory %d KiB, above the bound of 64 MiB", ru.Maxrss)
			}
		})
	}
}
