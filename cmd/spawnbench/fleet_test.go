package main

import (
	"os"
	"path/filepath"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"

	"spawnbench/engine/results"
)

const tinyFleetSpec = `
environments: [{name: "native", kind: "native"}, {name: "native-o1", kind: "native", cflags: ["-O1"]}]
modes: ["sequential"]
n: [1, 2]
samples: {min: 2, processes: 1, pause: "1ms", warmup: 0}
schedule: seed: 3
`

// TestShardsMergeAndReport runs a tiny spec as two shards (one by flag,
// one by SPAWNBENCH_SHARD), merges them and reports the merged set, as
// deploy/ does; and the ways each step refuses bad input with exit 2.
func TestShardsMergeAndReport(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	dir := t.TempDir()
	specPath := writeSpec(t, dir, tinyFleetSpec)
	at := func(name string) string { return filepath.Join(dir, name) }
	if _, stderr, code := runCLI(t, "run", specPath, "--shard", "0/2", "-o", at("s0")); code != 0 {
		t.Fatalf("shard 0: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLIWith(t, dir, append(sharedCache(), "SPAWNBENCH_SHARD=1/2"), "run", specPath, "-o", "s1"); code != 0 {
		t.Fatalf("shard 1: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "merge", "-o", at("merged"), at("s0"), at("s1")); code != 0 || strings.Contains(stderr, "WARNING") {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	set, err := results.Read(filepath.Join(dir, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, inv := range set.Provenance.Invocations {
		if inv.Shard != nil {
			sources = append(sources, inv.Shard.String()+" "+inv.Shard.Source)
		}
	}
	if strings.Join(sources, ", ") != "0/2 --shard, 1/2 SPAWNBENCH_SHARD" {
		t.Errorf("merged shards: %v", sources)
	}
	if _, err := os.Stat(filepath.Join(dir, "merged", "report.md")); err != nil {
		t.Errorf("merge wrote no report: %v", err)
	}
	out, stderr, code := runCLI(t, "report", at("merged"))
	if code != 0 || !strings.Contains(out, "native-o1") || !strings.Contains(out, "Ratio to native") {
		t.Errorf("report of the merged set: exit %d: %s\n%s", code, stderr, out)
	}

	other := writeSpec(t, t.TempDir(), strings.Replace(tinyFleetSpec, "n: [1, 2]", "n: [3]", 1))
	if _, stderr, code := runCLI(t, "run", other, "-o", at("other")); code != 0 {
		t.Fatalf("other spec: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"shard past the count", nil, []string{"run", specPath, "--shard", "2/2", "-o", "x"}, "out of range"},
		{"malformed shard", nil, []string{"run", specPath, "--shard", "first", "-o", "x"}, "give K/N"},
		{"more shards than cells", nil, []string{"run", specPath, "--shard", "0/9", "-o", "x"}, "at most 4 shards"},
		{"index without count", []string{"JOB_COMPLETION_INDEX=1"}, []string{"run", specPath, "-o", "x"}, "--shards N"},
		{"resume as another shard", nil, []string{"run", specPath, "--shard", "1/2", "-o", "s0", "--resume"}, "same --shard"},
		{"one directory", nil, []string{"merge", "-o", "x", "s0"}, "at least two"},
		{"no -o", nil, []string{"merge", "s0", "s1"}, "-o OUT"},
		{"a shard twice", nil, []string{"merge", "-o", "x", "s0", "s0"}, "are the same result set"},
		{"mixed specs", nil, []string{"merge", "-o", "x", "s0", "other"}, "one spec only"},
		{"into an existing set", nil, []string{"merge", "-o", "merged", "s0", "s1"}, "already holds"},
		{"not a result set", nil, []string{"merge", "-o", "x", "s0", "nowhere"}, "does not exist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runCLIWith(t, dir, append(sharedCache(), c.env...), c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 2 with %q: %s", code, c.want, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
				t.Error("refused input left directory x")
			}
		})
	}
}
