package results

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/inputerr"
)

// oneMachineSet is a set measured on host: one run invocation (ID 1)
// with one native process of two spawns, and a calibration invocation
// (ID 2) whose check passes or fails.
func oneMachineSet(host string, clockPasses bool) *Set {
	now := time.Now().UTC()
	m := Machine{Hostname: host, CPUModel: "Test CPU", Cores: 2, Kernel: "Linux 6", Arch: "amd64"}
	m.ID = m.Identity()
	s := &Set{Provenance: Provenance{Format: FormatVersion, Invocations: []Invocation{
		{ID: 1, Command: "run", SpecHash: "h", Machine: m, StartedAt: now, EndedAt: &now,
			Planned: []PlannedCell{{Environment: "native", Mode: "sequential", N: 2, Processes: 1}}},
		{ID: 2, Command: "calibrate", SpecHash: "h", Machine: m, StartedAt: now, EndedAt: &now},
	}}}
	s.Runs = []ProcessRun{{Environment: "native", Mode: "sequential", N: 2, Status: StatusOK, Samples: 2, Invocation: 1, Machine: m.ID, StartedAt: now}}
	for th := range 2 {
		s.Samples = append(s.Samples, SpawnSample{Environment: "native", Mode: "sequential", N: 2, Thread: int32(th), SpawnNS: 1000, Invocation: 1, Machine: m.ID})
	}
	s.Calibration = []CalibrationCheck{{Environment: "native", Check: "sleep", Pass: clockPasses, Invocation: 2}}
	return s
}

// TestMergeKeepsMachinesApart: two machines' sets of the same cell merge;
// invocations are renumbered with their origin, rows follow them, one
// machine's failed clock check marks only its own samples, and the set
// reads back from disk the same.
func TestMergeKeepsMachinesApart(t *testing.T) {
	a, b := oneMachineSet("a", false), oneMachineSet("b", true)
	a.ID, b.ID = "set-a", "set-b"
	merged, err := Merge([]Part{{Dir: "A", Set: a}, {Dir: "B", Set: b}}, Invocation{Machine: Machine{Hostname: "m"}}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "merged")
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Import(merged); err != nil {
		t.Fatal(err)
	}
	if err := w.Import(merged); err == nil {
		t.Error("a second import over a set was accepted")
	}
	w.Close()
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.ID == "" || back.ID == a.ID || back.ID == b.ID {
		t.Errorf("the merged set's ID %q: want a new one", back.ID)
	}
	invs := back.Provenance.Invocations
	if len(invs) != 5 || invs[4].Command != "merge" || invs[4].SpecHash != "h" {
		t.Fatalf("invocations: %+v", invs)
	}
	for i, want := range []Origin{{"A", 1, "set-a"}, {"A", 2, "set-a"}, {"B", 1, "set-b"}, {"B", 2, "set-b"}} {
		if invs[i].ID != int32(i+1) || invs[i].Origin == nil || *invs[i].Origin != want {
			t.Errorf("invocation %d: id %d origin %+v, want %+v", i, invs[i].ID, invs[i].Origin, want)
		}
	}
	idA, idB := a.Provenance.Invocations[0].Machine.ID, b.Provenance.Invocations[0].Machine.ID
	for _, s := range back.Samples {
		wantInv, wantTrust := int32(1), false
		if s.Machine == idB {
			wantInv, wantTrust = 3, true
		} else if s.Machine != idA {
			t.Fatalf("sample of machine %q", s.Machine)
		}
		if s.Invocation != wantInv || s.ClockTrusted != wantTrust {
			t.Errorf("machine %s sample: invocation %d trusted %v, want %d %v", s.Machine, s.Invocation, s.ClockTrusted, wantInv, wantTrust)
		}
	}
	for _, c := range back.Calibration {
		if inv := back.Provenance.Find(c.Invocation); inv == nil || inv.Command != "calibrate" {
			t.Errorf("calibration check traces to %+v", inv)
		}
	}
	if why := back.Incomplete(); len(why) != 0 {
		t.Errorf("incomplete: %v", why)
	}
	// The same machine twice is an overlap.
	if _, err := Merge([]Part{{Dir: "A", Set: a}, {Dir: "A2", Set: oneMachineSet("a", true)}}, Invocation{}, MergeOptions{}); err == nil {
		t.Error("one machine's cell merged twice")
	}
}

// TestMergeKeepsRunsOfTheSameCellsAsOccasions: two runs of one machine's
// same cell are refused as a plain merge, and kept as two occasions with
// --occasions: processes numbered on, occasions apart, every sample
// following its process; the same set twice is refused either way.
func TestMergeKeepsRunsOfTheSameCellsAsOccasions(t *testing.T) {
	a, b := oneMachineSet("m", true), oneMachineSet("m", true)
	a.ID, b.ID = "set-a", "set-b"
	parts := []Part{{Dir: "A", Set: a}, {Dir: "B", Set: b}}
	if _, err := Merge(parts, Invocation{}, MergeOptions{}); err == nil {
		t.Fatal("a plain merge of two runs of one cell was accepted")
	}
	merged, err := Merge(parts, Invocation{}, MergeOptions{Occasions: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Runs) != 2 || merged.Runs[0].Process != 0 || merged.Runs[1].Process != 1 ||
		merged.Runs[0].Occasion != 1 || merged.Runs[1].Occasion != 2 {
		t.Fatalf("runs %+v: want processes 0 and 1 on occasions 1 and 2", merged.Runs)
	}
	perProcess := map[int32]int{}
	for _, s := range merged.Samples {
		perProcess[s.Process]++
	}
	if perProcess[0] != 2 || perProcess[1] != 2 {
		t.Errorf("samples per process %v, want 2 and 2", perProcess)
	}
	dir := filepath.Join(t.TempDir(), "merged")
	if err := merged.Write(dir); err != nil {
		t.Fatal(err)
	}
	if back, err := Read(dir); err != nil || back.Runs[1].Occasion != 2 {
		t.Errorf("read back: %v, occasions %+v", err, back.Runs)
	}
	if _, err := Merge([]Part{{Dir: "A", Set: a}, {Dir: "A again", Set: a}}, Invocation{}, MergeOptions{Occasions: true}); err == nil {
		t.Error("the same set twice was merged as two occasions")
	}
}

// TestMergeNamesOccasionsForRepeatedRuns: a plain merge of two runs of
// the same cells is refused with the flag that merges them, --occasions,
// and the cells they share; two shards that overlap are told to merge each
// shard once instead.
func TestMergeNamesOccasionsForRepeatedRuns(t *testing.T) {
	a, b := oneMachineSet("m", true), oneMachineSet("m", true)
	a.ID, b.ID = "set-a", "set-b"
	_, err := Merge([]Part{{Dir: "mon", Set: a}, {Dir: "wed", Set: b}}, Invocation{}, MergeOptions{})
	if !inputerr.Is(err) {
		t.Fatalf("merge of two runs of one cell: %v, want an input error", err)
	}
	for _, want := range []string{"mon and wed both measured ", " on machine ", "merge them with --occasions"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	for _, s := range []*Set{a, b} {
		for i := range s.Provenance.Invocations {
			s.Provenance.Invocations[i].Shard = &Shard{Index: 0, Count: 2}
		}
	}
	_, err = Merge([]Part{{Dir: "s0", Set: a}, {Dir: "s0-again", Set: b}}, Invocation{}, MergeOptions{})
	if err == nil || strings.Contains(err.Error(), "--occasions") || !strings.Contains(err.Error(), "merge each shard once") {
		t.Errorf("two overlapping shards: %v", err)
	}
}
