package proc

import (
	"context"
	"os/exec"
	"spawnbench/internal/fulltest"
	"testing"
	"time"
)

// TestFitOwnWorkSeparatesLoadFromPerProcessWork checks the fit on sums of
// known answer: 0.3 ms a process and half a CPU of other load.
func TestFitOwnWorkSeparatesLoadFromPerProcessWork(t *testing.T) {
	const own, load = 300e3, 0.5
	sum := func(n int, wall time.Duration) ownWorkSum {
		w := wall.Nanoseconds()
		return ownWorkSum{others: int64(n) * int64(own+load*float64(w)), wall: int64(n) * w, n: n}
	}
	w := fitOwnWork(sum(200, time.Millisecond), sum(10, 21*time.Millisecond))
	if w.PerProcessNS < 299e3 || w.PerProcessNS > 301e3 || w.OthersCPUs < 0.499 || w.OthersCPUs > 0.501 || w.Processes != 210 {
		t.Errorf("fit %+v, want 300 µs a process, 0.5 CPUs of load, 210 processes", w)
	}
	// Tick noise that makes either part negative reads as none.
	if w := fitOwnWork(ownWorkSum{others: -5e6, wall: 200e6, n: 200}, ownWorkSum{others: -1e6, wall: 210e6, n: 10}); w.PerProcessNS != 0 {
		t.Errorf("negative sums gave %+v, want no own work", w)
	}
}

// TestOwnWorkSeesACPUHogAsLoad measures for real beside a busy loop of its
// own: the hog is load that grows with wall time (at least a third of a
// CPU, whatever else the machine runs), not work per process. The loop is
// SCHED_IDLE: it takes the CPU nobody else wants, so it is load on an
// idle machine and costs a busy one's other tests nothing.
func TestOwnWorkSeesACPUHogAsLoad(t *testing.T) {
	fulltest.Only(t, "keeps a CPU busy while it runs 210 processes")
	hog := exec.Command("chrt", "--idle", "0", "/bin/sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hog.Process.Kill(); _ = hog.Wait() })
	w, err := MeasureOwnWork(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("beside a CPU hog: %+v", w)
	if w.Processes != 210 || w.OthersCPUs < 0.33 {
		t.Errorf("beside a CPU hog: %+v, want 210 processes and at least 0.33 CPUs of load", w)
	}
}
