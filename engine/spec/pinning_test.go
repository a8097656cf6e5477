package spec

import (
	"slices"
	"strings"
	"testing"
)

// An environment's own pinning replaces the spec's for its cells, so one
// spec compares pinnings; an empty one means none.
func TestEnvironmentPinningReplacesTheSpecs(t *testing.T) {
	s, err := Parse("p.cue", []byte(`environments: [
	{name: "spec-wide", kind: "native"},
	{name: "cpu0", kind: "native", pinning: cpus: [0]},
	{name: "free", kind: "native", pinning: cpus: []},
]
n: [1]
pinning: cpus: [0]
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]int{}
	for _, c := range p.Cells {
		got[c.Env.Name] = c.CPUs
	}
	if !slices.Equal(got["spec-wide"], []int{0}) || !slices.Equal(got["cpu0"], []int{0}) || got["free"] != nil {
		t.Errorf("cell pinnings %v, want spec-wide [0], cpu0 [0], free none", got)
	}
	if text := p.String(); !strings.Contains(text, "pinning of cpu0: 0\n") || !strings.Contains(text, "pinning of free: none\n") || strings.Contains(text, "pinning of spec-wide") {
		t.Errorf("plan text does not name the environments' own pinnings:\n%s", text)
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
