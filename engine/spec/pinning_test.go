package spec

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An environment's own pinning replaces the spec's for its cells, so one
// spec compares pinnings; an empty one means none.
func TestEnvironmentPinningReplacesTheSpecs(t *testing.T) {
	p := planOf(t, "p.cue", `environments: [
	{name: "spec-wide", kind: "native"},
	{name: "cpu0", kind: "native", pinning: cpus: [0]},
	{name: "free", kind: "native", pinning: cpus: []},
]
n: [1]
pinning: cpus: [0]
`)
	got := map[string][]int{}
	for _, c := range p.Cells {
		got[c.Env.Name] = c.CPUs
	}
	if !slices.Equal(got["spec-wide"], []int{0}) || !slices.Equal(got["cpu0"], []int{0}) || got["free"] != nil {
		t.Errorf("cell pinnings %v, want spec-wide [0], cpu0 [0], free none", got)
	}
}

func TestEnvironmentPinningToAMissingCPUIsRefused(t *testing.T) {
	_, err := Parse("p.cue", []byte(`environments: [
	{name: "far", kind: "native", pinning: cpus: [1023]},
]
n: [1]
`))
	if err == nil || !strings.Contains(err.Error(), "p.cue:2:") || !strings.Contains(err.Error(), "pinning.cpus: CPU 1023 is not available") {
		t.Errorf("err = %v, want the environment's line and the missing CPU", err)
	}
}

// specs/placement.cue compares no pinning, one CPU and two CPUs for
// native threads and the embedded Wasmtime, sequential n = 100.
func TestThePlacementSpecComparesPinnings(t *testing.T) {
	s, err := Load(filepath.Join("..", "..", "specs", "placement.cue"))
	if err != nil && strings.Contains(err.Error(), "is not available on this machine") {
		t.Skipf("needs CPUs 0 and 1: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range s.Environments {
		got[e.Kind+" "+Pinning(s.CPUsOf(e))] = e.Name
	}
	for _, kind := range []string{"native", "wasi-threads"} {
		for _, pin := range []string{"none", "0", "0,1"} {
			if got[kind+" "+pin] == "" {
				t.Errorf("no %s environment pinned to %s (have %v)", kind, pin, got)
			}
		}
	}
	if len(s.Environments) != 6 || !slices.Equal(s.Modes, []string{"sequential"}) || !slices.Equal(s.N, []int{100}) {
		t.Errorf("%d environments, modes %v, n %v", len(s.Environments), s.Modes, s.N)
	}
}
