package spec_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spawnbench/engine/spec"
)

var updatePlans = flag.Bool("update", false, "rewrite testdata/shipped-plans.txt")

// newFields are the resolved fields that environments gained when they
// became payload x host, and root (engine/env/root.go), whose default,
// "system", is what every environment ran from before it; the plans are
// compared without them.
var newFields = []string{"payload", "host", "node_required_flags", "root"}

// TestShippedSpecsPlanAsBefore expands every shipped spec and wants its
// cells, environments' kinds and settings as they were before
// environments became payload x host (testdata/shipped-plans.txt), so
// existing specs mean what they meant.
func TestShippedSpecsPlanAsBefore(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "specs", "*.cue"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped specs: %v", err)
	}
	var b strings.Builder
	for _, f := range files {
		if filepath.Base(f) == "calibrate.cue" {
			continue // calibrate reads the shared list: see TestCalibrateCoversTheStudy
		}
		s, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		seed := int64(1)
		s.Schedule.Seed = &seed
		p, err := spec.Expand(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "== %s (%s)\n", filepath.Base(f), s.Name)
		for _, e := range s.Environments {
			var m map[string]any
			if err := json.Unmarshal(e.Resolved, &m); err != nil {
				t.Fatal(err)
			}
			for _, k := range newFields {
				delete(m, k)
			}
			js, _ := json.Marshal(m) // sorted keys
			fmt.Fprintf(&b, "env %s kind=%s %s\n", e.Name, e.Kind, js)
		}
		for _, c := range p.Cells {
			fmt.Fprintf(&b, "cell %s bench=%s arg=%d processes=%d warmup=%d pause=%s timeout=%s cpus=%v\n",
				c.Key(), c.Benchmark, c.Arg, c.Processes, c.Warmup, c.Pause, c.Timeout, c.CPUs)
		}
		fmt.Fprintf(&b, "steps %d\n", len(p.Schedule.Steps))
	}
	golden := filepath.Join("testdata", "shipped-plans.txt")
	if *updatePlans {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("shipped plans differ from %s at line %d:\n got: %s\nwant: %s", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("shipped plans differ from %s in length: %d lines, want %d", golden, len(gl), len(wl))
	}
}
