package render

import (
	"strings"
	"testing"
	"time"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

func TestClassicTextCountsFailedProcesses(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.CrashedSet(results.StatusCrashed, 1))
	c := r.Cell("native", "sequential", report.Column{N: 2})
	if got := ClassicText(c); got != "15.0 µs (1 crashed)" {
		t.Errorf("classic text %q, want %q", got, "15.0 µs (1 crashed)")
	}
	// Every process failed, though they printed spawns: the status, not a
	// number.
	c2 := reporttest.Build(t, reporttest.CrashedSet(results.StatusTimeout, 2)).Cell("native", "sequential", report.Column{N: 2})
	if got := ClassicText(c2); got != "timeout" {
		t.Errorf("all-failed cell: text %q, want \"timeout\"", got)
	}
}

func TestInvocationsAndIncompleteSetsAreShown(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance("", "")}
	reporttest.AddCell(s, reporttest.Cell{Env: "native", Mode: "sequential", N: 2, Processes: 2, SpawnNS: reporttest.US([][]float64{{1, 2}, {3, 4}})})
	first := &s.Provenance.Invocations[0]
	first.Interrupted = true
	first.Planned = []results.PlannedCell{
		{Environment: "native", Kind: "native", Mode: "sequential", N: 2, Processes: 2, Warmup: 1},
		{Environment: "native", Kind: "native", Mode: "sequential", N: 10, Processes: 2, Warmup: 1},
	}
	resumed := *first
	resumed.ID, resumed.Command, resumed.Interrupted = 2, "resume", false
	resumed.Args = []string{"./bin/spawnbench", "run", "specs/sequential.cue", "--resume"}
	resumed.StartedAt = reporttest.Start.Add(time.Hour)
	resumed.EndedAt = nil
	s.Provenance.Invocations = append(s.Provenance.Invocations, resumed)
	r := reporttest.Build(t, s)
	md := markdownOf(t, r)
	out := md.String()
	for _, want := range []string{
		"INCOMPLETE RESULT SET",
		"invocation 1 (run) was interrupted",
		"cell native/sequential/10 has 0 of 3 processes",
		"- invocation 1: `spawnbench run specs/sequential.cue`",
		"(**interrupted**)",
		"- invocation 2: `spawnbench run specs/sequential.cue --resume`",
		"(**never ended**)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out[:min(len(out), 2000)])
		}
	}
	cmp, err := report.Compare(report.Input{Dir: "old", Set: s}, report.Input{Dir: "new", Set: s}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md.Reset()
	if err := WriteComparison(cmp, md, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"INCOMPLETE RESULT SET", "old: invocation 1 (run) was interrupted", "new: cell native/sequential/10 has 0 of 3 processes",
		"- invocation 2: `spawnbench run specs/sequential.cue --resume`"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("compare lacks %q:\n%s", want, md.String())
		}
	}
	complete := reporttest.Build(t, reporttest.StatusSet())
	if len(complete.Incomplete) != 0 {
		t.Errorf("a complete set is reported incomplete: %q", complete.Incomplete)
	}
}
