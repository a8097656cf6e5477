package results

import (
	"testing"

	"spawnbench/engine/stats"
)

// tickCell is 100 processes of wall each whose others' CPU, as
// /proc/stat's 10 ms ticks round it, reads a whole tick in one of every
// `every` processes (and reads pattern[p % len] in the others).
func tickCell(wallNS int64, every int, ownNS *int64, pattern ...int64) []ProcessRun {
	var runs []ProcessRun
	for p := range 100 {
		var others int64
		if len(pattern) > 0 {
			others = pattern[p%len(pattern)]
		}
		if p%every == 0 {
			others = 10e6
		}
		runs = append(runs, ProcessRun{WallNS: wallNS, OthersCPUNS: &others, OwnWorkNS: ownNS})
	}
	return runs
}

// TestBusyJudgesBeyondTickRounding: a tick that lands now and then on
// short processes (the rounding of an idle machine) is not busy, whatever
// its share; a CPU's worth of other load beside every process is busy
// throughout.
func TestBusyJudgesBeyondTickRounding(t *testing.T) {
	own := int64(200e3)
	// 8 ms processes on an idle machine: the readings of the processes
	// a tick landed on, or missed, as seen (0, 10 ms, -10 ms, ...): a
	// share of 15%, as much noise as signal.
	if n := stats.Busy(ProcessLoads(tickCell(8e6, 5, &own, 0, 9e6, -9e6, 1e6, 0, 5e6, 1e6))); n.Busy || n.OthersShare < 0.1 {
		t.Errorf("tick rounding on 8 ms processes: %+v, want a share above 10%% judged not busy", n)
	}
	// A CPU hog beside 10 ms processes: a tick in every one.
	if n := stats.Busy(ProcessLoads(tickCell(10e6, 1, &own))); !n.Busy || !n.Throughout {
		t.Errorf("a whole CPU of others' work in every 10 ms process: %+v, want busy", n)
	}
	// The same hog beside 4 ms processes: a tick in every other one,
	// and a hundred processes show it clearly.
	if n := stats.Busy(ProcessLoads(tickCell(4e6, 2, &own))); !n.Busy || !n.Throughout {
		t.Errorf("a whole CPU of others' work beside 2 ms processes: %+v, want busy", n)
	}
}

// TestProcessLoadsSubtractOwnWork: the same others' CPU is busy throughout
// or not depending on how much of it is spawnbench's own work per
// process.
func TestProcessLoadsSubtractOwnWork(t *testing.T) {
	var runs []ProcessRun
	for p := range 50 {
		others, own := int64(60e6+p%3*1e6), int64(28e6)
		runs = append(runs, ProcessRun{WallNS: 100e6, OthersCPUNS: &others, OwnWorkNS: &own})
	}
	if n := stats.Busy(ProcessLoads(runs)); n.Busy || n.OthersShare > 0.34 {
		t.Errorf("28 of 61 ms others' CPU a process is own work: %+v, want not busy, share 33%%", n)
	}
	for i := range runs {
		runs[i].OwnWorkNS = nil
	}
	if n := stats.Busy(ProcessLoads(runs)); !n.Busy || !n.Throughout || n.OthersShare < 0.60 {
		t.Errorf("61 ms of others' CPU in every 100 ms process, none own: %+v, want busy throughout, share 61%%", n)
	}
}
