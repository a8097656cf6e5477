package spec

import (
	"strings"
	"testing"
)

// An environment's own n replaces the spec's for its cells, so one run
// can measure a slow host at small n only; a repeated n is refused as in
// the spec's list.
func TestEnvironmentNReplacesTheSpecs(t *testing.T) {
	p := planOf(t, "n.cue", `environments: [
	{name: "every", kind: "native"},
	{name: "small", kind: "manual-node", n: [1, 10]},
]
n: [1, 10, 100, 1000]
`)
	got := map[string][]int{}
	for _, c := range p.Cells {
		got[c.Env.Name] = append(got[c.Env.Name], c.N)
	}
	if len(got["every"]) != 4 || len(got["small"]) != 2 || got["small"][1] != 10 {
		t.Errorf("cells' n %v, want every at 1, 10, 100, 1000 and small at 1, 10", got)
	}
	_, err := Parse("n.cue", []byte(`environments: [{name: "twice", kind: "native", n: [10, 10]}]
n: [1]
`))
	if err == nil || !strings.Contains(err.Error(), "n") {
		t.Errorf("a repeated n gave %v, want an error naming n", err)
	}
}

// against must name another environment of the spec: a typo is an input
// error that names it, not a report without its ratios.
func TestAgainstNamesAnotherEnvironment(t *testing.T) {
	s, err := Parse("a.cue", []byte(`environments: [
	{name: "base", kind: "native"},
	{name: "other", kind: "native", cflags: ["-O0"], against: "base"},
]
n: [1]
`))
	if err != nil || s.Environments[1].Against != "base" {
		t.Fatalf("against base: %v, %+v", err, s)
	}
	for against, want := range map[string]string{"bsae": `set against "bsae", which the spec does not declare`, "other": "set against itself"} {
		_, err := Parse("a.cue", []byte(`environments: [
	{name: "base", kind: "native"},
	{name: "other", kind: "native", against: "`+against+`"},
]
n: [1]
`))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("against %q gave %v, want %q", against, err, want)
		}
	}
}

// An environment's own min replaces the spec's: 10 spawns at n = 1 are
// 10 processes, not the spec's 100.
func TestEnvironmentMinReplacesTheSpecs(t *testing.T) {
	p := planOf(t, "m.cue", `environments: [
	{name: "spec-wide", kind: "native"},
	{name: "few", kind: "manual-node", min: 10, processes: 3},
]
n: [1, 10]
samples: {min: 100, processes: 10}
`)
	got := map[string][]int{}
	for _, c := range p.Cells {
		got[c.Env.Name] = append(got[c.Env.Name], c.Processes)
	}
	if got["spec-wide"][0] != 100 || got["spec-wide"][1] != 10 || got["few"][0] != 10 || got["few"][1] != 3 {
		t.Errorf("processes per cell %v, want spec-wide 100 and 10, few 10 and 3", got)
	}
}
