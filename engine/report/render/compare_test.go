package render

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

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
	var md bytes.Buffer
	if err := WriteComparison(cmp, &md, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	diffAt, tableAt := strings.Index(out, "## Provenance differences"), strings.Index(out, "## Typical spawn time")
	if diffAt < 0 || tableAt < diffAt {
		t.Errorf("provenance differences not listed above the table:\n%s", out)
	}
	if !strings.Contains(out, "| native | sequential | 100 | all |") || !strings.Contains(out, "| +100.0% [") {
		t.Errorf("comparison row missing:\n%s", out)
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
			t.Errorf("identical sets: %s change %v%% significant %v", columnLabel(ch.Column), ch.ChangePct, ch.Significant)
		}
	}
	if len(cmp.Differences) != 0 {
		t.Errorf("identical provenance has differences: %+v", cmp.Differences)
	}
	var buf bytes.Buffer
	if err := WriteComparison(cmp, &buf, FormatCSV); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 3 || rows[1][18] != "false" {
		t.Errorf("CSV = %v, %v; want a header and 2 rows, not significant", rows, err)
	}
}

func TestCompareCountsFiguresInsideOldIntervalsAndRatioMoves(t *testing.T) {
	t.Parallel()
	set := func(factor float64) *results.Set {
		s := reporttest.ScaledSet("native", 1, "gcc 12")
		draw := reporttest.LognormalSpawns(50e3, 5)
		reporttest.AddCell(s, reporttest.Cell{Env: "wasm", Mode: "sequential", N: 100, Processes: 10,
			SpawnNS: func(p, t int) int64 { return int64(factor * 3 * float64(draw(p, t))) }})
		return s
	}
	same, err := report.Compare(report.Input{Dir: "a", Set: set(1)}, report.Input{Dir: "b", Set: set(1)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if same.Judged != 4 || same.Inside != 4 || len(same.Ratios) != 2 || same.Ratios[0].ChangePct != 0 {
		t.Errorf("identical sets: %d of %d inside, ratios %+v; want 4 of 4 and unchanged ratios", same.Inside, same.Judged, same.Ratios)
	}
	moved, err := report.Compare(report.Input{Dir: "a", Set: set(1)}, report.Input{Dir: "b", Set: set(1.5)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// native is the same in both; wasm moved by half: its two views leave
	// the old intervals and its ratios move by +50%.
	if moved.Inside != 2 || len(moved.Ratios) != 2 || math.Abs(float64(moved.Ratios[0].ChangePct)-50) > 0.01 {
		t.Errorf("wasm 1.5× slower: %d of %d inside, ratios %+v; want 2 inside and ratios +50%%", moved.Inside, moved.Judged, moved.Ratios)
	}
	var md bytes.Buffer
	if err := WriteComparison(moved, &md, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "**2 of 4** cells' new figures lie inside the old 95% interval") || !strings.Contains(md.String(), "0 of 2 ratios moved by at most 10%") {
		t.Errorf("compare markdown lacks the coverage lines:\n%s", md.String())
	}
}

func TestCompareSaysWhenTheMachineMoved(t *testing.T) {
	t.Parallel()
	// Two environments, both 20% slower in the new set: every cell moved
	// one way.
	set := func(factor float64) *results.Set { return reporttest.ScaledSetPair(factor, factor) }
	text := func(cmp *report.Comparison) string {
		var md bytes.Buffer
		if err := WriteComparison(cmp, &md, FormatMarkdown); err != nil {
			t.Fatal(err)
		}
		return md.String()
	}
	moved, err := report.Compare(report.Input{Dir: "a", Set: set(1)}, report.Input{Dir: "b", Set: set(1.2)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !moved.MachineMoved() || math.Abs(float64(moved.MedianChangePct)-20) > 0.01 || moved.SameWay != 4 {
		t.Errorf("every cell 20%% slower: moved %v, median %v%%, %d same way; want true, +20%%, 4", moved.MachineMoved(), moved.MedianChangePct, moved.SameWay)
	}
	if out := text(moved); !strings.Contains(out, "**The machine moved**: the median cell changed by +20.0%, and 4 of 4 cells moved the same way") {
		t.Errorf("compare markdown lacks the machine's move:\n%s", out)
	}
	// Only one environment slower: half the cells moved, the machine did
	// not.
	one, err := report.Compare(report.Input{Dir: "a", Set: set(1)}, report.Input{Dir: "b", Set: reporttest.ScaledSetPair(1, 1.2)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if one.MachineMoved() || strings.Contains(text(one), "machine moved") {
		t.Errorf("one environment of two slower: median %v%%, %d same way, said the machine moved", one.MedianChangePct, one.SameWay)
	}
}
