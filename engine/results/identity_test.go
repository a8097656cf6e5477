package results

import (
	"errors"
	"os"
	"path/filepath"
	"spawnbench/engine/protocol"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"
	"time"
)

// writeRun makes a result set in a new directory the way a run does: one
// invocation, one process of two spawns, compacted (journal gone).
func writeRun(t *testing.T, dir string, spawnNS int64) {
	t.Helper()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.Begin(Invocation{Command: "run", SpecHash: "same spec", StartedAt: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	run := ProcessRun{Environment: "native", Kind: "native", Mode: "sequential", N: 2, Status: StatusOK, Invocation: id}
	if err := w.Process(run, []protocol.Line{{SpawnNS: spawnNS}, {SpawnNS: spawnNS + 1}}); err != nil {
		t.Fatal(err)
	}
	if err := w.End(id, false); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFileOfAnotherSetIsRefused: every file of a set carries the set's ID,
// so a file copied in from another run of the same spec (issue 20, item 5:
// it was read as this set's) is refused, naming it, by Read and by a
// writer (issue 20, item 3: a resume replaced the set).
func TestFileOfAnotherSetIsRefused(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	writeRun(t, a, 1000)
	writeRun(t, b, 5000)
	sa, err := Read(a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	if sa.ID == "" || sa.ID == sb.ID {
		t.Fatalf("set IDs %q and %q: want two distinct IDs", sa.ID, sb.ID)
	}
	for _, name := range []string{SamplesFile, RunsFile, CalibrationFile, ProvenanceFile} {
		dir := filepath.Join(tmp, "mix-"+name)
		writeRun(t, dir, 1000)
		fulltest.CopyFile(t, filepath.Join(b, name), filepath.Join(dir, name), 0o644)
		_, err := Read(dir)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Path != filepath.Join(dir, name) || !strings.Contains(err.Error(), "belongs to result set "+sb.ID) {
			t.Errorf("%s of another set: %v", name, err)
		}
		if _, err := Open(dir); !errors.As(err, &fe) || fe.Path != filepath.Join(dir, name) {
			t.Errorf("writer into a set with %s of another set: %v", name, err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != string(mustRead(t, filepath.Join(b, name))) {
			t.Errorf("the refused writer changed %s", name)
		}
	}
	// A journal of another set (a run in progress there) is refused too.
	dir := filepath.Join(tmp, "mix-journal")
	writeRun(t, dir, 1000)
	os.WriteFile(filepath.Join(dir, JournalFile), []byte(`{"k":"base","base":1,"set":"`+sb.ID+`"}`+"\n"), 0o644)
	var fe *FormatError
	if _, err := Read(dir); !errors.As(err, &fe) || fe.Path != filepath.Join(dir, JournalFile) {
		t.Errorf("journal of another set: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMissingFileIsRefused: a set missing any of its files is refused,
// naming the file, and Exists still sees it, so a run never takes it for
// an empty directory and writes over it (issue 20, item 3).
func TestMissingFileIsRefused(t *testing.T) {
	tmp := t.TempDir()
	for _, name := range []string{SamplesFile, RunsFile, CalibrationFile, ProvenanceFile} {
		dir := filepath.Join(tmp, name)
		writeRun(t, dir, 1000)
		os.Remove(filepath.Join(dir, name))
		if !Exists(dir) {
			t.Errorf("without %s the set is not seen", name)
		}
		_, err := Read(dir)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Path != filepath.Join(dir, name) || !strings.Contains(err.Error(), "is missing") {
			t.Errorf("without %s: %v", name, err)
		}
		if _, err := Open(dir); !errors.As(err, &fe) {
			t.Errorf("writer into a set without %s: %v", name, err)
		}
	}
}

// TestJournalOnlySetReads: a first run killed (or still running) before
// its first compaction has its data only in the journal; it reads as
// that data, its invocation never ended (issue 20, item 6).
func TestJournalOnlySetReads(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	id, _ := w.Begin(Invocation{Command: "run", StartedAt: time.Now().UTC(), Planned: []PlannedCell{{Environment: "native", Mode: "sequential", N: 2, Processes: 3}}})
	for p := range int32(2) {
		run := ProcessRun{Environment: "native", Kind: "native", Mode: "sequential", N: 2, Process: p, Status: StatusOK, Invocation: id}
		if err := w.Process(run, []protocol.Line{{SpawnNS: 10}, {SpawnNS: 20}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, SamplesFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("samples.parquet before the first compaction: %v", err)
	}
	got, err := Read(dir) // while the writer still holds the directory
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 2 || len(got.Samples) != 4 || got.ID != w.Set().ID {
		t.Errorf("journal-only set: %d runs, %d samples, ID %q (writer's %q)", len(got.Runs), len(got.Samples), got.ID, w.Set().ID)
	}
	inc := strings.Join(got.Incomplete(), "|")
	if !strings.Contains(inc, "never ended") || !strings.Contains(inc, "2 of 3 processes") {
		t.Errorf("journal-only set is not marked incomplete: %q", inc)
	}
}

// TestSetsWithoutIDStillRead: a set written before set IDs (the first
// reference set, kept in testdata/format1) reads, and a writer appending
// to a copy gives it an ID that every file then carries.
func TestSetsWithoutIDStillRead(t *testing.T) {
	ref := filepath.Join("testdata", "format1")
	set, err := Read(ref)
	if err != nil {
		t.Fatal(err)
	}
	if set.ID != "" || len(set.Runs) == 0 {
		t.Fatalf("set before IDs: ID %q, %d runs", set.ID, len(set.Runs))
	}
	dir := t.TempDir()
	for _, name := range []string{SamplesFile, RunsFile, CalibrationFile, ProvenanceFile} {
		fulltest.CopyFile(t, filepath.Join(ref, name), filepath.Join(dir, name), 0o644)
	}
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := w.Begin(Invocation{Command: "calibrate", StartedAt: time.Now().UTC()})
	// Killed here: the journal (with the new ID) extends files without one.
	if _, err := Read(dir); err != nil {
		t.Errorf("journal with an ID over files without: %v", err)
	}
	if err := w.End(id, false); err != nil {
		t.Fatal(err)
	}
	w.Close()
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID == "" || got.ID != w.Set().ID || len(got.Runs) != len(set.Runs) {
		t.Errorf("upgraded set: ID %q (writer's %q), %d runs of %d", got.ID, w.Set().ID, len(got.Runs), len(set.Runs))
	}
}

// TestCalibrationJournalledOverAnOldSet: a set written before IDs had no
// calibration.parquet until calibrated; checks journalled into it read
// back before the compaction too.
func TestCalibrationJournalledOverAnOldSet(t *testing.T) {
	ref := filepath.Join("testdata", "format1")
	dir := t.TempDir()
	for _, name := range []string{SamplesFile, RunsFile, ProvenanceFile} {
		fulltest.CopyFile(t, filepath.Join(ref, name), filepath.Join(dir, name), 0o644)
	}
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	id, _ := w.Begin(Invocation{Command: "calibrate", StartedAt: time.Now().UTC()})
	if err := w.Calibration("native", []CalibrationCheck{{Environment: "native", Check: "sleep", Pass: true, Invocation: id}}, true); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Calibration) != 1 || got.Calibration[0].Environment != "native" {
		t.Errorf("journalled calibration over an old set: %+v", got.Calibration)
	}
}
