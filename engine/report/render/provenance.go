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

// writeSources describes where each result set came from: every
// invocation that wrote into it, oldest first.
func writeSources(b *strings.Builder, label string, sources []report.Source) {
	for _, src := range sources {
		fmt.Fprintf(b, "- **%s** `%s`", label, src.Dir)
		if len(src.Incomplete) > 0 {
			b.WriteString(" (**incomplete**)")
		}
		b.WriteString("\n")
		for _, inv := range src.Provenance.Invocations {
			fmt.Fprintf(b, "  - invocation %d: `%s`, spec %s", inv.ID, invocationCommand(inv), orDash(inv.SpecName))
			if h := inv.SpecHash; h != "" {
				fmt.Fprintf(b, " (sha256 %s)", h[:min(12, len(h))])
			}
			fmt.Fprintf(b, ", spawnbench %s, %s; %s to %s", orDash(inv.Version), orDash(inv.Machine.GoVersion),
				formatTime(&inv.StartedAt), formatTime(inv.EndedAt))
			switch {
			case inv.Interrupted:
				b.WriteString(" (**interrupted**)")
			case inv.EndedAt == nil:
				b.WriteString(" (**never ended**)")
			}
			if inv.Order != "" {
				fmt.Fprintf(b, "; order %s, seed %d", inv.Order, inv.Seed)
			}
			if inv.Shard != nil {
				fmt.Fprintf(b, "; shard %s (from %s)", inv.Shard, inv.Shard.Source)
			}
			if o := inv.Origin; o != nil {
				fmt.Fprintf(b, "; merged from `%s` (invocation %d there)", o.Dir, o.ID)
			}
			b.WriteString("\n")
			m := inv.Machine
			fmt.Fprintf(b, "    - machine `%s`: %s, %s, %d cores, kernel %s, %s; pinning %s\n",
				m.Identity(), orDash(m.Hostname), orDash(m.CPUModel), m.Cores, orDash(m.Kernel), orDash(m.Arch), textfmt.CPUs(inv.CPUs))
		}
	}
	b.WriteString("\n")
}

// writeProvenance renders every invocation of every set, then each
// environment's toolchain once.
func writeProvenance(b *strings.Builder, sources []report.Source) {
	b.WriteString("### Provenance\n\n")
	writeSources(b, "Result set", sources)
	byEnv := map[string][]string{}
	for _, src := range sources {
		for _, inv := range src.Provenance.Invocations {
			for env, tc := range inv.Toolchains {
				if !slices.Contains(byEnv[env], tc) {
					byEnv[env] = append(byEnv[env], tc)
				}
			}
		}
	}
	if len(byEnv) == 0 {
		return
	}
	b.WriteString("### Toolchains\n\n")
	var rows [][]string
	for _, env := range slices.Sorted(maps.Keys(byEnv)) {
		rows = append(rows, []string{env, strings.Join(byEnv[env], "; ")})
	}
	mdTable(b, []string{"Environment", "Toolchain (as each invocation recorded it)"}, "ll", rows)
}

// invocationCommand is the command line an invocation ran, with the
// program spelled "spawnbench" whatever path it was started by.
func invocationCommand(inv results.Invocation) string {
	args := inv.Args
	if len(args) > 0 && args[0] != inv.Command && args[0] != "run" && args[0] != "calibrate" {
		args = args[1:] // argv[0], the binary's path
	}
	if len(args) == 0 {
		return "spawnbench " + inv.Command
	}
	return "spawnbench " + strings.Join(args, " ")
}

func formatTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "—"
	}
	return t.UTC().Format(time.RFC3339)
}
