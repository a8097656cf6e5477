package spec_test

import (
	"path/filepath"
	"slices"
	"testing"

	"spawnbench"
	"spawnbench/engine/spec"
)

// TestCalibrateCoversTheStudy: the built-in calibrate spec (and the
// shipped file) calibrates every environment of the study, variants
// included, from the one shared list.
func TestCalibrateCoversTheStudy(t *testing.T) {
	study, err := spec.Load(filepath.Join("..", "..", "specs", "study.cue"))
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := spec.ParseBuiltin(spawnbench.BuiltinSpecs, "calibrate.cue", "specs/calibrate.cue (built in)")
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := spec.Load(filepath.Join("..", "..", "specs", "calibrate.cue"))
	if err != nil {
		t.Fatal(err)
	}
	names := func(s *spec.Spec) []string {
		var out []string
		for _, e := range s.Environments {
			if e.Placement == spec.PlaceOneCPU || e.Traced {
				continue // a twin's clock is its environment's
			}
			out = append(out, e.Name+"="+string(e.Resolved))
		}
		return out
	}
	want := names(study)
	for _, variant := range []string{"wasi-threads-pooled", "emscripten-pool", "wasmtime-36"} {
		if !slices.ContainsFunc(want, func(s string) bool { return len(s) > len(variant) && s[:len(variant)+1] == variant+"=" }) {
			t.Fatalf("the study lacks %s", variant)
		}
	}
	for _, s := range []*spec.Spec{builtin, shipped} {
		if got := names(s); !slices.Equal(got, want) {
			t.Errorf("%s calibrates %d environments, the study measures %d:\n%v\n%v", s.Path, len(got), len(want), got, want)
		}
		if s.Calibration == nil || s.Calibration.CoherenceN != 100 {
			t.Errorf("%s: calibration %+v", s.Path, s.Calibration)
		}
		if len(s.Imports) != 1 {
			t.Errorf("%s imports %v, want the shared package", s.Path, s.Imports)
		}
	}
}
