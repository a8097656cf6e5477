package results

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"spawnbench/engine/protocol"
	"spawnbench/engine/stats"
	"strings"
	"testing"
	"time"
)

func i64(v int64) *int64 { return &v }

// TestBusyRule: the busy flag on synthetic cells, one rule for all, as
// ProcessLoads feeds it the runs: warm-ups ignored, each ok process's figure
// its typical_spawn_ns, a failed process's load counted but no figure.
func TestBusyRule(t *testing.T) {
	run := func(wall, others, steal int64, warm bool) ProcessRun {
		r := ProcessRun{WallNS: wall, Warmup: warm, Status: StatusOK}
		if others >= 0 {
			r.OthersCPUNS = i64(others)
		}
		if steal >= 0 {
			r.StealNS = i64(steal)
		}
		return r
	}
	// slowHalf is 20 processes of 100 ms, the even ones with others' CPU
	// of loadNS (and steal of stealNS) and a typical spawn 1.5× the odd
	// ones', each a little apart from the next.
	slowHalf := func(loadNS, stealNS int64) []ProcessRun {
		var runs []ProcessRun
		for p := range 20 {
			r := run(100e6, 0, 0, false)
			typical := 40e3 + int64(p)*100
			if p%2 == 0 {
				r = run(100e6, loadNS, stealNS, false)
				typical = typical * 3 / 2
			}
			r.TypicalSpawnNS = &typical
			runs = append(runs, r)
		}
		return runs
	}
	failed := slowHalf(80e6, 0)
	for i := range failed {
		if i%2 == 0 {
			failed[i].Status = StatusCrashed
		}
	}
	cases := []struct {
		name string
		runs []ProcessRun
		busy bool
	}{
		{"idle", []ProcessRun{run(100e6, 1e6, 0, false), run(100e6, 5e6, 0, false), run(100e6, 9e6, 0, false)}, false},
		// A steady load that moved no figure is a number, not a flag.
		{"others at 35% of the cell's wall time", slices.Repeat([]ProcessRun{run(100e6, 30e6, 0, false), run(100e6, 35e6, 0, false), run(100e6, 40e6, 0, false)}, 5), false},
		{"steal at 25%", slices.Repeat([]ProcessRun{run(100e6, 0, 20e6, false), run(100e6, 0, 30e6, false), run(100e6, 0, 25e6, false)}, 5), false},
		{"others at 70% in every process", slices.Repeat([]ProcessRun{run(100e6, 65e6, 0, false), run(100e6, 70e6, 0, false), run(100e6, 75e6, 0, false)}, 2), true},
		{"exactly half is not above", slices.Repeat([]ProcessRun{run(100e6, 50e6, 10e6, false)}, 10), false},
		// A 5 ms process sees either no 10 ms tick of other load or a
		// whole one (200%): one tick in 25 such processes is 8% of their
		// wall time, and a tick in two of three is as likely rounding as
		// load; the same in every process of thirty is two CPUs' worth.
		{"one tick in 25 short processes", append([]ProcessRun{run(5e6, 10e6, 0, false)}, slices.Repeat([]ProcessRun{run(5e6, 0, 0, false)}, 24)...), false},
		{"a tick in two of three short processes", []ProcessRun{run(5e6, 10e6, 0, false), run(5e6, 10e6, 0, false), run(5e6, 0, 0, false)}, false},
		{"a tick in every one of thirty short processes", slices.Repeat([]ProcessRun{run(5e6, 10e6, 0, false)}, 30), true},
		{"long processes weigh by their wall time", slices.Repeat([]ProcessRun{run(1e9, 0, 0, false), run(1e6, 1e6, 0, false)}, 5), false},
		{"busy warm-ups do not count", append(slices.Repeat([]ProcessRun{run(100e6, 90e6, 90e6, true)}, 10), run(100e6, 1e6, 0, false)), false},
		{"others' work beside the slower half", slowHalf(80e6, 0), true},
		{"steal beside the slower half", slowHalf(0, 40e6), true},
		{"the loaded half failed: its figures are not the cell's", failed, false},
		{"unknown noise is not busy", []ProcessRun{run(1000, -1, -1, false)}, false},
	}
	for _, c := range cases {
		if got := stats.Busy(ProcessLoads(c.runs)); got.Busy != c.busy {
			t.Errorf("%s: busy = %v, want %v (%+v)", c.name, got.Busy, c.busy, got)
		}
	}
}

// TestKillAtAnyMomentOfCompaction builds every state a kill during
// compaction can leave (the journal with files of its base generation,
// of the next, or a mix) and checks that each reads back as the whole set.
func TestKillAtAnyMomentOfCompaction(t *testing.T) {
	base := t.TempDir()
	w, err := Open(base)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := w.Begin(Invocation{Command: "run", StartedAt: time.Now().UTC()})
	process := func(p int32) {
		run := ProcessRun{Environment: "native", Kind: "native", Mode: "sequential", N: 2, Process: p, Status: StatusOK, Invocation: id}
		samples := []protocol.Line{{SpawnNS: 10 + int64(p)}, {SpawnNS: 20, JoinedNS: i64(30)}}
		if err := w.Process(run, samples); err != nil {
			t.Fatal(err)
		}
	}
	process(0)
	if err := w.End(id, false); err != nil { // generation 1, no journal
		t.Fatal(err)
	}
	id, _ = w.Begin(Invocation{Command: "resume", StartedAt: time.Now().UTC()})
	process(1)
	// Snapshot: generation-1 files and a journal with process 1.
	before := snapshot(t, base)
	if err := w.Close(); err != nil { // compacts: generation 2
		t.Fatal(err)
	}
	after := snapshot(t, base)
	want, err := Read(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Runs) != 2 || len(want.Samples) != 4 || len(want.Provenance.Invocations) != 2 {
		t.Fatalf("whole set: %d runs, %d samples, %d invocations", len(want.Runs), len(want.Samples), len(want.Provenance.Invocations))
	}
	for _, newer := range [][]string{nil, {CalibrationFile}, {CalibrationFile, SamplesFile}, {CalibrationFile, SamplesFile, RunsFile}, {CalibrationFile, SamplesFile, RunsFile, ProvenanceFile}} {
		dir := t.TempDir()
		restore(t, before, dir)
		for _, f := range newer {
			os.WriteFile(filepath.Join(dir, f), after[f], 0o644)
		}
		got, err := Read(dir)
		if err != nil {
			t.Errorf("kill after writing %v: %v", newer, err)
			continue
		}
		if len(got.Runs) != 2 || len(got.Samples) != 4 || len(got.Provenance.Invocations) != 2 || got.Provenance.Invocations[1].Command != "resume" {
			t.Errorf("kill after writing %v: %d runs, %d samples, %+v", newer, len(got.Runs), len(got.Samples), got.Provenance)
		}
		// A writer opening it compacts and leaves no journal.
		w2, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		w2.Close()
		if _, err := os.Stat(filepath.Join(dir, JournalFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("journal left after compaction: %v", err)
		}
	}
	// Without a journal, files of two generations are refused.
	dir := t.TempDir()
	restore(t, after, dir)
	os.WriteFile(filepath.Join(dir, RunsFile), before[RunsFile], 0o644)
	var fe *FormatError
	if _, err := Read(dir); !errors.As(err, &fe) || !strings.Contains(err.Error(), "disagree") {
		t.Errorf("mixed generations without a journal: %v", err)
	}
	// A line cut by a kill mid-write is the process in flight: dropped.
	dir = t.TempDir()
	restore(t, before, dir)
	f, _ := os.OpenFile(filepath.Join(dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"k":"process","run":{"Environment":"nat`)
	f.Close()
	if got, err := Read(dir); err != nil || len(got.Runs) != 2 {
		t.Errorf("torn last line: %v", err)
	}
	// A kill between creating a journal and writing its header.
	for _, content := range []string{"", `{"k":"ba`} {
		dir = t.TempDir()
		restore(t, after, dir)
		os.WriteFile(filepath.Join(dir, JournalFile), []byte(content), 0o644)
		if got, err := Read(dir); err != nil || len(got.Runs) != 2 {
			t.Errorf("journal %q without its header: %v", content, err)
		}
	}
}

func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range []string{CalibrationFile, SamplesFile, RunsFile, ProvenanceFile, JournalFile} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			out[f] = b
		}
	}
	return out
}

func restore(t *testing.T, files map[string][]byte, dir string) {
	t.Helper()
	for f, b := range files {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLock: a second writer is refused while the first holds the
// directory, naming it, and takes over once it is released. Opening
// removes the temporary files a killed spawnbench left, and no one
// else's (issue 20, item 11: a user's ".*.tmp-*" files were deleted).
func TestLock(t *testing.T) {
	dir := t.TempDir()
	if err := sampleSet().Write(dir); err != nil {
		t.Fatal(err)
	}
	// What a killed writer (of the set or of the report's plots) left.
	os.MkdirAll(filepath.Join(dir, "plots", "0123abcd"), 0o755)
	os.MkdirAll(filepath.Join(dir, "notes"), 0o755)
	left := []string{filepath.Join(dir, ".samples.parquet.spawnbench-tmp-123"), filepath.Join(dir, "plots", ".a.svg.spawnbench-tmp-9"),
		filepath.Join(dir, "plots", "0123abcd", ".b.png.spawnbench-tmp-7")}
	users := []string{filepath.Join(dir, ".draft.tmp-1"), filepath.Join(dir, "notes", ".x.tmp-2"), filepath.Join(dir, "plots", ".mine.tmp-3")}
	for _, f := range append(slices.Clone(left), users...) {
		os.WriteFile(f, []byte("x"), 0o644)
	}
	first, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range left {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s not cleaned", f)
		}
	}
	for _, f := range users {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("a user's file was removed: %v", err)
		}
	}
	var locked *LockedError
	if _, err := Open(dir); !errors.As(err, &locked) || !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("second writer: %v", err)
	}
	first.Close()
	second, err := Open(dir)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	second.Close()
}

// TestIncomplete: what makes a set incomplete, and a resume that completes
// an interrupted run.
func TestIncomplete(t *testing.T) {
	now := time.Now()
	planned := []PlannedCell{{Environment: "native", Mode: "sequential", N: 1, Processes: 2}}
	runs := func(k int) []ProcessRun {
		var rs []ProcessRun
		for p := range k {
			rs = append(rs, ProcessRun{Environment: "native", Mode: "sequential", N: 1, Process: int32(p)})
		}
		return rs
	}
	cases := []struct {
		name string
		invs []Invocation
		runs int
		want []string
	}{
		{"complete", []Invocation{{ID: 1, Command: "run", SpecHash: "a", Planned: planned, EndedAt: &now}}, 2, nil},
		{"interrupted", []Invocation{{ID: 1, Command: "run", SpecHash: "a", Planned: planned, EndedAt: &now, Interrupted: true}}, 1,
			[]string{"invocation 1 (run) was interrupted", "cell native/sequential/1 has 1 of 2 processes"}},
		{"killed", []Invocation{{ID: 1, Command: "run", SpecHash: "a", Planned: planned}}, 2, []string{"invocation 1 (run) never ended (still running, or killed)"}},
		{"resumed", []Invocation{{ID: 1, Command: "run", SpecHash: "a", Planned: planned}, {ID: 2, Command: "resume", SpecHash: "a", Planned: planned, EndedAt: &now}}, 2, nil},
		{"a calibration does not complete a run", []Invocation{{ID: 1, Command: "run", SpecHash: "a", Planned: planned}, {ID: 2, Command: "calibrate", SpecHash: "a", EndedAt: &now}}, 2,
			[]string{"invocation 1 (run) never ended (still running, or killed)"}},
	}
	for _, c := range cases {
		s := &Set{Runs: runs(c.runs), Provenance: Provenance{Invocations: c.invs}}
		if got := s.Incomplete(); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestKilledBeforeAnything: a directory whose first writer died before
// its journal had a header opens as a new set.
func TestKilledBeforeAnything(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, JournalFile), nil, 0o644)
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Set().Runs) != 0 {
		t.Errorf("runs from nowhere: %v", w.Set().Runs)
	}
	w.Close()
}

// TestNothingRecordedLeavesNoDirectory: a writer that recorded nothing
// (the plan was refused) leaves no directory it created behind.
func TestNothingRecordedLeavesNoDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left behind: %v", dir, err)
	}
}

// TestDamagedJournalLine: issue 33, item 3. A line in the middle of the
// journal that is not a record is skipped: every other record is kept,
// the warning names the line and what it held, and a writer's compaction
// keeps the line in DamagedFile (once) rather than dropping it.
func TestDamagedJournalLine(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := w.Begin(Invocation{Command: "run", StartedAt: time.Now().UTC()})
	for p := range int32(4) {
		run := ProcessRun{Environment: "native", Kind: "native", Mode: "sequential", N: 1, Process: p, Status: StatusOK, Invocation: id}
		if err := w.Process(run, []protocol.Line{{SpawnNS: 10 + int64(p)}}); err != nil {
			t.Fatal(err)
		}
	}
	// Killed: the journal stays as written.
	w.journal.Close()
	w.lock.Release()
	path := filepath.Join(dir, JournalFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	// Lines: 1 header, 2 invocation, 3-6 processes 0-3. Process 1's line
	// loses its end; a line of garbage comes after process 2.
	damaged := lines[:3]
	damaged = append(damaged, lines[3][:40]+"\x00\xff\n", lines[4], "@@ not json @@\n", lines[5], `{"k":"process","run":null}`+"\n", `{"k":"ba`)
	if err := os.WriteFile(path, []byte(strings.Join(damaged, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := Read(dir)
	if err != nil {
		t.Fatalf("a damaged middle line made the set unreadable: %v", err)
	}
	var kept []int32
	for _, r := range set.Runs {
		kept = append(kept, r.Process)
	}
	if !slices.Equal(kept, []int32{0, 2, 3}) || len(set.Samples) != 3 || len(set.Provenance.Invocations) != 1 {
		t.Errorf("kept processes %v, %d samples, %d invocations; want 0, 2, 3 and their 3 samples, 1 invocation", kept, len(set.Samples), len(set.Provenance.Invocations))
	}
	warn := set.DamageWarning(dir)
	for _, want := range []string{"line(s) 4, 6, 8", "they held 2 process(es), and what 1 of them held cannot be told", "--resume", "stay in the journal"} {
		if !strings.Contains(warn, want) {
			t.Errorf("warning lacks %q: %s", want, warn)
		}
	}
	// A writer compacts the journal and keeps the damaged lines, once.
	for range 2 {
		w, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if warn := w.Set().DamageWarning(dir); strings.Contains(warn, "line(s) 4, 6, 8") && !strings.Contains(warn, "kept in "+filepath.Join(dir, DamagedFile)) {
			t.Errorf("after compaction: %s", warn)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	side, err := os.ReadFile(filepath.Join(dir, DamagedFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(side), "\n"); n != 3 || !strings.Contains(string(side), `"journal_line":6,"text":"@@ not json @@"`) || !strings.Contains(string(side), `"base64"`) {
		t.Errorf("%s holds %d lines, want the 3 damaged ones:\n%s", DamagedFile, n, side)
	}
	if set, err := Read(dir); err != nil || len(set.Runs) != 3 || set.DamageWarning(dir) != "" {
		t.Errorf("after compaction: %v, %d runs", err, len(set.Runs))
	}
	// Only a damaged header leaves the journal unplaceable.
	os.WriteFile(path, []byte("@@\n"+lines[1]), 0o644)
	var fe *FormatError
	if _, err := Read(dir); !errors.As(err, &fe) || !strings.Contains(err.Error(), "line 1 is not the journal header") {
		t.Errorf("damaged header: %v", err)
	}
}
