package spec

import (
	"slices"
	"strings"
	"testing"
)

// The anatomy block adds, for each environment it names (a declared one
// or a one-CPU twin), a traced twin named NAME@traced, at the block's n
// and floor of processes, interleaved with the rest; only the twins are
// traced, and no twin is taken for a one-CPU twin; a name the spec lacks
// is refused with its line.
func TestTracedTwins(t *testing.T) {
	p := planOf(t, "a.cue", `environments: [
	{name: "native", kind: "native"},
	{name: "wasi-threads", kind: "wasi-threads", against: "native"},
]
n: [1, 10, 100]
placement: {one_cpu: ["native"], cpu: 0}
anatomy: {traced: ["native", "wasi-threads", "native@one-cpu"], n: [1, 100], processes: 7}
`)
	type got struct {
		n         []int
		cpus      []int
		processes int
		of        string
		against   string
		placeOf   string
	}
	twins := map[string]*got{}
	for _, c := range p.Cells {
		if !c.Env.Traced {
			if strings.HasSuffix(c.Env.Name, TracedSuffix) || c.Env.TracedOf != "" {
				t.Errorf("%s: named or marked as a traced twin, but not traced", c.Key())
			}
			continue
		}
		g := twins[c.Env.Name]
		if g == nil {
			g = &got{cpus: c.CPUs, processes: c.Floor, of: c.Env.TracedOf, against: c.Env.Against, placeOf: c.Env.PlacementOf}
			twins[c.Env.Name] = g
		}
		g.n = append(g.n, c.N)
	}
	for _, name := range []string{"native", "wasi-threads", "native@one-cpu"} {
		g := twins[TracedName(name)]
		if g == nil {
			t.Fatalf("no cells of %s (have %v)", TracedName(name), twins)
		}
		if !slices.Equal(g.n, []int{1, 100}) || g.processes != 7 || g.of != name || g.placeOf != "" {
			t.Errorf("%s: n %v, floor %d, of %q, placement of %q; want n [1 100], floor 7, of %s, placement of nothing", TracedName(name), g.n, g.processes, g.of, g.placeOf, name)
		}
	}
	if g := twins["native@one-cpu@traced"]; !slices.Equal(g.cpus, []int{0}) {
		t.Errorf("native@one-cpu@traced is pinned to %v, want its one-CPU twin's [0]", g.cpus)
	}
	if g := twins["native@traced"]; g.cpus != nil {
		t.Errorf("native@traced is pinned to %v, want native's none", g.cpus)
	}
	if a := twins["wasi-threads@traced"].against; a != "native@traced" {
		t.Errorf("wasi-threads@traced is set against %q, want native@traced", a)
	}
	_, err := Parse("q.cue", []byte(`environments: [{name: "native", kind: "native"}]
n: [1]
anatomy: traced: ["nativ"]
`))
	if err == nil || !strings.Contains(err.Error(), "q.cue:3:") || !strings.Contains(err.Error(), `anatomy.traced names "nativ"`) {
		t.Errorf("err = %v, want the anatomy block's line and the unknown name", err)
	}
}
