package run

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"spawnbench/engine/cost"
	"spawnbench/engine/inputerr"
	"spawnbench/engine/results"
	"spawnbench/engine/spec"
)

// TestMachineCostsProbeThenSetsMeasuredHere: with no set of this machine
// the model is rescaled by a probe, a small run of real processes whose
// walls it prints, kept so that the next command probes nothing; once a
// run here wrote a set into the directory of sets, that set rescales it
// instead, read through its cost summary.
func TestMachineCostsProbeThenSetsMeasuredHere(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	sets := filepath.Join(t.TempDir(), "results")
	s, err := spec.Parse("native.cue", []byte(`environments: [{name: "native", kind: "native"}]
n: [1]
samples: {min: 3, processes: 1, warmup: 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := spec.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	model := cost.Reference()
	var log bytes.Buffer
	probed := MachineCosts(context.Background(), model, plan, sets, testOptions().Cache, &log)
	walls := regexp.MustCompile(`probe: (manual-node|native) sequential n=1: \S+ \S+ \S+\n`)
	if !walls.MatchString(log.String()) || !strings.Contains(probed.Source, "rescaled ×") || !strings.Contains(probed.Source, "by a probe of this machine (3 ") {
		t.Fatalf("no probe of three processes:\n%s\nsource %q", log.String(), probed.Source)
	}
	if f, _, _ := probed.Machine().Factor(); f <= 0 || probed.Plan(plan) <= 0 {
		t.Errorf("probe's factor %v, plan %s", f, probed.Plan(plan))
	}
	if _, err := os.Stat(probeFile()); err != nil {
		t.Errorf("the probe is not kept: %v", err)
	}
	log.Reset()
	kept := MachineCosts(context.Background(), model, plan, sets, testOptions().Cache, &log)
	if strings.Contains(log.String(), "probe:") || kept.Source != probed.Source || kept.Plan(plan) != probed.Plan(plan) {
		t.Errorf("the kept probe was not used: %q, source %q, want %q", log.String(), kept.Source, probed.Source)
	}

	if err := runPlanInto(t, context.Background(), filepath.Join(sets, "here"), plan, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sets, "here", results.CostsFile)); err != nil {
		t.Fatalf("the run wrote no cost summary: %v", err)
	}
	if err := os.WriteFile(filepath.Join(sets, "here", results.SamplesFile), []byte("not read"), 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	here := MachineCosts(context.Background(), model, plan, sets, testOptions().Cache, &log)
	if want := "by 1 result set(s) measured here (" + filepath.Join(sets, "here") + ": 3 processes)"; !strings.Contains(here.Source, want) || log.Len() != 0 {
		t.Errorf("source %q, want it %s, and nothing said: %q", here.Source, want, log.String())
	}
	if got, want := here.Process(plan.Cells[0]), plan.Cells[0].Pause; got <= want {
		t.Errorf("a native process costs %s here, no more than its pause %s", got, want)
	}
}

// TestLoadCosts: --costs DIR is the set's cost summary as measured, and
// a directory without a set is bad input that says what to give.
func TestLoadCosts(t *testing.T) {
	t.Parallel()
	ref := filepath.Join("..", "..", cost.ReferenceDir)
	m, err := LoadCosts(ref)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID() != cost.Reference().ID() || m.Source != ref || m.Machine() != nil {
		t.Errorf("--costs %s: model %s from %q, the built-in one is %s", ref, m.ID(), m.Source, cost.Reference().ID())
	}
	_, err = LoadCosts(t.TempDir())
	var in *inputerr.Error
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "no result set there") {
		t.Errorf("--costs of an empty directory: %v", err)
	}
}
