package render

import (
	"strings"
	"testing"

	"spawnbench/engine/report/reporttest"
)

// TestBottomLineShowsTheOneCPUColumn: a set with one-CPU twins gets the
// "Threads on" column and the table of the same rows with the scheduler
// free (engine/report tests the one-CPU headline).
func TestBottomLineShowsTheOneCPUColumn(t *testing.T) {
	t.Parallel()
	r := reporttest.Build(t, reporttest.OneCPUSet(t))
	var sb strings.Builder
	if err := writeReportMarkdown(r, &sb, nil); err != nil {
		t.Fatal(err)
	}
	md := sb.String()
	if !strings.Contains(md, "### The same rows with the scheduler free") || !strings.Contains(md, "| one CPU |") {
		t.Errorf("the Markdown lacks the one-CPU column or the free table:\n%s", md)
	}
}
