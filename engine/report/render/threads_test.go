package render

import (
	"strings"
	"testing"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

// TestGoroutineThreadsAreSaidBesideTheirRow: a host whose threads are
// goroutines (wazero) says so in its bottom-line row, in a note under the
// table, in its family's heading rows, in the JSON row and in the plain
// bottom line; native, whose threads are OS threads, says nothing of it.
func TestGoroutineThreadsAreSaidBesideTheirRow(t *testing.T) {
	t.Parallel()
	s := &results.Set{Provenance: reporttest.Provenance(`{}`, `{"native":"gcc 12.2.0","wazero":"wazero v1.12.0, compiler"}`)}
	families := map[string]string{"native": hostfacts.Native, "wazero": hostfacts.Wazero}
	for i, env := range []string{"native", "wazero"} {
		for _, n := range []int32{1, 100} {
			reporttest.AddCell(s, reporttest.Cell{Env: env, Mode: "sequential", N: n, Processes: 10,
				SpawnNS: reporttest.LognormalSpawns(40e3*float64(i+1), uint64(i)*1000+uint64(n))})
		}
	}
	for i := range s.Runs {
		s.Runs[i].Family = families[s.Runs[i].Environment]
	}
	r, err := report.Build([]report.Input{{Dir: "fixture", Set: s}}, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Write(r, &b, FormatMarkdown, nil); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	rows := tableRows(t, md, "## Bottom line")
	if len(rows) != 2 || rows[0][0] != hostfacts.Native || rows[1][0] != "wazero (threads are goroutines)" {
		t.Fatalf("bottom line rows %q, want native, then wazero saying its threads are goroutines", rows)
	}
	if !strings.Contains(md, "- wazero's threads are goroutines, not OS threads:") || strings.Contains(md, "native's threads are") {
		t.Errorf("the bottom line's note on wazero's goroutines is missing, or native has one:\n%s", md)
	}
	if !strings.Contains(md, "| **wazero (threads are goroutines)** |") {
		t.Errorf("the tables' wazero heading rows do not say its threads are goroutines:\n%s", md)
	}
	if bl := r.BottomLine; bl.Rows[0].Threads != "" || bl.Rows[1].Threads != hostfacts.Goroutines {
		t.Errorf("JSON rows' threads %q and %q, want \"\" and %q", bl.Rows[0].Threads, bl.Rows[1].Threads, hostfacts.Goroutines)
	}
	if text := BottomLineText(r); !strings.Contains(text, "(its threads are goroutines)") {
		t.Errorf("the plain bottom line does not say wazero's threads are goroutines:\n%s", text)
	}
}
