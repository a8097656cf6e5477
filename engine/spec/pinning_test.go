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

// The placement block adds, for each environment it names, a twin named
// NAME@one-cpu pinned to one CPU, at the block's n and floor of
// processes, divided in reports by the baseline's twin; a name the spec
// lacks is refused with its line.
func TestOneCPUTwins(t *testing.T) {
	p := planOf(t, "p.cue", `environments: [
	{name: "native", kind: "native"},
	{name: "wasi-threads", kind: "wasi-threads"},
	{name: "wasi-libc", kind: "wasi-libc", against: "wasi-threads"},
]
n: [1, 10, 100]
placement: {one_cpu: ["native", "wasi-threads", "wasi-libc"], n: [1, 100], processes: 30, cpu: 0}
`)
	type got struct {
		n         []int
		cpus      []int
		processes int
		of        string
		against   string
	}
	twins := map[string]*got{}
	for _, c := range p.Cells {
		if c.Env.Placement != PlaceOneCPU {
			if c.Env.Placement != PlaceFree || c.Env.PlacementOf != "" || c.CPUs != nil {
				t.Errorf("%s: placement %q of %q, pinning %v; want free, of nothing, unpinned", c.Key(), c.Env.Placement, c.Env.PlacementOf, c.CPUs)
			}
			continue
		}
		g := twins[c.Env.Name]
		if g == nil {
			g = &got{cpus: c.CPUs, processes: c.Floor, of: c.Env.PlacementOf, against: c.Env.Against}
			twins[c.Env.Name] = g
		}
		g.n = append(g.n, c.N)
	}
	for _, name := range []string{"native", "wasi-threads", "wasi-libc"} {
		g := twins[OneCPUName(name)]
		if g == nil {
			t.Fatalf("no cells of %s (have %v)", OneCPUName(name), twins)
		}
		if !slices.Equal(g.n, []int{1, 100}) || !slices.Equal(g.cpus, []int{0}) || g.processes != 30 || g.of != name {
			t.Errorf("%s: n %v, cpus %v, floor %d, of %q; want n [1 100], cpus [0], floor 30, of %s", OneCPUName(name), g.n, g.cpus, g.processes, g.of, name)
		}
	}
	if a := twins["wasi-libc@one-cpu"].against; a != "wasi-threads@one-cpu" {
		t.Errorf("wasi-libc@one-cpu is set against %q, want its baseline's twin wasi-threads@one-cpu", a)
	}
	_, err := Parse("q.cue", []byte(`environments: [{name: "native", kind: "native"}]
n: [1]
placement: one_cpu: ["nativ"]
`))
	if err == nil || !strings.Contains(err.Error(), "q.cue:3:") || !strings.Contains(err.Error(), `placement.one_cpu names "nativ"`) {
		t.Errorf("err = %v, want the placement block's line and the unknown name", err)
	}
}
