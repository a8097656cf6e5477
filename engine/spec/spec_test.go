package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"spawnbench/engine/inputerr"
)

func TestShippedSpecsReproduceTheStudyMatrix(t *testing.T) {
	for _, name := range []string{"sequential", "parallel"} {
		s, err := Load(filepath.Join("..", "..", "specs", name+".cue"))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Modes; len(got) != 1 || got[0] != name {
			t.Errorf("%s: modes = %v", name, got)
		}
		if s.Samples.Min != 100 || s.Samples.Pause != 10*time.Millisecond || s.Views.Last != 10 || s.Views.MinN != 100 {
			t.Errorf("%s: samples %+v views %+v", name, s.Samples, s.Views)
		}
		plan, err := Expand(s, []string{"native"})
		if err != nil {
			t.Fatal(err)
		}
		want := map[int]int{1: 100, 10: 10, 100: 1, 1000: 1}
		if len(plan.Cells) != len(want) {
			t.Fatalf("%s: %d cells, want %d", name, len(plan.Cells), len(want))
		}
		for _, c := range plan.Cells {
			if c.Processes != want[c.N] || c.Samples() < 100 {
				t.Errorf("%s n=%d: %d processes (%d samples), want %d", name, c.N, c.Processes, c.Samples(), want[c.N])
			}
		}
		kinds := map[string]bool{}
		for _, e := range s.Environments {
			kinds[e.Kind] = true
		}
		for _, k := range []string{"native", "wasi-threads", "emscripten", "manual"} {
			if !kinds[k] {
				t.Errorf("%s: no %s environment", name, k)
			}
		}
	}
}

func TestDefaultsComeFromTheSchema(t *testing.T) {
	s, err := Parse("d.cue", []byte(`environments: [{name: "a", kind: "native"}]
n: [1, 3]`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Samples.Min != 100 || s.Timeout != 120*time.Second || len(s.Modes) != 1 || s.Name != "d" {
		t.Errorf("defaults: %+v timeout %s modes %v name %q", s.Samples, s.Timeout, s.Modes, s.Name)
	}
	if got := string(s.Environments[0].Settings); !strings.Contains(got, `"cc":"gcc"`) || !strings.Contains(got, `"-O2"`) {
		t.Errorf("native settings = %s", got)
	}
	plan, _ := Expand(s, nil)
	if plan.Cells[1].N != 3 || plan.Cells[1].Processes != 34 {
		t.Errorf("n=3 cell = %+v, want ceil(100/3) = 34 processes", plan.Cells[1])
	}
}

func TestVariantInCUEAlone(t *testing.T) {
	s, err := Parse("v.cue", []byte(`environments: [{name: "native-clang", kind: "native", cc: "clang-16", cflags: ["-O2"]}]
n: [1]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.Environments[0].Settings); !strings.Contains(got, `"cc":"clang-16"`) {
		t.Errorf("settings = %s", got)
	}
}

// TestBadInput checks that each kind of bad spec is an InputError that
// names the file, the line where one applies, and what to do.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"malformed", "environments: [{name: \"a\", kind: \"native\"}\nn: [1]\n", []string{"bad.cue:2:", "not valid CUE"}},
		{"unknown field", "environments: [{name: \"a\", kind: \"native\"}]\nn: [1]\nsampels: {min: 3}\n", []string{"bad.cue:3:", "sampels", "not allowed"}},
		{"unknown env field", "environments: [{name: \"a\", kind: \"native\", cxx: \"g++\"}]\nn: [1]\n", []string{"bad.cue:1:", "cxx", "not allowed"}},
		{"unknown kind", "environments: [\n{name: \"a\", kind: \"wasmer\"}]\nn: [1]\n", []string{"bad.cue:2", `unknown kind "wasmer"`, "native", "spawnbench envs"}},
		{"n zero", "environments: [{name: \"a\", kind: \"native\"}]\nn: [1, 0]\n", []string{"bad.cue:2:", "out of bound >0"}},
		{"n negative", "environments: [{name: \"a\", kind: \"native\"}]\nn: [-4]\n", []string{"bad.cue:2:", ">0"}},
		{"min zero", "environments: [{name: \"a\", kind: \"native\"}]\nn: [1]\nsamples: min: 0\n", []string{"bad.cue:3:", "min", ">0"}},
		{"no environments", "environments: []\nn: [1]\n", []string{"bad.cue", "environments"}},
		{"bad duration", "environments: [{name: \"a\", kind: \"native\"}]\nn: [1]\nlimits: timeout: \"soon\"\n", []string{"bad.cue:3:", "timeout"}},
		{"cpu missing", "environments: [{name: \"a\", kind: \"native\"}]\nn: [1]\npinning: cpus: [4095]\n", []string{"bad.cue:3", "CPU 4095 is not available", "available:"}},
		{"duplicate name", "environments: [{name: \"a\", kind: \"native\"}, {name: \"a\", kind: \"native\"}]\nn: [1]\n", []string{"bad.cue:1", `"a" is used twice`}},
		{"wrong type", "environments: [{name: \"a\", kind: \"native\", cc: 3}]\nn: [1]\n", []string{"bad.cue:1:", "cc"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.cue", []byte(c.src))
			var in *inputerr.Error
			if !errors.As(err, &in) {
				t.Fatalf("err = %v (%T), want *inputerr.Error", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%s", w, err)
				}
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.cue"))
	var in *inputerr.Error
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "nope.cue: no such file") {
		t.Fatalf("err = %v", err)
	}
}

func TestUnknownEnvFlag(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.cue")
	os.WriteFile(p, []byte(`environments: [{name: "a", kind: "native"}, {name: "b", kind: "native"}]
n: [1]`), 0o644)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Expand(s, []string{"c"})
	var in *inputerr.Error
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "--env c") || !strings.Contains(err.Error(), "a, b") {
		t.Fatalf("err = %v", err)
	}
	plan, err := Expand(s, []string{"b"})
	if err != nil || len(plan.Cells) != 1 || plan.Cells[0].Env.Name != "b" {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
}

func TestPinnedCPUsAccepted(t *testing.T) {
	s, err := Parse("p.cue", []byte(`environments: [{name: "a", kind: "native"}]
n: [1]
pinning: cpus: [0]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.CPUs) != 1 || s.CPUs[0] != 0 {
		t.Errorf("cpus = %v", s.CPUs)
	}
}

// TestNestedSettingsKeepTheirDefaults: a kind whose settings nest a struct
// takes a spec that sets only part of it (calibration is such a struct).
func TestNestedSettingsKeepTheirDefaults(t *testing.T) {
	s, err := Parse("n.cue", []byte(`environments: [{name: "a", kind: "native"}]
n: [1]
calibration: tolerance: relative: 0.25`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Calibration.RelativeTolerance != 0.25 || s.Calibration.AbsoluteTolerance != 5*time.Millisecond || s.Calibration.Repeats != 3 {
		t.Errorf("calibration = %+v", s.Calibration)
	}
}
