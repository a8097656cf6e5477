package report_test

import (
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
