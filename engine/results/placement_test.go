package results

import (
	"path/filepath"
	"spawnbench/engine/protocol"
	"testing"
	"time"
)

func i32(v int32) *int32 { return &v }

func TestPlacementOfASample(t *testing.T) {
	for _, tc := range []struct {
		parent, child *int32
		want          Placement
	}{
		{i32(1), i32(1), SameCPU},
		{i32(0), i32(1), OtherCPU},
		{nil, i32(1), UnknownPlacement},
		{i32(0), nil, UnknownPlacement},
		{nil, nil, UnknownPlacement},
	} {
		if got := (SpawnSample{ParentCPU: tc.parent, ChildCPU: tc.child}).Placement(); got != tc.want {
			t.Errorf("parent %v child %v: %q, want %q", tc.parent, tc.child, got, tc.want)
		}
	}
}

// The CPU columns survive the journal and its compaction into Parquet,
// null where unknown; a process without any CPU adds none to its record.
func TestPlacementColumnsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := w.Begin(Invocation{Command: "run", StartedAt: time.Now().UTC()})
	run := ProcessRun{Environment: "native", Kind: "native", Mode: "sequential", N: 3, Status: StatusOK, Invocation: id, AllowedCPUs: CPUList{0, 1}}
	if err := w.Process(run, []protocol.Line{
		{SpawnNS: 1, ParentCPU: i32(0), ChildCPU: i32(0)},
		{SpawnNS: 2, ParentCPU: i32(0), ChildCPU: i32(1)},
		{SpawnNS: 3, ChildCPU: i32(1)},
	}); err != nil {
		t.Fatal(err)
	}
	run.Environment, run.Kind, run.AllowedCPUs = "wasmtime-46", "wasmtime-cli", nil
	if err := w.Process(run, []protocol.Line{{SpawnNS: 4}}); err != nil {
		t.Fatal(err)
	}
	check := func(stage string) {
		set, err := Read(dir)
		if err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		var got []Placement
		for _, s := range set.Samples {
			got = append(got, s.Placement())
		}
		want := []Placement{SameCPU, OtherCPU, UnknownPlacement, UnknownPlacement}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
			t.Errorf("%s: placements %v, want %v", stage, got, want)
		}
		if s := set.Samples[2]; s.ParentCPU != nil || s.ChildCPU == nil || *s.ChildCPU != 1 {
			t.Errorf("%s: sample 2 CPUs %v %v, want null and 1", stage, s.ParentCPU, s.ChildCPU)
		}
		if len(set.Runs) != 2 || set.Runs[0].AllowedCPUs.String() != "0,1" || set.Runs[1].AllowedCPUs != nil {
			t.Errorf("%s: runs %+v", stage, set.Runs)
		}
	}
	check("journal")
	if err := w.End(id, false); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	check("Parquet")
}

// Sets written before the placement columns read, with placement unknown.
func TestSetsWithoutPlacementColumnsRead(t *testing.T) {
	set, err := Read(filepath.Join("testdata", "format1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Samples) == 0 {
		t.Fatal("testdata/format1 has no samples")
	}
	for _, s := range set.Samples {
		if s.Placement() != UnknownPlacement {
			t.Fatalf("sample %+v reads as %s", s, s.Placement())
		}
	}
	for _, r := range set.Runs {
		if r.AllowedCPUs != nil {
			t.Fatalf("run %+v has allowed CPUs", r)
		}
	}
}
