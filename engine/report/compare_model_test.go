package report_test

import (
	"math"
	"slices"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
)

func TestCompareListsCellsOnlyInOneSet(t *testing.T) {
	t.Parallel()
	a := reporttest.ScaledSet("native", 1, "gcc 12")
	b := reporttest.ScaledSet("native", 1.01, "gcc 12")
	reporttest.AddCell(b, reporttest.Cell{Env: "wasm", Mode: "sequential", N: 100, Processes: 1, SpawnNS: reporttest.LognormalSpawns(4e5, 9)})
	cmp, err := report.Compare(report.Input{Dir: "a", Set: a}, report.Input{Dir: "b", Set: b}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []report.CellID{{Environment: "wasm", Mode: "sequential", Column: report.Column{N: 100}},
		{Environment: "wasm", Mode: "sequential", Column: report.Column{N: 100, Last: 10}}}
	for i := range cmp.OnlyNew {
		cmp.OnlyNew[i].Machine = "" // the fixture's machine, whatever its ID
	}
	if !slices.Equal(cmp.OnlyNew, want) {
		t.Errorf("only new = %+v, want %+v", cmp.OnlyNew, want)
	}
}

func TestCompareFindsRealChangeSignificant(t *testing.T) {
	t.Parallel()
	old := reporttest.ScaledSet("native", 1, "gcc 12")
	slower := reporttest.ScaledSet("native", 2, "gcc 13")
	slower.Provenance.Invocations[0].SpecHash = "fedcba"
	cmp, err := report.Compare(report.Input{Dir: "old", Set: old}, report.Input{Dir: "new", Set: slower}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Both the all-spawns and the last-10 view of n = 100.
	if len(cmp.Changes) != 2 {
		t.Fatalf("%d changes, want 2: %+v", len(cmp.Changes), cmp.Changes)
	}
	all := cmp.Changes[0]
	if all.Last != 0 || !reporttest.NearStored(float64(all.ChangePct), 100) || !all.Significant || all.P >= 0.001 {
		t.Errorf("doubling: change %v%%, p %v, significant %v; want +100%%, p < 0.001, significant", all.ChangePct, all.P, all.Significant)
	}
	keys := map[string]report.ProvenanceDiff{}
	for _, d := range cmp.Differences {
		keys[d.Key] = d
	}
	if d, ok := keys["spec_hash"]; !ok || d.New != "fedcba" {
		t.Errorf("spec_hash difference missing: %+v", cmp.Differences)
	}
	if d, ok := keys["toolchain native"]; !ok || d.Old != "gcc 12" || d.New != "gcc 13" {
		t.Errorf("toolchain difference missing: %+v", cmp.Differences)
	}
	if _, ok := keys["cpu_model"]; ok {
		t.Error("identical cpu_model listed as a difference")
	}
}

func TestCompareSameDataIsNotSignificant(t *testing.T) {
	t.Parallel()
	a := reporttest.ScaledSet("native", 1, "gcc 12")
	cmp, err := report.Compare(report.Input{Dir: "a", Set: a}, report.Input{Dir: "b", Set: reporttest.ScaledSet("native", 1, "gcc 12")}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range cmp.Changes {
		if ch.Significant || ch.ChangePct != 0 {
			t.Errorf("identical sets: %+v change %v%% significant %v", ch.Column, ch.ChangePct, ch.Significant)
		}
	}
	if len(cmp.Differences) != 0 {
		t.Errorf("identical provenance has differences: %+v", cmp.Differences)
	}
}

func TestCompareCountsFiguresInsideOldIntervalsAndRatioMoves(t *testing.T) {
	t.Parallel()
	same, err := report.Compare(report.Input{Dir: "a", Set: reporttest.ScaledWithWasm(1)}, report.Input{Dir: "b", Set: reporttest.ScaledWithWasm(1)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if same.Judged != 4 || same.Inside != 4 || len(same.Ratios) != 2 || same.Ratios[0].ChangePct != 0 {
		t.Errorf("identical sets: %d of %d inside, ratios %+v; want 4 of 4 and unchanged ratios", same.Inside, same.Judged, same.Ratios)
	}
	moved, err := report.Compare(report.Input{Dir: "a", Set: reporttest.ScaledWithWasm(1)}, report.Input{Dir: "b", Set: reporttest.ScaledWithWasm(1.5)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// native is the same in both; wasm moved by half: its two views leave
	// the old intervals and its ratios move by +50%.
	if moved.Inside != 2 || len(moved.Ratios) != 2 || math.Abs(float64(moved.Ratios[0].ChangePct)-50) > 0.01 || moved.RatiosWithin10Pct != 0 {
		t.Errorf("wasm 1.5× slower: %d of %d inside, ratios %+v; want 2 inside and ratios +50%%", moved.Inside, moved.Judged, moved.Ratios)
	}
}

func TestCompareSaysWhenTheMachineMoved(t *testing.T) {
	t.Parallel()
	// Two environments, both 20% slower in the new set: every cell moved
	// one way.
	moved, err := report.Compare(report.Input{Dir: "a", Set: reporttest.ScaledSetPair(1, 1)}, report.Input{Dir: "b", Set: reporttest.ScaledSetPair(1.2, 1.2)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !moved.MachineMoved() || math.Abs(float64(moved.MedianChangePct)-20) > 0.01 || moved.SameWay != 4 {
		t.Errorf("every cell 20%% slower: moved %v, median %v%%, %d same way; want true, +20%%, 4", moved.MachineMoved(), moved.MedianChangePct, moved.SameWay)
	}
	// Only one environment slower: half the cells moved, the machine did
	// not.
	one, err := report.Compare(report.Input{Dir: "a", Set: reporttest.ScaledSetPair(1, 1)}, report.Input{Dir: "b", Set: reporttest.ScaledSetPair(1, 1.2)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if one.MachineMoved() {
		t.Errorf("one environment of two slower: median %v%%, %d same way, said the machine moved", one.MedianChangePct, one.SameWay)
	}
}

// TestCompareSaysWhenBusyLevelsDiffer: one set measured busy and the
// other idle is a difference that can explain a change; two alike are
// not.
func TestCompareSaysWhenBusyLevelsDiffer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		old, new float64
		differ   bool
	}{{0.01, 0.02, false}, {0.01, 0.8, true}, {0.6, 0.8, false}, {0.01, 0.4, false}} {
		cmp, err := report.Compare(report.Input{Dir: "old", Set: reporttest.OthersSet(tc.old)}, report.Input{Dir: "new", Set: reporttest.OthersSet(tc.new)}, report.CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cmp.BusyDiffers != tc.differ || cmp.OldBusy.Judged != 1 || cmp.NewBusy.Judged != 1 || (cmp.NewBusy.Busy == 1) != (tc.new > 0.5) {
			t.Errorf("others %.2f then %.2f: busy levels %+v, %+v, differ = %v; want differ %v", tc.old, tc.new, cmp.OldBusy, cmp.NewBusy, cmp.BusyDiffers, tc.differ)
		}
	}
}
