package results

import "testing"

// TestCellNoiseSubtractsOwnWork: a cell of 1 ms processes whose others'
// CPU time is spawnbench's own per-process work is not busy; the same
// cell with a CPU of other load on top is.
func TestCellNoiseSubtractsOwnWork(t *testing.T) {
	cell := func(othersNS, ownNS int64, withOwn bool) []ProcessRun {
		var runs []ProcessRun
		for range 100 {
			r := ProcessRun{WallNS: 1e6, OthersCPUNS: &othersNS}
			if withOwn {
				r.OwnWorkNS = &ownNS
			}
			runs = append(runs, r)
		}
		return runs
	}
	if n := CellNoise(cell(250e3, 0, false)); !n.Busy {
		t.Errorf("without own work recorded, 25%% others' share: %+v, want busy (as sets before the column read)", n)
	}
	if n := CellNoise(cell(250e3, 240e3, true)); n.Busy || n.OthersShare > 0.011 {
		t.Errorf("own work 240 µs of 250 µs others': %+v, want not busy, share 1%%", n)
	}
	if n := CellNoise(cell(1250e3, 250e3, true)); !n.Busy || n.OthersShare < 0.99 {
		t.Errorf("a CPU of load beside own work: %+v, want busy, share 100%%", n)
	}
}
