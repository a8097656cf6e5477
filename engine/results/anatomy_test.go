package results

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"spawnbench/engine/protocol"
)

// The trace columns survive a set's Parquet files: the times, the CPU
// and the host's phases as written, a spawn that made no new OS thread false with no times,
// an untraced spawn null throughout; the process's traced flag and its
// note as written, and no note as null.
func TestAnatomyColumnsRoundTrip(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	yes, no := true, false
	s := &Set{Provenance: Provenance{Invocations: []Invocation{{ID: 1, Command: "run", StartedAt: time.Now().UTC()}}}}
	s.Runs = []ProcessRun{
		{Environment: "native@traced", Kind: "native", Mode: "sequential", N: 2, Status: StatusOK, Invocation: 1, Traced: true},
		{Environment: "native", Kind: "native", Mode: "sequential", N: 1, Status: StatusOK, Invocation: 1, TraceNote: "not root"},
	}
	s.Samples = []SpawnSample{
		{Environment: "native@traced", Kind: "native", Mode: "sequential", N: 2, Thread: 0, SpawnNS: 50_000, Invocation: 1, ClockTrusted: true,
			SpawnTrace: SpawnTrace{TaskNewNS: i64(10_000), TaskWakeupNS: i64(14_000), TaskFirstRunNS: i64(20_000), TaskFirstCPU: i32(1), NewOSThread: &yes,
				Phases: []Phase{{"thread_start", 25_000}, {"store", 30_000}, {"instance", 45_000}, {"guest_entry", 50_000}}}},
		{Environment: "native@traced", Kind: "native", Mode: "sequential", N: 2, Thread: 1, SpawnNS: 40_000, Invocation: 1, ClockTrusted: true, SpawnTrace: SpawnTrace{NewOSThread: &no}},
		{Environment: "native", Kind: "native", Mode: "sequential", N: 1, SpawnNS: 30_000, Invocation: 1, ClockTrusted: true},
	}
	for i := range s.Runs {
		s.Runs[i].Summarize([]int64{int64(30_000 + 10_000*i)})
	}
	dir := filepath.Join(t.TempDir(), "set")
	if err := s.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Samples) != 3 || len(back.Runs) != 2 {
		t.Fatalf("read %d samples and %d runs, want 3 and 2", len(back.Samples), len(back.Runs))
	}
	a, b, c := back.Samples[0], back.Samples[1], back.Samples[2]
	if a.TaskNewNS == nil || *a.TaskNewNS != 10_000 || a.TaskWakeupNS == nil || *a.TaskWakeupNS != 14_000 ||
		a.TaskFirstRunNS == nil || *a.TaskFirstRunNS != 20_000 || a.TaskFirstCPU == nil || *a.TaskFirstCPU != 1 || a.NewOSThread == nil || !*a.NewOSThread {
		t.Errorf("a traced spawn with a new task read back as %+v", a)
	}
	if got := fmt.Sprint(a.Phases); got != "[{thread_start 25000} {store 30000} {instance 45000} {guest_entry 50000}]" {
		t.Errorf("a traced spawn's phases read back as %s", got)
	}
	if b.Phases != nil || c.Phases != nil {
		t.Errorf("spawns without phases read back with %v and %v", b.Phases, c.Phases)
	}
	if b.NewOSThread == nil || *b.NewOSThread || b.TaskNewNS != nil || b.TaskFirstCPU != nil || !b.Traced() {
		t.Errorf("a traced spawn with no new task read back as %+v", b)
	}
	if c.NewOSThread != nil || c.TaskNewNS != nil || c.TaskWakeupNS != nil || c.TaskFirstRunNS != nil || c.TaskFirstCPU != nil || c.Traced() {
		t.Errorf("an untraced spawn read back with trace fields: %+v", c)
	}
	if !back.Runs[0].Traced || back.Runs[0].TraceNote != "" || back.Runs[1].Traced || back.Runs[1].TraceNote != "not root" {
		t.Errorf("runs read back as traced %v note %q, traced %v note %q",
			back.Runs[0].Traced, back.Runs[0].TraceNote, back.Runs[1].Traced, back.Runs[1].TraceNote)
	}
}

// Every trace column is described and nullable where a set may not know
// it, and is listed after the older columns, whose order does not move.
func TestAnatomyColumnsAreDescribedAndLast(t *testing.T) {
	for file, names := range map[string][]string{
		SamplesFile: {"task_new_ns", "task_wakeup_ns", "task_first_run_ns", "task_first_cpu", "new_os_thread", "thread_phases", "thread_phase_end_ns"},
		RunsFile:    {"traced", "trace_note"},
	} {
		cols := Columns(file)
		tail := cols[len(cols)-len(names):]
		for i, name := range names {
			if tail[i].Name != name {
				t.Errorf("%s: column %d from the end is %q, want %q", file, len(names)-i, tail[i].Name, name)
			}
			if tail[i].Description == "" {
				t.Errorf("%s: %s has no description", file, name)
			}
			if !tail[i].Nullable && name != "traced" && name != "thread_phases" {
				t.Errorf("%s: %s is not nullable", file, name)
			}
		}
	}
}

// A process's traced flag and note, and its spawns' traces with the
// host's phases, survive the journal and its compaction, as the rest of
// its row does.
func TestTracedRunSurvivesTheJournal(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := w.Begin(Invocation{Command: "run", StartedAt: time.Now().UTC()})
	run := ProcessRun{Environment: "native@traced", Kind: "native", Mode: "sequential", N: 1, Status: StatusOK, Invocation: id, Traced: true}
	yes, first := true, int64(400)
	traces := []SpawnTrace{{NewOSThread: &yes, TaskFirstRunNS: &first, Phases: []Phase{{"store", 700}, {"guest_entry", 1000}}}}
	if err := w.ProcessTraced(run, []protocol.Line{{SpawnNS: 1000}}, traces); err != nil {
		t.Fatal(err)
	}
	run.Environment, run.Traced, run.TraceNote = "native", false, "tracefs is not mounted"
	if err := w.Process(run, []protocol.Line{{SpawnNS: 1000}}); err != nil {
		t.Fatal(err)
	}
	check := func(stage string) {
		t.Helper()
		set, err := Read(dir)
		if err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		if len(set.Runs) != 2 || !set.Runs[0].Traced || set.Runs[0].TraceNote != "" || set.Runs[1].Traced || set.Runs[1].TraceNote != "tracefs is not mounted" {
			t.Fatalf("%s: runs %+v", stage, set.Runs)
		}
		if got := fmt.Sprint(set.Samples[0].Phases); got != "[{store 700} {guest_entry 1000}]" || set.Samples[1].Phases != nil {
			t.Fatalf("%s: the traced spawn's phases %s, the untraced one's %v", stage, got, set.Samples[1].Phases)
		}
	}
	check("from the journal")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	check("compacted")
}
