package render

import (
	"fmt"
	"slices"
	"strings"

	"spawnbench/engine/report"
)

// writeNotes renders the caveats of a report or a comparison.
func writeNotes(b *strings.Builder, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	b.WriteString("## Statistical notes\n\n")
	for _, w := range warnings {
		fmt.Fprintf(b, "- %s\n", w)
	}
	b.WriteString("\n")
}

// warningTexts are warnings in words, sorted and each said once.
func warningTexts(ws []report.Warning) []string {
	var out []string
	for _, w := range ws {
		var text string
		switch w.Kind {
		case report.WarnNoBaseline:
			text = fmt.Sprintf("baseline %q has no measurements in this report; no ratios", w.Baseline)
		case report.WarnNoTest:
			text = fmt.Sprintf("%s: fewer than %d processes on a side; no test", cellName(w.Cell), report.MinIntervalProcesses)
		default:
			text = w.Kind
		}
		if w.Machine != "" {
			text = "machine " + w.Machine + ": " + text
		}
		out = append(out, text)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// cellName names a cell in a sentence: environment, mode, n and view.
func cellName(c report.CellID) string {
	return fmt.Sprintf("%s %s n=%d %s", c.Environment, c.Mode, c.N, viewLabel(c.Last))
}

// viewLabel names a view: "all" or "last k".
func viewLabel(last int) string {
	if last == 0 {
		return "all"
	}
	return fmt.Sprintf("last %d", last)
}

// orDash is s, or a dash where s is blank.
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

// cellNames names each of cells.
func cellNames(cells []report.CellID) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = cellName(c)
	}
	return out
}
