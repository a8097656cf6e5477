package main

import (
	"os"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"

	"spawnbench/engine/results"
)

// TestHelpTeachesTheWorkflow: the root help shows the workflow and the
// exit codes; every command a user types has an example; the internal
// wasmtime entry point is hidden from the list but still documented.
func TestHelpTeachesTheWorkflow(t *testing.T) {
	root, _, code := runCLI(t, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, want := range []string{"spawnbench run specs/quick.cue", "spawnbench report", "Exit status", "130", "bad input"} {
		if !strings.Contains(root, want) {
			t.Errorf("root help lacks %q:\n%s", want, root)
		}
	}
	if strings.Contains(root, "  wasmtime ") {
		t.Errorf("the internal wasmtime command is listed among the user commands:\n%s", root)
	}
	for _, c := range testRoot().Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		out, _, code := runCLI(t, c.Name(), "--help")
		if code != 0 || !strings.Contains(out, "Examples:") {
			t.Errorf("spawnbench %s --help: exit %d, no example:\n%s", c.Name(), code, out)
		}
	}
	if out, _, _ := runCLI(t, "version"); !strings.HasPrefix(out, "spawnbench ") {
		t.Errorf("spawnbench version printed %q", out)
	}
}

// TestQuickLookOverrides: a glob for --env and --processes/--n override
// the shipped spec for a quick look, and the provenance records them.
func TestQuickLookOverrides(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	spec := filepath.Join(repoRoot(t), "specs", "sequential.cue")
	// The Wasmtime CLIs .ci/setup links into the repository's bin/.
	withCLIs := append(sharedCache(), "PATH="+filepath.Join(repoRoot(t), "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	// "wasmtime-*6" picks the two CLI releases of the spec, not the other
	// wasmtime-* environments (the libc payload, the component model's
	// threads, the one-CPU and traced twins), which the override would
	// build, trace and run for nothing this test checks.
	_, stderr, code := runCLIWith(t, dir, withCLIs, "run", spec, "--env", "wasmtime-*6", "--processes", "2", "--n", "1,10", "-o", out)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	set, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	inv := set.Provenance.LastMeasuring()
	if inv == nil || inv.Overrides != "--processes 2 --n 1,10" {
		t.Fatalf("provenance overrides %+v", inv)
	}
	envs := map[string]bool{}
	for _, c := range inv.Planned {
		envs[c.Environment] = true
		if !strings.HasPrefix(c.Environment, "wasmtime-") || c.Processes != 2 || (c.N != 1 && c.N != 10) {
			t.Errorf("planned %+v: want wasmtime-* only, 2 processes, n 1 or 10", c)
		}
	}
	if !envs["wasmtime-46"] || !envs["wasmtime-36"] || len(envs) != 2 {
		t.Errorf("'wasmtime-*6' planned %v, want wasmtime-46 and wasmtime-36", envs)
	}
	measured := map[string]int{}
	for _, r := range set.Runs {
		if r.Status == results.StatusOK {
			measured[r.Environment]++
		}
	}
	if measured["wasmtime-46"] != 4 || measured["wasmtime-36"] != 4 {
		t.Errorf("ok processes %v, want 2 for each of n = 1 and 10 of wasmtime-46 and wasmtime-36", measured)
	}
	// The same directory resumes only with the same overrides.
	_, stderr, code = runCLIWith(t, dir, withCLIs, "run", spec, "--env", "wasmtime-*6", "--processes", "3", "-o", out, "--resume")
	if code != 2 || !strings.Contains(stderr, "--resume") {
		t.Errorf("resume with other overrides: exit %d, %s", code, stderr)
	}
	if _, stderr, code := runCLIWith(t, dir, withCLIs, "run", spec, "--env", "nothing-*", "-o", filepath.Join(dir, "none")); code != 2 || !strings.Contains(stderr, "matching that pattern") {
		t.Errorf("a pattern matching nothing: exit %d, %s", code, stderr)
	}
	if _, stderr, code := runCLIWith(t, dir, withCLIs, "run", spec, "--n", "0", "-o", filepath.Join(dir, "none")); code != 2 || !strings.Contains(stderr, "--n 0") {
		t.Errorf("--n 0: exit %d, %s", code, stderr)
	}
}

// TestCompareSeveralSets: compare takes two or more sets, each against
// the first, at the level asked for.
func TestCompareSeveralSets(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}]
n: [2]
samples: {min: 10, processes: 5}
`)
	var sets []string
	for _, name := range []string{"a", "b", "c"} {
		out := filepath.Join(dir, name)
		mustRun(t, "run", p, "-o", out)
		sets = append(sets, out)
	}
	stdout, stderr, code := runCLI(t, append(append([]string{"compare"}, sets...), "--alpha", "0.01", "--confidence", "0.99")...)
	if code != 0 || strings.Count(stdout, "# spawnbench compare") != 2 || !strings.Contains(stdout, "Change [99% CI]") || !strings.Contains(stdout, "α = 0.01") {
		t.Errorf("compare a b c --alpha 0.01: exit %d, %s\n%s", code, stderr, stdout)
	}
	js, _, code := runCLI(t, append(append([]string{"compare"}, sets...), "--format", "json")...)
	if code != 0 || !strings.Contains(js, `"comparisons"`) {
		t.Errorf("compare a b c --format json: exit %d:\n%.300s", code, js)
	}
}
