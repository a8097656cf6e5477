package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"spawnbench/engine/cost"
	"spawnbench/engine/spec"
	"strings"
	"testing"
)

// TestPlanJSONIsTheResolvedPlan: `plan --format json` prints every cell
// with what its processes need and the schedule; --seed replays an order.
func TestPlanJSONIsTheResolvedPlan(t *testing.T) {
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "a", kind: "native"}, {name: "w", kind: "wasi-threads"}]
n: [1, 10]
samples: {min: 10, processes: 1, pause: "5ms", warmup: 1}
pinning: cpus: [0]
`)
	type plan struct {
		Spec struct {
			Resolved struct {
				Schedule struct{ Order string }
			}
		}
		Cells []struct {
			Key, Benchmark, Pause, Timeout string
			Arg, Processes, Warmup         int
			CPUs                           []int
			Settings                       map[string]any
		}
		Schedule struct {
			Order string
			Seed  int64
			Steps []struct{ Seq, Cell, Process int }
		}
	}
	var runs [2]plan
	for i := range runs {
		stdout, stderr, code := runCLI(t, "plan", p, "--format", "json", "--seed", "9")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &runs[i]); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
	}
	got := runs[0]
	if len(got.Cells) != 4 || got.Schedule.Order != "interleave" || got.Schedule.Seed != 9 || got.Spec.Resolved.Schedule.Order != "interleave" {
		t.Fatalf("plan: %+v", got)
	}
	c := got.Cells[3]
	if c.Key != "w/sequential/10" || c.Benchmark != "sequential" || c.Arg != 10 || c.Processes != 1 || c.Warmup != 1 ||
		c.Pause != "5ms" || c.Timeout != "2m0s" || len(c.CPUs) != 1 || c.Settings["host_threads"] != "fresh" {
		t.Errorf("cell: %+v", c)
	}
	if len(got.Schedule.Steps) != 2*(10+1)+2*(1+1) {
		t.Errorf("%d steps", len(got.Schedule.Steps))
	}
	a, _ := json.Marshal(runs[0].Schedule.Steps)
	b, _ := json.Marshal(runs[1].Schedule.Steps)
	if string(a) != string(b) {
		t.Error("--seed 9 gave two orders")
	}
	stdout, _, code := runCLI(t, "plan", p, "--shards", "2")
	if code != 0 || len(regexp.MustCompile(`(?m)^shard [01]/2: \d+ cells, \d+ processes, expected \d`).FindAllString(stdout, -1)) != 2 ||
		!strings.Contains(stdout, "a/sequential/1") || !strings.Contains(stdout, "expected per shard from") {
		t.Errorf("--shards 2: exit %d\n%s", code, stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", p, "--seed", "-1"}, "--seed -1"},
		{[]string{"plan", p, "--format", "yaml"}, "--format"},
		{[]string{"plan", p, "--shards", "5"}, "at most 4 shards"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestSchemaCommandPrintsOneFile: the printed schema constrains the top
// level (the full agreement with cue vet is tested in engine/spec).
func TestSchemaCommandPrintsOneFile(t *testing.T) {
	stdout, stderr, code := runCLI(t, "schema")
	if code != 0 || !strings.Contains(stdout, "\n#Spec\n") || strings.Contains(stdout, "package ") {
		t.Errorf("exit %d, stderr %s\n%s", code, stderr, stdout)
	}
}

// TestDocsQuoteTheRealFiles: each file a docs page quotes ("`specs/x.cue`:"
// or "`engine/.../x.go`:", then a cue or go block) is quoted whole and as
// is, and the pages quote what they are about: docs/specs.md the main
// job's spec and the shared environments, docs/extending.md the two files
// of the Bun host.
func TestDocsQuoteTheRealFiles(t *testing.T) {
	root := repoRoot(t)
	intro := regexp.MustCompile("`((?:specs|engine)/[^`]+\\.(?:cue|go))`:$")
	for page, wants := range map[string][]string{
		"docs/specs.md":     {"specs/sequential.cue", "specs/shared/environments.cue"},
		"docs/extending.md": {"engine/spec/schema/host_bun.cue", "engine/env/host_bun.go"},
	} {
		f, err := os.Open(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		quoted := map[string]string{}
		var pending, block string
		inBlock := false
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case inBlock && line == "```":
				quoted[pending] = block
				inBlock, pending = false, ""
			case inBlock:
				block += line + "\n"
			case pending != "" && (line == "```cue" || line == "```go"):
				inBlock, block = true, ""
			case intro.MatchString(line):
				pending = intro.FindStringSubmatch(line)[1]
			}
		}
		f.Close()
		for _, want := range wants {
			if _, ok := quoted[want]; !ok {
				t.Errorf("%s does not quote %s", page, want)
			}
		}
		for file, text := range quoted {
			real, err := os.ReadFile(filepath.Join(root, file))
			if err != nil {
				t.Errorf("%s quotes %s: %v", page, file, err)
				continue
			}
			if strings.TrimSpace(text) != strings.TrimSpace(string(real)) {
				t.Errorf("%s's quote of %s differs from the file:\n%s\n---- file ----\n%s", page, file, text, real)
			}
		}
	}
}

func TestPlanTextNamesPinningsAndTheSamplePolicy(t *testing.T) {
	s, err := spec.Parse("p.cue", []byte(`environments: [
	{name: "spec-wide", kind: "native"},
	{name: "cpu0", kind: "native", pinning: cpus: [0]},
	{name: "free", kind: "native", pinning: cpus: []},
	{name: "slow", kind: "native", processes: 3},
]
n: [100]
pinning: cpus: [0]
samples: {processes: 12, precision: 0.05, adaptive: true, max_processes: 40, round: 4, budget: "30s"}
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := spec.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(planText(p, cost.Reference(), nil, false)), " ")
	for _, want := range []string{"pinning of cpu0: 0 ", "pinning of free: none ", "min processes 12,",
		"adaptive: rounds of 4 processes until the 95% interval is within ±5%, at most 40 processes and 30s of added rounds per cell"} {
		if !strings.Contains(text, want) {
			t.Errorf("plan text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "pinning of spec-wide") {
		t.Errorf("plan text names a pinning the environment does not have:\n%s", text)
	}
	// The environment's own floor: 3 processes, not the spec's 12
	// (n = 100 needs one for the 100 samples).
	for _, c := range p.Cells {
		if want := map[string]int{"slow": 3}[c.Env.Name]; want != 0 && c.Processes != want {
			t.Errorf("%s: %d processes, want its own floor %d", c.Env.Name, c.Processes, want)
		}
	}
}

// TestPlanRefusesAPairItsHostCannotRun: Emscripten 3.1.6's output on Bun
// or Deno is refused at plan (exit 2) with the host's reason and the hosts
// that run it, before anything is built or run.
func TestPlanRefusesAPairItsHostCannotRun(t *testing.T) {
	dir := t.TempDir()
	for host, why := range map[string]string{
		"bun":  "reads process.hrtime, which Bun counts from each worker's own start",
		"deno": "__filename is not defined",
	} {
		p := writeSpec(t, dir, `n: [1]
environments: [{name: "e", payload: "emscripten", host: "`+host+`"}]
`)
		wantRefused(t, []string{"plan", p}, "s.cue:2: environment \"e\": an Emscripten build cannot run on "+host+": ", why, "hosts that run it: chromium, firefox, node")
	}
}
