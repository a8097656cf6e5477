package render

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"spawnbench/engine/report"
	"spawnbench/engine/report/reporttest"
	"spawnbench/engine/results"
)

// TestCompareMarkdownListsDifferencesAboveTheChanges: the words of a
// comparison whose new set is twice as slow (the numbers are tested in
// engine/report).
func TestCompareMarkdownListsDifferencesAboveTheChanges(t *testing.T) {
	t.Parallel()
	old := reporttest.ScaledSet("native", 1, "gcc 12")
	slower := reporttest.ScaledSet("native", 2, "gcc 13")
	slower.Provenance.Invocations[0].SpecHash = "fedcba"
	cmp, err := report.Compare(report.Input{Dir: "old", Set: old}, report.Input{Dir: "new", Set: slower}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteComparison(cmp, &md, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	diffAt, tableAt := strings.Index(out, "## Provenance differences"), strings.Index(out, "## Typical spawn time")
	if diffAt < 0 || tableAt < diffAt {
		t.Errorf("provenance differences not listed above the table:\n%s", out)
	}
	if !strings.Contains(out, "| native | sequential | 100 | all |") || !strings.Contains(out, "| +100.0% [") {
		t.Errorf("comparison row missing:\n%s", out)
	}
}

func TestCompareCSVSaysNotSignificant(t *testing.T) {
	t.Parallel()
	a := reporttest.ScaledSet("native", 1, "gcc 12")
	cmp, err := report.Compare(report.Input{Dir: "a", Set: a}, report.Input{Dir: "b", Set: reporttest.ScaledSet("native", 1, "gcc 12")}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteComparison(cmp, &buf, FormatCSV); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 3 || rows[1][18] != "false" {
		t.Errorf("CSV = %v, %v; want a header and 2 rows, not significant", rows, err)
	}
}

func TestCompareMarkdownSaysHowManyFiguresStayedInside(t *testing.T) {
	t.Parallel()
	moved, err := report.Compare(report.Input{Dir: "a", Set: reporttest.ScaledWithWasm(1)}, report.Input{Dir: "b", Set: reporttest.ScaledWithWasm(1.5)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteComparison(moved, &md, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "**2 of 4** cells' new figures lie inside the old 95% interval") || !strings.Contains(md.String(), "0 of 2 ratios moved by at most 10%") {
		t.Errorf("compare markdown lacks the coverage lines:\n%s", md.String())
	}
}

func TestCompareMarkdownSaysWhenTheMachineMoved(t *testing.T) {
	t.Parallel()
	// Two environments, both 20% slower in the new set: every cell moved
	// one way.
	set := func(factor float64) *results.Set { return reporttest.ScaledSetPair(factor, factor) }
	text := func(cmp *report.Comparison) string {
		var md bytes.Buffer
		if err := WriteComparison(cmp, &md, FormatMarkdown); err != nil {
			t.Fatal(err)
		}
		return md.String()
	}
	moved, err := report.Compare(report.Input{Dir: "a", Set: set(1)}, report.Input{Dir: "b", Set: set(1.2)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out := text(moved); !strings.Contains(out, "**The machine moved**: the median cell changed by +20.0%, and 4 of 4 cells moved the same way") {
		t.Errorf("compare markdown lacks the machine's move:\n%s", out)
	}
	// Only one environment slower: half the cells moved, the machine did
	// not.
	one, err := report.Compare(report.Input{Dir: "a", Set: set(1)}, report.Input{Dir: "b", Set: reporttest.ScaledSetPair(1, 1.2)}, report.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text(one), "machine moved") {
		t.Errorf("one environment of two slower: median %v%%, %d same way, said the machine moved", one.MedianChangePct, one.SameWay)
	}
}
