package trace

import "testing"

// Join gives each spawn the earliest task of its window not already
// given, so overlapping windows (parallel mode) still pair each spawn
// with its own task; a spawn whose window holds none made no OS thread.
func TestJoinPairsEachSpawnWithItsTask(t *testing.T) {
	tr := &Trace{Tasks: []Task{
		{TID: 11, NewNS: 1010, WakeupNS: 1012, FirstRunNS: 1030, FirstCPU: 1},
		{TID: 12, NewNS: 1110, WakeupNS: 1112, FirstRunNS: 1130, FirstCPU: 0},
		{TID: 13, NewNS: 5000},
	}}
	an := Join(tr, []Spawn{
		{CallNS: 1000, FirstNS: 1500}, // its window holds 11 and 12
		{CallNS: 1100, FirstNS: 1400},
		{CallNS: 2000, FirstNS: 2100}, // none
	}, 1)
	if !an[0].NewOSThread || *an[0].TaskNewNS != 10 || *an[0].TaskFirstRunNS != 30 || an[0].TaskFirstCPU != 1 {
		t.Errorf("spawn 1: %+v, want task 11 at +10, first run +30 on CPU 1", an[0])
	}
	if !an[1].NewOSThread || *an[1].TaskNewNS != 10 || !InOrder(an[1], 300, 1) {
		t.Errorf("spawn 2: %+v, want task 12 at +10, in order", an[1])
	}
	if an[2].NewOSThread || an[2].TaskNewNS != nil || InOrder(an[2], 100, 1) {
		t.Errorf("spawn 3: %+v, want no new OS thread", an[2])
	}
	if InOrder(an[0], 20, 1) {
		t.Error("a first instruction before the first run counts as in order")
	}
	// A buffer that filled up at 1200: a spawn after it with no task seen
	// is unknown, not "no OS thread"; one before it is still known.
	tr.CompleteUntil = 1200
	an = Join(tr, []Spawn{{CallNS: 1000, FirstNS: 1050}, {CallNS: 1060, FirstNS: 1070}, {CallNS: 2000, FirstNS: 2100}}, 1)
	if !an[0].NewOSThread || an[0].Unknown || an[1].NewOSThread || an[1].Unknown || !an[2].Unknown {
		t.Errorf("after a loss at 1200: %+v", an)
	}
}

// A followed process (a page's renderer) is its running threads: the
// tasks they create are the tree's, and a spawn is given only a task of
// the thread that makes the spawns (the page's main thread), not one its
// thread pool made meanwhile.
func TestJoinOfAFollowedProcessTakesItsSpawnersTasks(t *testing.T) {
	const main, pool = 100, 101
	tr := build([]event{
		{ts: 1005, kind: evNewTask, by: pool, pid: 200},   // the pool grows
		{ts: 1010, kind: evNewTask, by: main, pid: 201},   // the worker's thread
		{ts: 1020, kind: evNewTask, by: 300, pid: 301},    // no task of the tree's
		{ts: 1030, kind: evWakeupNew, by: main, pid: 201}, // its wake-up
		{ts: 1040, kind: evSwitch, pid: 201, prev: 0},     // its first run
	}, nil, []int{main, pool})
	tr.Spawner = main
	if len(tr.Roots) != 0 || len(tr.Tasks) != 2 || tr.Foreign != 1 {
		t.Fatalf("trace %+v: want the two tasks the followed threads made, no roots, one foreign event", tr)
	}
	an := Join(tr, []Spawn{{CallNS: 1000, FirstNS: 1100}}, 1)
	if !an[0].NewOSThread || *an[0].TaskNewNS != 10 || *an[0].TaskWakeupNS != 30 || *an[0].TaskFirstRunNS != 40 {
		t.Errorf("spawn: %+v, want the main thread's task 201 at +10, woken +30, run +40", an[0])
	}
}

// Align goes from a payload's clock to CLOCK_MONOTONIC through
// CLOCK_REALTIME, within the brackets' half widths; a real-time clock set
// during the process is refused.
func TestAlignThroughRealtime(t *testing.T) {
	// payload = mono - 5000; realtime = mono + 1e18.
	guest := Reading{Before: 995_000 - 5000, At: 1e18 + 1_000_000, After: 1_005_000 - 5000}
	host := Reading{Before: 2_000_000 - 10, At: 1e18 + 2_000_000, After: 2_000_000 + 10}
	c, ok := Align(guest, host, host)
	if !ok || c.OffsetNS < 5000-c.ErrNS || c.OffsetNS > 5000+c.ErrNS || c.ErrNS > 5100 {
		t.Errorf("clock %+v (%v), want offset 5000 within the brackets", c, ok)
	}
	stepped := host
	stepped.At += 1_000_000
	if _, ok := Align(guest, host, stepped); ok {
		t.Error("a real-time clock set by 1 ms during the process was not noticed")
	}
	d := Direct(Reading{Before: 100, At: 40, After: 120})
	if d.OffsetNS != 70 || d.ErrNS > 11 {
		t.Errorf("direct %+v, want offset 70 within 11", d)
	}
}
