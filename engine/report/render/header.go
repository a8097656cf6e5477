package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/engine/textfmt"
)

// writeHeader is the report's opening: each set in a line, and where the
// rest of its provenance is.
func writeHeader(b *strings.Builder, sources []report.Source) {
	for _, src := range sources {
		invs := src.Provenance.Invocations
		machines := map[string]results.Machine{}
		var from, to *time.Time
		for i := range invs {
			inv := &invs[i]
			machines[inv.Machine.Identity()] = inv.Machine
			if from == nil || inv.StartedAt.Before(*from) {
				from = &inv.StartedAt
			}
			if inv.EndedAt != nil && (to == nil || inv.EndedAt.After(*to)) {
				to = inv.EndedAt
			}
		}
		var where []string
		for _, id := range slices.Sorted(maps.Keys(machines)) {
			m := machines[id]
			where = append(where, fmt.Sprintf("%s (%s, %d cores)", orDash(m.Hostname), orDash(m.CPUModel), m.Cores))
		}
		spec := "—"
		if last := src.Provenance.LastMeasuring(); last != nil {
			spec = orDash(last.SpecName)
		}
		fmt.Fprintf(b, "Result set `%s`: spec %s, %s in %s on %s, %s to %s.", src.Dir, spec,
			textfmt.Plural(src.Processes, "process", "processes"), textfmt.Plural(len(invs), "invocation", "invocations"), strings.Join(where, ", "), formatTime(from), formatTime(to))
		if len(src.Incomplete) > 0 {
			b.WriteString(" **Incomplete** (see below).")
		}
		b.WriteString("\n")
	}
	b.WriteString("Invocations, machines, toolchains, the clock checks and the pooled means are in the appendix.\n\n")
}
