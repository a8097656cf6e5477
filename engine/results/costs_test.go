package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/protocol"
)

// writeCostSet writes, through a Writer, a set of two machines' processes:
// native (three processes, one of them failed, one that never started),
// a warm and a cold Chromium environment, a warm-up; it returns the
// machines' IDs.
func writeCostSet(t *testing.T, dir string) (a, b string) {
	t.Helper()
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	resolved := json.RawMessage(`{"environments": [{"name": "native"}, {"name": "manual", "browser_start": "warm"}, {"name": "manual-cold", "browser_start": "cold"}]}`)
	ma, mb := Machine{Hostname: "a", CPUModel: "x", Cores: 2}, Machine{Hostname: "b", CPUModel: "x", Cores: 2}
	ma.ID, mb.ID = ma.Identity(), mb.Identity()
	for _, m := range []Machine{ma, mb} {
		inv, err := w.Begin(Invocation{Command: "run", Machine: m, Resolved: resolved, StartedAt: time.Now().UTC()})
		if err != nil {
			t.Fatal(err)
		}
		add := func(env, kind, host string, process int32, warmup bool, status string, wallMS int64) {
			t.Helper()
			run := ProcessRun{Environment: env, Kind: kind, Host: host, Mode: "sequential", N: 1, Process: process, Warmup: warmup, Status: status,
				WallNS: wallMS * 1e6, Invocation: inv, Machine: m.ID, StartedAt: time.Now().UTC()}
			var spawns []protocol.Line
			if status == StatusOK {
				spawns = []protocol.Line{{SpawnNS: 50_000}}
			}
			if err := w.Process(run, spawns); err != nil {
				t.Fatal(err)
			}
		}
		scale := int64(1)
		if m == mb {
			scale = 2
		}
		add("native", "native", "os", 0, true, StatusOK, 9*scale)
		add("native", "native", "os", 0, false, StatusOK, 3*scale)
		add("native", "native", "os", 1, false, StatusFailed, 5*scale)
		add("native", "native", "os", 2, false, StatusError, 0)
		add("manual", "manual", "chromium", 0, false, StatusOK, 300*scale)
		add("manual-cold", "manual", "chromium", 0, false, StatusOK, 700*scale)
		if err := w.End(inv, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return ma.ID, mb.ID
}

// TestCostsRoundTrip: a set written through a Writer has a costs.json of
// its ID and generation that reads back as the summary of its runs: per
// machine and cell the processes with a wall time (the warm-up and the
// failed one included, the one that never started not) and their median,
// a browser's start as its spec resolved it.
func TestCostsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a, b := writeCostSet(t, dir)
	set, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadCosts(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Set != set.ID || got.Generation != set.Generation || got.Format != costsFormat {
		t.Errorf("costs of set %s generation %d format %d; the set is %s generation %d", got.Set, got.Generation, got.Format, set.ID, set.Generation)
	}
	var onA []CellCost
	for _, c := range got.Cells {
		if c.Machine == a {
			onA = append(onA, c)
		}
	}
	want := []CellCost{
		{Machine: a, Kind: "manual", Environment: "manual", Host: "chromium", Mode: "sequential", Start: hostfacts.Warm, N: 1, Processes: 1, MedianWallNS: 300e6},
		{Machine: a, Kind: "manual", Environment: "manual-cold", Host: "chromium", Mode: "sequential", Start: hostfacts.Cold, N: 1, Processes: 1, MedianWallNS: 700e6},
		{Machine: a, Kind: "native", Environment: "native", Host: "os", Mode: "sequential", N: 1, Processes: 3, MedianWallNS: 5e6},
	}
	if !reflect.DeepEqual(onA, want) {
		t.Errorf("machine a's cells:\n%+v\nwant\n%+v", onA, want)
	}
	if only, err := ReadCosts(dir, b); err != nil || len(only.Cells) != 3 || only.Cells[2].MedianWallNS != 10e6 {
		t.Errorf("machine b's cells: %+v, %v", only.Cells, err)
	}
	if !reflect.DeepEqual(got, CostsOf(set)) {
		t.Errorf("costs.json reads as\n%+v\nthe set summarizes as\n%+v", got, CostsOf(set))
	}
	// The file is the summary of the set as it is now: a summary of
	// another generation is not read.
	b1, _ := os.ReadFile(filepath.Join(dir, CostsFile))
	var onDisk Costs
	if err := json.Unmarshal(b1, &onDisk); err != nil || !reflect.DeepEqual(onDisk, got) {
		t.Errorf("costs.json does not parse as what ReadCosts gave: %v", err)
	}
	stale := onDisk
	stale.Generation--
	stale.Cells = stale.Cells[:1]
	if err := os.WriteFile(filepath.Join(dir, CostsFile), stale.Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := ReadCosts(dir, ""); err != nil || !reflect.DeepEqual(again, got) {
		t.Errorf("a stale costs.json was read: %d cells, %v", len(again.Cells), err)
	}
}

// TestCostsOfAnOldSetComeFromItsRuns: a set written before costs.json is
// summarized from runs.parquet alone (its samples unreadable here, to
// show they are not read), as a set with the file is; asked for one
// machine, a set that machine never measured is not read at all.
func TestCostsOfAnOldSetComeFromItsRuns(t *testing.T) {
	dir := t.TempDir()
	a, _ := writeCostSet(t, dir)
	withFile, err := ReadCosts(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, CostsFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, SamplesFile), []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := ReadCosts(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(old, withFile) {
		t.Errorf("from runs.parquet:\n%+v\nfrom costs.json:\n%+v", old, withFile)
	}
	if onA, err := ReadCosts(dir, a); err != nil || len(onA.Cells) != 3 {
		t.Errorf("machine a: %d cells, %v", len(onA.Cells), err)
	}
	if err := os.WriteFile(filepath.Join(dir, RunsFile), []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	if elsewhere, err := ReadCosts(dir, "another machine"); err != nil || len(elsewhere.Cells) != 0 || elsewhere.Set != withFile.Set {
		t.Errorf("a machine that measured nothing here: %+v, %v; want no cells, runs.parquet unread", elsewhere, err)
	}
	if _, err := ReadCosts(t.TempDir(), ""); err == nil {
		t.Error("an empty directory has costs")
	}
}

// TestCostsOfTheCommittedSets: the committed sets, written before
// costs.json, are summarized from their runs as CostsOf summarizes them
// read whole.
func TestCostsOfTheCommittedSets(t *testing.T) {
	for _, name := range []string{"reference", "quick"} {
		dir := filepath.Join("..", "..", "results", name)
		set, err := Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadCosts(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if want := CostsOf(set); !reflect.DeepEqual(got, want) || len(got.Cells) < 10 {
			t.Errorf("%s: %d cells from runs.parquet, %d from the set read whole", name, len(got.Cells), len(want.Cells))
		}
	}
}
