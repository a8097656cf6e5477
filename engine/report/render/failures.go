package render

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// failureLabel names the statuses of a cell whose processes all failed.
func failureLabel(failures map[string]int) string {
	var labels []string
	for _, st := range slices.Sorted(maps.Keys(failures)) {
		labels = append(labels, statusLabel(st))
	}
	return strings.Join(labels, "/")
}

// statusLabel spells a run status as the earlier study's tables did.
func statusLabel(status string) string {
	if status == results.StatusOOM {
		return "OOM"
	}
	return status
}

// writeFailures lists the processes that did not end ok, and the
// skipped environments.
func writeFailures(r *report.Report, b *strings.Builder) {
	var rows [][]string
	if len(r.Failures) > 0 {
		b.WriteString("## Failed processes\n\n")
		const shown = 30
		for i, f := range r.Failures {
			if i == shown {
				break
			}
			rows = append(rows, []string{f.Environment, f.Mode, strconv.Itoa(int(f.N)), strconv.Itoa(int(f.Process)),
				statusLabel(f.Status), strconv.Itoa(int(f.ExitCode)), f.Signal, truncate(f.Error, 120)})
		}
		mdTable(b, []string{"Environment", "Mode", "n", "Process", "Status", "Exit", "Signal", "Error (tail)"}, "llrrlrll", rows)
		if len(r.Failures) > shown {
			fmt.Fprintf(b, "… and %d more; see runs.parquet.\n\n", len(r.Failures)-shown)
		}
	}
	if len(r.Skipped) > 0 {
		b.WriteString("## Skipped environments\n\n")
		for _, env := range slices.Sorted(maps.Keys(r.Skipped)) {
			fmt.Fprintf(b, "- **%s**: %s\n", env, mdEscape(r.Skipped[env]))
		}
		b.WriteString("\n")
	}
}
