package run

import (
	"context"
	"os/exec"
	"sort"
	"testing"
	"time"
)

// Beside a busy loop that never ends, the first processes wait the whole
// settle cap and the rest only a reading: a machine that stays busy costs
// a run no more than a window a process. The loop is an ordinary one, not
// SCHED_IDLE as the serial busy tests' are: beside this package's parallel
// tests, whose work is spawnbench's own (the test binary's), an idle loop
// got too little CPU to read as a busy machine's (0.45 CPUs, a full run).
// The cap is the default 1 s: the loop takes a CPU from the other tests
// for as long as the run lasts, three caps and more.
func TestABusyMachineIsNotWaitedForEveryProcess(t *testing.T) {
	t.Parallel()
	hog := exec.Command("/bin/sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hog.Process.Kill(); _ = hog.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	set, _, err := runSpec(t, ctx, `environments: [{name: "native", kind: "native"}]
n: [1]
samples: {min: 7, processes: 7}
schedule: settle: cap: "1s"
`)
	if err != nil {
		t.Fatal(err)
	}
	runs := set.Runs
	sort.Slice(runs, func(i, j int) bool { return runs[i].Process < runs[j].Process })
	if len(runs) != 7 {
		t.Fatalf("%d processes, want 7", len(runs))
	}
	for i, r := range runs {
		if r.SettleNS == nil || r.SettleOthersCPUs == nil {
			t.Skip("this machine's CPU time cannot be read")
		}
		waited, others := time.Duration(*r.SettleNS), *r.SettleOthersCPUs
		if others < 0.5 {
			t.Errorf("process %d: others %.2f CPUs beside a busy loop, want about 1", r.Process, others)
		}
		if i < busyInARow && waited < 750*time.Millisecond {
			t.Errorf("process %d waited %s, want the 1 s cap (the machine was not yet known to stay busy)", r.Process, waited)
		}
		if i >= busyInARow && waited >= 500*time.Millisecond {
			t.Errorf("process %d waited %s, want one reading: %d processes in a row had waited the cap", r.Process, waited, busyInARow)
		}
	}
}
