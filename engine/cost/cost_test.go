package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

var update = flag.Bool("update", false, "rewrite reference.json from results/reference")

// TestReferenceIsTheCommittedSet: the built-in costs are exactly what the
// committed reference set measured.
func TestReferenceIsTheCommittedSet(t *testing.T) {
	dir := filepath.Join("..", "..", ReferenceDir)
	set, err := results.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	// One point a line: short, and a re-measured set shows as a diff.
	var lines []string
	for _, p := range FromRuns(dir, set.Runs).Points {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	want := []byte("[\n" + strings.Join(lines, ",\n") + "\n]\n")
	if *update {
		if err := os.WriteFile("reference.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(want, referenceJSON) {
		t.Fatalf("engine/cost/reference.json is not what %s measured; after re-measuring the reference set, rewrite it with: go test ./engine/cost -run TestReferenceIsTheCommittedSet -update", ReferenceDir)
	}
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Points) != len(Reference().Points) || loaded.Source != dir || loaded.ID() != Reference().ID() || len(loaded.ID()) != 12 {
		t.Errorf("Load(%s): %d points from %q, ID %s; built in: %d, ID %s", dir, len(loaded.Points), loaded.Source, loaded.ID(), len(Reference().Points), Reference().ID())
	}
	if other := FromRuns("other", set.Runs[:len(set.Runs)/2]); other.ID() == loaded.ID() {
		t.Errorf("half the runs give the same ID %s", other.ID())
	}
}

func studyPlan(t *testing.T) *spec.RunPlan {
	t.Helper()
	p, err := spec.LoadPlan(filepath.Join("..", "..", "specs", "study.cue"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func cellOf(t *testing.T, p *spec.RunPlan, key string) spec.Cell {
	t.Helper()
	for _, c := range p.Cells {
		if c.Key() == key {
			return c
		}
	}
	t.Fatalf("no cell %s", key)
	return spec.Cell{}
}

// TestEstimatesFollowTheReference: the reference set measured every
// environment of the study, so every cell's estimate comes from its own
// environment and is positive; browsers cost more than native, the pause
// is added and the timeout caps.
func TestEstimatesFollowTheReference(t *testing.T) {
	m := Reference()
	p := studyPlan(t)
	for _, c := range p.Cells {
		if got, want := m.Basis(c), "environment"; got != want {
			t.Errorf("%s: estimated from %q, the reference set measured it", c.Key(), got)
		}
		if m.Process(c) <= c.Pause {
			t.Errorf("%s: %s per process, no more than its pause", c.Key(), m.Process(c))
		}
	}
	native := m.Process(cellOf(t, p, "native/sequential/1"))
	firefox := m.Process(cellOf(t, p, "emscripten-firefox/sequential/1"))
	if firefox < 100*native {
		t.Errorf("a Firefox process %s, a native one %s: want Firefox at least 100 times native", firefox, native)
	}
	c := cellOf(t, p, "native/sequential/1")
	c.Pause = time.Second
	if got := m.Process(c); got != native-p.Spec.Samples.Pause+time.Second {
		t.Errorf("a 1s pause: %s per process, want %s + 1s", got, native-p.Spec.Samples.Pause)
	}
	slow := cellOf(t, p, "manual-firefox/parallel/1000")
	slow.Timeout = 5 * time.Second
	if got := m.Process(slow); got != slow.Pause+5*time.Second {
		t.Errorf("timeout 5s: %s per process", got)
	}
	if got, want := m.Cell(c), time.Duration(c.Total())*m.Process(c); got != want {
		t.Errorf("cell %s, want processes × process = %s", got, want)
	}
	var total time.Duration
	for _, c := range p.Cells {
		total += m.Cell(c)
	}
	if m.Plan(p) != total || total < 10*time.Minute {
		t.Errorf("plan %s, cells sum to %s; the study took over 45 minutes", m.Plan(p), total)
	}
}

// TestInterpolation: n between measured ones lies between their costs,
// beyond the last it grows, an unmeasured environment falls back to its
// kind and an unknown kind to all kinds.
func TestInterpolation(t *testing.T) {
	m := Reference()
	p := studyPlan(t)
	at := func(key string, n int) time.Duration {
		c := cellOf(t, p, key)
		c.N = n
		return m.Process(c)
	}
	lo, mid, hi := at("wasi-threads-node/sequential/100", 100), at("wasi-threads-node/sequential/100", 550), at("wasi-threads-node/sequential/100", 1000)
	if !(lo < mid && mid < hi) {
		t.Errorf("n = 100, 550, 1000: %s, %s, %s: want increasing", lo, mid, hi)
	}
	if far := at("wasi-threads-node/sequential/100", 2000); far <= hi {
		t.Errorf("n = 2000: %s, no more than n = 1000's %s", far, hi)
	}
	c := cellOf(t, p, "wasi-threads-node/sequential/1")
	c.Env.Name = "renamed"
	if m.Basis(c) != "kind" || m.Process(c) <= 10*time.Millisecond {
		t.Errorf("an unmeasured wasi-threads-node environment: %s from %q", m.Process(c), m.Basis(c))
	}
	c.Env.Kind = "someday"
	if m.Basis(c) != "other kinds" || m.Process(c) <= 0 {
		t.Errorf("an unknown kind: %s from %q", m.Process(c), m.Basis(c))
	}
	c.Mode = "never-measured"
	if m.Basis(c) != "" || m.Process(c) != c.Pause+Unknown {
		t.Errorf("an unknown mode: %s from %q", m.Process(c), m.Basis(c))
	}
}

func TestLoadBadInput(t *testing.T) {
	empty := t.TempDir()
	_, err := Load(empty)
	var in *inputerr.Error
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "no result set there") {
		t.Errorf("Load(empty dir): %v", err)
	}
}
