package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenCases are command lines whose whole output is fixed by their
// inputs (committed result sets, the shipped specs, bad input), run
// in-process as benchstat's tests run benchstat: each golden file holds
// the exit status, standard output and standard error, with the
// repository's path written $ROOT. The sets are the smallest committed
// one, so the short run stays short: engine/report tests what a
// comparison and a design compute. go test -run TestCommandGoldens
// -update rewrites them.
var goldenCases = []struct {
	name string
	args []string
}{
	{"report-quick", []string{"report", "$ROOT/results/quick"}},
	{"report-quick-csv", []string{"report", "$ROOT/results/quick", "--format", "csv"}},
	{"compare-quick-itself", []string{"compare", "$ROOT/results/quick", "$ROOT/results/quick"}},
	// A path of fixed length: plan wraps its lines, and the clone's own
	// path would move where they wrap.
	{"plan-design", []string{"plan", "--precision", "0.05", "--from", "../../results/quick"}},
	{"schema", []string{"schema"}},
	{"no-command", []string{"frobnicate"}},
	{"near-command", []string{"reprot", "$ROOT/results/quick"}},
	{"near-flag", []string{"run", "$ROOT/specs/quick.cue", "--procesess", "3"}},
	{"other-command-flag", []string{"report", "$ROOT/results/quick", "--shard", "0/2"}},
	{"run-no-spec", []string{"run"}},
	{"run-no-such-spec", []string{"run", "$ROOT/specs/no-such.cue"}},
	{"report-no-set", []string{"report", "$ROOT/specs"}},
	{"report-bad-baseline", []string{"report", "$ROOT/results/quick", "--baseline", "wasm"}},
	{"report-bad-extension", []string{"report", "$ROOT/results/quick", "-o", "cells.xlsx"}},
	{"compare-one-set", []string{"compare", "$ROOT/results/quick"}},
	{"merge-one-set", []string{"merge", "-o", "$ROOT/nowhere", "$ROOT/results/quick"}},
	{"merge-no-out", []string{"merge", "$ROOT/results/occasions-a", "$ROOT/results/occasions-b"}},
	{"merge-into-a-set", []string{"merge", "-o", "$ROOT/results/occasions-a", "$ROOT/results/occasions-a", "$ROOT/results/occasions-b"}},
	{"plan-bad-precision", []string{"plan", "--precision", "2", "--from", "$ROOT/results/quick"}},
}

// TestCommandGoldens runs each golden case in-process and wants its exit
// status and output byte for byte as its golden file says.
func TestCommandGoldens(t *testing.T) {
	root, err := filepath.Abs(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "$ROOT", root)
			}
			stdout, stderr, code := runCLI(t, args...)
			got := fmt.Sprintf("$ spawnbench %s\nexit %d\n-- stdout --\n%s-- stderr --\n%s", strings.Join(c.args, " "), code, stdout, stderr)
			got = strings.ReplaceAll(got, root, "$ROOT")
			golden := filepath.Join("testdata", "golden", c.name+".txt")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Fatalf("differs from %s at line %d:\n got: %s\nwant: %s", golden, i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("differs from %s in length: %d lines, want %d", golden, len(gl), len(wl))
			}
		})
	}
}
