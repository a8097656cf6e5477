package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDefaultOutputFits100Columns: envs, plan, plan --shards and plan
// --precision print no line wider than 100 columns (runes, not bytes) by
// default, and say no less than --wide does: the same words, wrapped.
func TestDefaultOutputFits100Columns(t *testing.T) {
	fulltest.Only(t, "runs spawnbench over real processes")
	t.Parallel()
	sequential := filepath.Join(repoRoot(t), "specs", "sequential.cue")
	// Each command runs twice (by default and --wide), seconds of a CPU
	// each: envs, plan --precision and the plans of specs/sequential.cue
	// side by side. The two plans of specs/sequential.cue run one after
	// the other, as before: their expected times are rescaled by the
	// machine probe the package's cache keeps, which the first may make,
	// and each pair must read the same one.
	for _, c := range []struct {
		name  string
		lines [][]string
	}{
		{"envs", [][]string{{"envs"}}},
		{"plan", [][]string{{"plan", sequential, "--seed", "1"}, {"plan", "--shards", "4", sequential}}},
		{"plan --precision", [][]string{{"plan", "--precision", "0.05", "--from", filepath.Join(repoRoot(t), "results", "reference")}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, args := range c.lines {
				fitsAndSaysAsMuch(t, args)
			}
		})
	}
}

// fitsAndSaysAsMuch is TestDefaultOutputFits100Columns for one command
// line.
func fitsAndSaysAsMuch(t *testing.T, args []string) {
	stdout, stderr, code := runCLI(t, args...)
	if code != 0 {
		t.Errorf("%v: exit %d: %s", args, code, stderr)
		return
	}
	for _, out := range []string{stdout, stderr} {
		for i, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > textWidth {
				t.Errorf("%v: line %d is %d columns wide:\n%s", args, i+1, n, line)
			}
		}
	}
	wide, _, code := runCLI(t, append(args, "--wide")...)
	widest := 0
	for _, line := range strings.Split(wide, "\n") {
		widest = max(widest, utf8.RuneCountInString(line))
	}
	if code != 0 || widest <= textWidth {
		t.Errorf("%v --wide: exit %d, widest line %d columns; want the wide rows", args, code, widest)
	}
	// The same words, but for the columns the default leaves out:
	// plan's kind and payload of each cell, the install commands of
	// ready kinds.
	left := map[string]bool{}
	for _, line := range strings.Split(wide, "\n") {
		cols := columnGap.Split(strings.TrimSpace(line), -1)
		switch {
		case args[0] == "envs" && strings.HasPrefix(line, "KIND"):
			left[line] = true // the header of the wide columns
		case args[0] == "envs" && len(cols) == 6 && (cols[3] == "ready" || cols[5] == "-"):
			left[cols[5]] = true
		case args[0] == "plan" && len(cols) == 10:
			left[cols[1]], left[cols[2]] = true, true
		case len(args) > 1 && args[1] == "--precision" && strings.HasPrefix(line, "ENVIRONMENT"):
			left[line] = true
		case len(args) > 1 && args[1] == "--precision" && len(cols) == 8:
			left[cols[6]] = true // a process's wall time
		}
	}
	have := words(stdout)
	for _, w := range words(wide) {
		if !slices.Contains(have, w) && !leftOut(w, left) {
			t.Errorf("%v: %q is in --wide's output only", args, w)
		}
	}
}

// columnGap is what separates two columns of a table.
var columnGap = regexp.MustCompile(`\s{2,}`)

// words are the distinct words of s, brackets and a colon at the end
// aside.
func words(s string) []string {
	var out []string
	for _, w := range strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(s)) {
		w = strings.TrimSuffix(w, ":")
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// leftOut: w is a word of one of the cells the default leaves out.
func leftOut(w string, cells map[string]bool) bool {
	for c := range cells {
		if slices.Contains(words(c), w) {
			return true
		}
	}
	return false
}
