package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"spawnbench/internal/fulltest"
	"strconv"
	"strings"
	"testing"
)

// TestProgressLinesWithoutATerminal runs with stdout and stderr
// redirected to a file, as under nohup: besides the line per finished
// cell, progress lines with processes done, cells finished, elapsed and
// ETA come at the interval (shortened here from 30 s) and at each tenth.
func TestProgressLinesWithoutATerminal(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	// Two processes a second apart: the tenths give two lines, the
	// interval the rest.
	p := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}]
modes: ["sequential"]
n: [1]
samples: {min: 2, processes: 1, pause: "1s"}
`)
	log, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), "run", p, "-o", "out", "--progress-every", "150ms")
	cmd.Dir = dir
	cmd.Env = sharedCache()
	cmd.Stdout, cmd.Stderr = log, log
	err = cmd.Run()
	log.Close()
	b, _ := os.ReadFile(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	re := regexp.MustCompile(`(?m)^progress: ([0-2])/2 processes \((\d+)%\), ([01])/1 cells finished, elapsed (\S+), ETA (\S+)$`)
	lines := re.FindAllStringSubmatch(string(b), -1)
	if len(lines) < 5 {
		t.Fatalf("%d progress lines in 2 s at 150 ms, want at least 5:\n%s", len(lines), b)
	}
	last := lines[len(lines)-1]
	if last[1] != "2" || last[2] != "100" || last[3] != "1" || last[5] != "0s" {
		t.Errorf("last progress line %q, want 2/2 processes, 1/1 cells, ETA 0s", last[0])
	}
	first := lines[0]
	if first[1] != "0" || first[5] == "0s" {
		t.Errorf("first progress line %q, want 0/2 done and an ETA above 0", first[0])
	}
	if !strings.Contains(string(b), "native") || !strings.Contains(string(b), "processes: 2 ok") {
		t.Errorf("no line for the finished cell:\n%s", b)
	}
	_, stderr, code := runCLI(t, "run", p, "-o", filepath.Join(dir, "out2"), "--progress-every", "0s")
	if code != 2 || !strings.Contains(stderr, "--progress-every 0s") {
		t.Errorf("--progress-every 0s: exit %d, %s", code, stderr)
	}
}

// TestPlanShowsExpectedTimes: plan prints each cell's expected time and
// the total, from the built-in costs or --costs DIR, and marks the cells
// it had to estimate from their kind.
func TestPlanShowsExpectedTimes(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	p := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}, {name: "mine", kind: "wasi-threads"}]
n: [1, 10]
samples: {min: 10, processes: 1}
`)
	// --wide: a sentence on one line, as the patterns below read it.
	stdout, stderr, code := runCLI(t, "plan", p, "--wide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	total := regexp.MustCompile(`4 cells, 22 processes, expected ([0-9.]+)(ms|s) (\(.*\) )?\(builds not included\)`).FindStringSubmatch(stdout)
	if total == nil || !strings.Contains(stdout, "EXPECTED") || !strings.Contains(stdout, "results/reference (built in)") {
		t.Fatalf("no expected times:\n%s", stdout)
	}
	if v, _ := strconv.ParseFloat(total[1], 64); v <= 0 {
		t.Errorf("expected total %s%s", total[1], total[2])
	}
	// "mine" is no environment of the reference set: estimated from its kind.
	if !regexp.MustCompile(`(?m)^mine .*s\*$`).MatchString(stdout) || regexp.MustCompile(`(?m)^native .*\*$`).MatchString(stdout) ||
		!strings.Contains(stdout, "* 2 cell(s)") {
		t.Errorf("want mine's cells marked as estimated from their kind, native's not:\n%s", stdout)
	}
	ref := filepath.Join(repoRoot(t), "results", "reference")
	stdout, stderr, code = runCLI(t, "plan", p, "--costs", ref, "--wide")
	if strings.Contains(stdout, "rescaled") {
		t.Errorf("--costs %s: rescaled, want the set's costs as measured:\n%s", ref, stdout)
	}
	if code != 0 || !strings.Contains(stdout, "expected times from "+ref) {
		t.Errorf("--costs %s: exit %d, %s\n%s", ref, code, stderr, stdout)
	}
	_, stderr, code = runCLI(t, "plan", p, "--costs", filepath.Join(dir, "nowhere"))
	if code != 2 || !strings.Contains(stderr, "no result set there") {
		t.Errorf("--costs nowhere: exit %d, %s", code, stderr)
	}
}

// TestPlanKnowsItsMachine: plan rescales the built-in costs by a probe of
// the machine and says so, with the range of its total; run says the same
// at its start, and afterwards plan rescales by the set that run measured
// here.
func TestPlanKnowsItsMachine(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	cache := ownCache(dir) // no probe kept by another test
	p := writeSpec(t, dir, `environments: [{name: "native", kind: "native"}]
n: [1]
samples: {min: 3, processes: 1}
`)
	total := regexp.MustCompile(`expected (\S+) \((\S+) to (\S+) as this machine's measurements spread\)`)
	// --wide: a sentence on one line, as the patterns below read it.
	stdout, stderr, code := runCLIWith(t, dir, cache, "plan", p, "--wide")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "expected times from results/reference (built in), rescaled ×") || !strings.Contains(stdout, "by a probe of this machine (") ||
		total.FindString(stdout) == "" || !strings.Contains(stderr, "probe: manual-node sequential n=1:") {
		t.Fatalf("plan does not say it rescaled by a probe, or gives no range:\n%s\n%s", stdout, stderr)
	}
	planned := total.FindStringSubmatch(stdout)[0]
	_, stderr, code = runCLIWith(t, dir, cache, "run", p, "-o", filepath.Join("results", "here"))
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	// The probe is kept: run expects what plan did.
	if !strings.Contains(stderr, "3 processes, "+planned) || strings.Contains(stderr, "probe:") {
		t.Errorf("run does not say plan's %q at its start:\n%s", planned, stderr)
	}
	stdout, stderr, code = runCLIWith(t, dir, cache, "plan", p, "--wide")
	if code != 0 || !strings.Contains(stdout, "by 1 result set(s) measured here (results/here: 3 processes)") {
		t.Errorf("plan after a run here: exit %d, want it rescaled by that set:\n%s%s", code, stdout, stderr)
	}
}

// TestMergeWarnsAboutShards: shards of one count split with different
// costs, or a shard left out, are named when merged.
func TestMergeWarnsAboutShards(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	specPath := writeSpec(t, dir, tinyFleetSpec)
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, args := range [][]string{
		{"--shard", "0/3", "-o", at("s0")},
		{"--shard", "1/3", "-o", at("s1")},
		{"--shard", "2/3", "-o", at("s2"), "--costs", at("s0")},
	} {
		if _, stderr, code := runCLI(t, append([]string{"run", specPath}, args...)...); code != 0 {
			t.Fatalf("run %v: exit %d: %s", args, code, stderr)
		}
	}
	_, stderr, _ := runCLI(t, "merge", "-o", at("m1"), at("s0"), at("s1"))
	if !strings.Contains(stderr, "WARNING: no shard 2/3 in the merge") || strings.Contains(stderr, "different costs") {
		t.Errorf("merging shards 0/3 and 1/3:\n%s", stderr)
	}
	_, stderr, _ = runCLI(t, "merge", "-o", at("m2"), at("s0"), at("s1"), at("s2"))
	if !strings.Contains(stderr, "WARNING: the shards of 3 were split with different costs") || strings.Contains(stderr, "no shard") {
		t.Errorf("merging shards split with different costs:\n%s", stderr)
	}
	// Resuming a shard with other costs would cut another shard.
	if _, stderr, code := runCLI(t, "run", specPath, "--shard", "2/3", "-o", at("s2"), "--resume"); code != 2 || !strings.Contains(stderr, "give the same --costs") {
		t.Errorf("resume with other costs: exit %d, %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "run", specPath, "--shard", "2/3", "-o", at("s2"), "--resume", "--costs", at("s0")); code != 0 {
		t.Errorf("resume with the same costs: exit %d, %s", code, stderr)
	}
}
