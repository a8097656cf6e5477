package results

import (
	"path/filepath"
	"testing"
	"time"

	"spawnbench/engine/protocol"
	"spawnbench/engine/stats"
)

// spawnsByRun are a set's spawn times by process row, in thread order.
func spawnsByRun(set *Set) map[int][]int64 {
	type key struct {
		machine, env, mode string
		n, process         int32
		warmup             bool
	}
	index := map[key]int{}
	for i, r := range set.Runs {
		index[key{r.Machine, r.Environment, r.Mode, r.N, r.Process, r.Warmup}] = i
	}
	out := map[int][]int64{}
	for _, s := range set.Samples {
		i := index[key{s.Machine, s.Environment, s.Mode, s.N, s.Process, s.Warmup}]
		for int(s.Thread) >= len(out[i]) {
			out[i] = append(out[i], 0)
		}
		out[i][s.Thread] = s.SpawnNS
	}
	return out
}

// TestStoredSummariesAreTheReduction: every process of the committed
// reference set stores the typical spawn that stats.ReduceSpawns gives
// its spawns (the one function a report's other views use too), and,
// the set being older than spawn_log_var, is given the spawn variance
// the same function gives, on reading.
func TestStoredSummariesAreTheReduction(t *testing.T) {
	set, err := Read(filepath.Join("..", "..", "results", "reference"))
	if err != nil {
		t.Fatal(err)
	}
	spawns := spawnsByRun(set)
	checked := 0
	for i, r := range set.Runs {
		v := spawns[i]
		if r.TypicalSpawnNS == nil {
			if len(v) > 0 {
				t.Errorf("%s %s n=%d process %d: %d spawns but no typical_spawn_ns", r.Environment, r.Mode, r.N, r.Process, len(v))
			}
			continue
		}
		want := stats.ReduceSpawns(v)
		if float64(*r.TypicalSpawnNS) != want.TypicalNS {
			t.Errorf("%s %s n=%d process %d: stored typical %d ns, reduced %v", r.Environment, r.Mode, r.N, r.Process, *r.TypicalSpawnNS, want.TypicalNS)
		}
		if got := r.SpawnLogVar; len(v) > 1 && (got == nil || *got != want.LogVar) {
			t.Errorf("%s %s n=%d process %d: spawn variance %v, reduced %v", r.Environment, r.Mode, r.N, r.Process, got, want.LogVar)
		}
		checked++
	}
	if checked < 1000 {
		t.Errorf("only %d processes checked", checked)
	}
}

// TestSummaryIsWrittenWithTheProcess: a process written through the
// journal stores its reduction, and a set's files read it back as
// written, however the spawns' order falls; a process of one spawn has
// a figure and no spawn variance.
func TestSummaryIsWrittenWithTheProcess(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := w.Begin(Invocation{Command: "run", StartedAt: time.Now().UTC()})
	spawns := map[int32][]int64{0: {90_000, 41_000, 40_500, 39_800, 40_100}, 1: {52_000}}
	for p, ns := range spawns {
		lines := make([]protocol.Line, len(ns))
		for i, v := range ns {
			lines[i] = protocol.Line{SpawnNS: v}
		}
		run := ProcessRun{Environment: "native", Kind: "native", Mode: "sequential", N: int32(len(ns)), Process: p, Status: StatusOK, Invocation: id}
		if err := w.Process(run, lines); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	set, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Runs) != 2 {
		t.Fatalf("%d runs read back, want 2", len(set.Runs))
	}
	for _, r := range set.Runs {
		want := stats.ReduceSpawns(spawns[r.Process])
		if r.TypicalSpawnNS == nil || float64(*r.TypicalSpawnNS) != want.TypicalNS || *r.FirstSpawnNS != spawns[r.Process][0] {
			t.Errorf("process %d: typical %v first %v, want %v and %d", r.Process, r.TypicalSpawnNS, r.FirstSpawnNS, want.TypicalNS, spawns[r.Process][0])
		}
		switch {
		case len(spawns[r.Process]) == 1 && r.SpawnLogVar != nil:
			t.Errorf("process %d of one spawn stores a spawn variance %v", r.Process, *r.SpawnLogVar)
		case len(spawns[r.Process]) > 1 && (r.SpawnLogVar == nil || *r.SpawnLogVar != want.LogVar):
			t.Errorf("process %d: spawn variance %v, want %v", r.Process, r.SpawnLogVar, want.LogVar)
		}
	}
	// A set whose rows predate the columns gets them from its samples,
	// by the same function.
	old := set.Clone()
	for i := range old.Runs {
		old.Runs[i].FirstSpawnNS, old.Runs[i].TypicalSpawnNS, old.Runs[i].SpawnLogVar = nil, nil, nil
	}
	fillSummaries(old)
	for i, r := range old.Runs {
		if *r.TypicalSpawnNS != *set.Runs[i].TypicalSpawnNS || (r.SpawnLogVar == nil) != (set.Runs[i].SpawnLogVar == nil) ||
			(r.SpawnLogVar != nil && *r.SpawnLogVar != *set.Runs[i].SpawnLogVar) || r.Samples != set.Runs[i].Samples {
			t.Errorf("process %d filled as %+v, stored as %+v", r.Process, r, set.Runs[i])
		}
	}
}
