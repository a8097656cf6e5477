package run

import (
	"context"
	"os/exec"
	"testing"
)

// TestBusyFlagsCellsMeasuredBesideACPUHog runs a cell while a busy loop
// (a process of its own, not spawnbench's) takes a whole CPU: the cell's
// pooled share of others' CPU is then near one CPU's worth of its wall
// time, far above the busy threshold. (That an idle machine flags
// nothing cannot be a test on a shared machine; the README's runs show
// it.)
func TestBusyFlagsCellsMeasuredBesideACPUHog(t *testing.T) {
	hog := exec.Command("/bin/sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hog.Process.Kill(); _ = hog.Wait() })
	set, _, err := runSpec(t, context.Background(), `
environments: [{name: "native", kind: "native"}]
n: [100]
samples: {min: 100, processes: 30}
`)
	if err != nil {
		t.Fatal(err)
	}
	busy := BusyCells(set)
	if len(busy) != 1 || busy[0] != "native/sequential/100" {
		t.Errorf("busy cells %v, want native/sequential/100 measured beside a CPU hog", busy)
	}
}
