package spec

import (
	"strings"
	"testing"
	"time"
)

// The bottom_line block gives adaptive stopping to the cells it names and
// to no other: an environment's name covers it and its one-CPU twin, a
// twin's name the twin alone, and at n of views.minN or more the cell is
// judged on its last views.last spawns too.
func TestBottomLineAdaptsItsCellsAlone(t *testing.T) {
	p := planOf(t, "b.cue", `environments: [
	{name: "native", kind: "native"},
	{name: "wasi-threads", kind: "wasi-threads"},
	{name: "wamr", kind: "wamr"},
]
n: [1, 10, 100]
placement: {one_cpu: ["native", "wasi-threads"], n: [1, 100], cpu: 0}
bottom_line: {environments: ["native", "wasi-threads@one-cpu"], n: [1, 100], precision: 0.04, max_processes: 300, round: 7, budget: "9s"}
`)
	want := map[string]int{ // cell key: the Last it is judged on too, -1 for no adaptive stopping
		"native/sequential/1": 0, "native/sequential/10": -1, "native/sequential/100": 10,
		"native@one-cpu/sequential/1": 0, "native@one-cpu/sequential/100": 10,
		"wasi-threads/sequential/1": -1, "wasi-threads/sequential/100": -1,
		"wasi-threads@one-cpu/sequential/1": 0, "wasi-threads@one-cpu/sequential/100": 10,
		"wamr/sequential/1": -1, "wamr/sequential/100": -1,
	}
	seen := 0
	for _, c := range p.Cells {
		last, ok := want[c.Key()]
		if !ok {
			continue
		}
		seen++
		if last < 0 {
			if c.Adaptive != nil || c.Precision != 0.10 {
				t.Errorf("%s: adaptive %+v, precision %v; want none and the spec's 0.10", c.Key(), c.Adaptive, c.Precision)
			}
			continue
		}
		a := c.Adaptive
		if a == nil {
			t.Errorf("%s: no adaptive stopping; the bottom line names it", c.Key())
			continue
		}
		if c.Precision != 0.04 || a.MaxProcesses != 300 || a.Round != 7 || a.Budget != 9*time.Second || a.Last != last {
			t.Errorf("%s: precision %v, %+v; want 0.04, max 300, round 7, budget 9s, last %d", c.Key(), c.Precision, *a, last)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d cells looked for are in the plan", seen, len(want))
	}
}

// A name the spec does not declare is refused with its line, and an
// override of the processes (the quick look) turns the block off, as it
// does samples.adaptive: --processes 5 means five.
func TestBottomLineNamesTheSpecsEnvironments(t *testing.T) {
	_, err := Parse("b.cue", []byte(`environments: [{name: "native", kind: "native"}]
n: [1]
bottom_line: {environments: ["nativ"], n: [1]}
`))
	if err == nil || !strings.Contains(err.Error(), `bottom_line.environments names "nativ"`) || !strings.Contains(err.Error(), "b.cue:3") {
		t.Errorf("an unknown name gave %v, want an error naming it and b.cue:3", err)
	}
	s, err := Parse("b.cue", []byte(`environments: [{name: "native", kind: "native"}]
n: [1]
bottom_line: {environments: ["native"], n: [1]}
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.BottomLine == nil || s.BottomLine.Precision != 0.05 || s.BottomLine.Budget != 30*time.Second {
		t.Fatalf("bottom line %+v, want the schema's defaults (±5%%, 30s)", s.BottomLine)
	}
	if err := (Overrides{Processes: 5}).Apply(s); err != nil {
		t.Fatal(err)
	}
	p, err := Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Cells[0]; c.Adaptive != nil || c.Processes != 5 {
		t.Errorf("after --processes 5: adaptive %+v, %d processes; want none and 5", c.Adaptive, c.Processes)
	}
}

// A top-up corrects an allocation from an earlier set: without from it
// is refused with the block's line and the fix; with from it is parsed,
// and it is none by default.
func TestBottomLineTopUpNeedsFrom(t *testing.T) {
	_, err := Parse("b.cue", []byte(`environments: [{name: "native", kind: "native"}]
n: [1]
bottom_line: {environments: ["native"], n: [1], top_up: "30s"}
`))
	if err == nil || !strings.Contains(err.Error(), "bottom_line.top_up") || !strings.Contains(err.Error(), "give from") || !strings.Contains(err.Error(), "b.cue:3") {
		t.Errorf("a top-up without from gave %v, want an error naming bottom_line.top_up, b.cue:3 and the fix", err)
	}
	for src, want := range map[string]time.Duration{
		`bottom_line: {environments: ["native"], n: [1], from: "x", top_up: "45s"}`: 45 * time.Second,
		`bottom_line: {environments: ["native"], n: [1], from: "x"}`:                0,
	} {
		s, err := Parse("b.cue", []byte("environments: [{name: \"native\", kind: \"native\"}]\nn: [1]\n"+src+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if s.BottomLine.TopUp != want {
			t.Errorf("%s: top-up %s, want %s", src, s.BottomLine.TopUp, want)
		}
	}
}
