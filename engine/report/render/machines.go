package render

import (
	"fmt"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"
)

// writeMachineTable writes, for each (mode, n) of all spawns, a table of
// every environment's ratio to the baseline on each machine.
func writeMachineTable(r *report.Report, b *strings.Builder) {
	fmt.Fprintf(b, "## Ratio to %s by machine (typical ÷ typical over processes, within each machine)\n\n", r.Baseline)
	for _, m := range r.Machines {
		fmt.Fprintf(b, "- `%s`: %s\n", m.ID, mdEscape(m.Label))
	}
	b.WriteString("\n")
	header := []string{"Environment"}
	for _, m := range r.Machines {
		header = append(header, "`"+m.ID+"`")
	}
	for _, mode := range r.Modes {
		for _, col := range r.Columns {
			if col.Last != 0 {
				continue
			}
			var rows [][]string
			for _, env := range r.Environments {
				if env == r.Baseline {
					continue
				}
				row := []string{env}
				any := false
				for _, m := range r.Machines {
					text := "n/a"
					if q := r.MachineRatio(m.ID, env, mode, col); q != nil {
						text = textfmt.Ratio(float64(q.Ratio)) + "×"
						any = true
					}
					row = append(row, text)
				}
				if any {
					rows = append(rows, row)
				}
			}
			if len(rows) == 0 {
				continue
			}
			fmt.Fprintf(b, "### %s, n = %d\n\n", mode, col.N)
			mdTable(b, header, "l", rows)
		}
	}
	fmt.Fprintf(b, "Each ratio divides by %s measured on the same machine; n/a: the machine did not measure the environment or the baseline in that cell. "+
		"Intervals and the last-spawns views are in each machine's section below.\n\n", r.Baseline)
}

// writeMarkdownPerMachine writes a multi-machine report: where the sets
// came from, the machine × environment table, then each machine's own
// report.
func writeMarkdownPerMachine(r *report.Report, b *strings.Builder, plots []Plot) error {
	b.WriteString("# spawnbench report\n\n")
	fmt.Fprintf(b, "Measured on %d machines; every ratio is within one machine.\n\n", len(r.Machines))
	writeHeader(b, r.Sources)
	writeIncomplete(b, r.Incomplete)
	writeMachineTable(r, b)
	for _, m := range r.Machines {
		var mine []Plot
		for _, p := range plots {
			if strings.Contains(p.Path, m.ID+"/") {
				mine = append(mine, p)
			}
		}
		var sub strings.Builder
		if err := writeReportMarkdown(m.Report, &sub, mine); err != nil {
			return err
		}
		// One level down, so each machine's sections sit under its heading.
		text := strings.ReplaceAll(sub.String(), "\n### ", "\n#### ")
		text = strings.ReplaceAll(text, "\n## ", "\n### ")
		text = strings.Replace(text, "# spawnbench report\n", "## Machine `"+m.ID+"`\n\n"+mdEscape(m.Label)+"\n", 1)
		b.WriteString(text)
	}
	return nil
}
