package run

import (
	"context"
	"os/exec"
	"runtime"
	"testing"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
	"spawnbench/engine/textfmt"
)

// TestBusyFlagsCellsMeasuredBesideACPUHog runs a cell while busy loops
// (processes of their own, not spawnbench's) take every CPU the cell
// leaves idle: others' work is then a large share of every process's
// wall time, so no process saw an idle machine and the cell is busy
// throughout. The loops are SCHED_IDLE, so they run only where nothing
// else wants a CPU: the cell's processes (and the other tests of a full
// run) are never made to wait for them, their walls stay as short and
// steady as on an idle machine, and the test costs the full run nothing
// of its CPUs (as plain loops the cell's walls ran from 25 ms to 2 s,
// and the loops took two CPUs for 20 s). Its processes of a thousand
// spawns are many 10 ms ticks long, so their readings show it whatever
// the tick rounding; sixty of them, so the rule's test of others' excess
// (in ns) stands well clear of its bar of 3 standard errors. (That an
// idle machine flags nothing cannot be a test on a shared machine; the
// stats package's simulations and the committed sets show it.)
func TestBusyFlagsCellsMeasuredBesideACPUHog(t *testing.T) {
	// Not parallel: the package's parallel tests wait until it is done, so
	// their work does not enter the run's measure of spawnbench's own
	// work per process (proc.MeasureOwnWork), which the busy rule
	// subtracts; beside them that measure once took in the hogs' load
	// and no cell read busy (a full `go test ./...`, idle machine).
	// A loop for each CPU, so that every CPU the cell leaves idle is
	// taken (chrt is util-linux's, which every Debian has).
	for range runtime.NumCPU() {
		hog := exec.Command("chrt", "--idle", "0", "/bin/sh", "-c", "while :; do :; done")
		if err := hog.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = hog.Process.Kill(); _ = hog.Wait() })
	}
	// The run measures its own work beside the hogs (testOptions, not the
	// test binary's shared measure, taken beside other tests).
	set, _, err := runSpecWith(t, context.Background(), testOptions(), `
environments: [{name: "native", kind: "native"}]
n: [1000]
samples: {min: 100, processes: 60}
`)
	if err != nil {
		t.Fatal(err)
	}
	busy := BusyCells(set)
	if len(busy) != 1 || busy[0].Key != "native/sequential/1000" || !busy[0].Load.Throughout {
		l := stats.Busy(results.ProcessLoads(set.Runs))
		t.Errorf("busy cells %+v, want native/sequential/1000, busy throughout beside a CPU hog; the cell's load: %+v, own work %+v",
			busy, l, set.Provenance.Invocations[0].OwnWork)
	} else {
		t.Logf("%s: %s", busy[0].Key, textfmt.BusyEvidence(busy[0].Load))
	}
}
