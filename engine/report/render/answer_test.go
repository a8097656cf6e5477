package render

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"spawnbench/internal/fulltest"
	"strings"
	"testing"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

// TestTheAnswerIsWordedAboveTheBottomLine: the answer's sentence names
// the groups the model made (engine/report tests the grouping), each
// with what a spawn there starts.
func TestTheAnswerIsWordedAboveTheBottomLine(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.AnswerSet())
	text := BottomLineText(r)
	for _, want := range []string{
		"In wasm, cli and vm (an OS thread per spawn, as native's) a thread spawn costs ", "native's at the first spawn (n = 1)",
		"In workers (a new worker per spawn) it costs ", "In reuse (workers that Emscripten starts once and reuses) it costs ",
		"(1 row not judged at the first spawn: few.)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the answer does not say %q:\n%s", want, text)
		}
	}
}

// TestTheAnswerSaysWhatCooperativeThreadsAre: the row the model keeps
// apart is worded apart, with what its threads are.
func TestTheAnswerSaysWhatCooperativeThreadsAre(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.ApartAnswerSet())
	text := BottomLineText(r)
	for _, want := range []string{"In wasm (an OS thread per spawn", "In goro (a goroutine per spawn, which Go's scheduler runs on OS threads it already has: no OS thread of its own) it costs 1.", "In coop (the component model's own threads, switched on one OS thread: no thread starts and none runs in parallel) it costs 0."} {
		if !strings.Contains(text, want) {
			t.Errorf("the answer does not say %q:\n%s", want, text)
		}
	}
}

// figures are the answer's numbers, which shapeOf blanks.
var figures = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// shapeOf is the answer of the set with its numbers blanked.
func shapeOf(text string) string { return figures.ReplaceAllString(text, "#") }

// TestTheAnswerHasOneShape: a Wasmtime CLI at 13× native instead of 6×
// changes the answer's numbers, not its words.
func TestTheAnswerHasOneShape(t *testing.T) {
	t.Parallel()
	six := answerText(reporttest.Build(t, reporttest.AnswerSet()).BottomLine)
	scaled := reporttest.Build(t, reporttest.ScaledAnswerSet(13.0/6)).BottomLine
	thirteen := answerText(scaled)
	if g := scaled.Answer.Group(hostfacts.SpawnOSThread); six == thirteen || g == nil || g.First.High < 10 {
		t.Fatalf("the scaled set's CLI is not over 10× native:\n%s\n%s", six, thirteen)
	}
	if a, b := shapeOf(six), shapeOf(thirteen); a != b {
		t.Errorf("the answer changed shape with the CLI's ratio:\n%s\n%s", a, b)
	}
}

// TestTheAnswerHasOneShapeOnBothMachineKinds: the main job's committed
// set (AMD EPYC) and the Intel Xeon set in ../shared write answers of
// one shape, all but where the baseline itself is unstable or falls into
// clusters, which is theirs to say.
func TestTheAnswerHasOneShapeOnBothMachineKinds(t *testing.T) {
	t.Parallel()
	fulltest.Only(t, "reads two committed result sets whole and builds their reports")
	shared := os.Getenv("SPAWNBENCH_SHARED")
	if shared == "" {
		shared = filepath.Join(repoRoot(t), "..", "shared")
	}
	intel := filepath.Join(shared, "sets", "sequential-intel-xeon")
	if _, err := os.Stat(intel); err != nil {
		t.Skipf("the Intel Xeon set is absent (%v): put ../shared next to the repository or set SPAWNBENCH_SHARED", err)
	}
	var sets []*results.Set
	for _, dir := range []string{filepath.Join(repoRoot(t), "results", "sequential"), intel} {
		set, err := results.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, set)
	}
	// Like with like: the environments both sets measured (the main job
	// has gained hosts since the Intel set was measured).
	both := map[string]int{}
	for _, set := range sets {
		seen := map[string]bool{}
		for _, r := range set.Runs {
			if !seen[r.Environment] {
				seen[r.Environment] = true
				both[r.Environment]++
			}
		}
	}
	var shapes []string
	for i, set := range sets {
		set.Runs = slices.DeleteFunc(set.Runs, func(r results.ProcessRun) bool { return both[r.Environment] < 2 })
		set.Samples = slices.DeleteFunc(set.Samples, func(s results.SpawnSample) bool { return both[s.Environment] < 2 })
		dir := []string{"results/sequential", intel}[i]
		text := answerText(reporttest.Build(t, set).BottomLine)
		if !strings.Contains(text, "(an OS thread per spawn") || !strings.Contains(text, "(a new worker per spawn)") || !strings.Contains(text, "(workers that Emscripten starts once and reuses)") {
			t.Errorf("%s: the answer lacks a group:\n%s", dir, text)
		}
		for _, baselineSays := range []string{" The baseline, ", " Native's processes fall into two clusters"} {
			text, _, _ = strings.Cut(text, baselineSays)
		}
		shapes = append(shapes, shapeOf(text))
	}
	if shapes[0] != shapes[1] {
		t.Errorf("the answers differ in shape:\n%s\n%s", shapes[0], shapes[1])
	}
}
