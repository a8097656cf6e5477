package render

import (
	"fmt"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// writePlacement lists the placement shares of the cells that record
// them.
func writePlacement(r *report.Report, b *strings.Builder) {
	var rows [][]string
	for _, c := range r.Cells {
		if len(c.Placements) == 0 {
			continue
		}
		row := []string{c.Environment, c.Mode, strconv.Itoa(int(c.N)), viewLabel(c.Last)}
		var same, other string = "—", "—"
		for _, p := range c.Placements {
			text := fmt.Sprintf("%.0f%%: %s", 100*float64(p.Share), estimateText(&p.Estimate))
			switch p.Placement {
			case results.SameCPU:
				same = text
			case results.OtherCPU:
				other = text
			}
		}
		rows = append(rows, append(row, same, other))
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Placement\n\n")
	mdTable(b, []string{"Environment", "Mode", "n", "View", "Child on the parent's CPU", "Child on another CPU"}, "llrl", rows)
	b.WriteString("Each spawn's placement compares the CPU its parent was on when pthread_create returned with the CPU its child first ran on " +
		"(recorded natively and by the embedded Wasmtime; elsewhere unknown). Pinned to one CPU every child shares its parent's; " +
		"unpinned, the scheduler decides, and the shares move with the machine's load.\n\n")
}
