package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"spawnbench/engine/results"
	"spawnbench/engine/textfmt"
)

// MachineReport is the whole report of one machine's cells, in a set
// measured on several machines (spawnbench merge). Its ratios divide by
// the baseline measured on the same machine: a ratio across machines
// would mix the machines' difference into the environments'.
type MachineReport struct {
	ID     string  `json:"id"`
	Label  string  `json:"label"`
	Report *Report `json:"report"`
}

// machinesOf lists the machine IDs of the inputs' rows, in order of
// first appearance.
func machinesOf(inputs []Input) []string {
	var out []string
	for _, in := range inputs {
		for _, r := range in.Set.Runs {
			out = appendNew(out, r.Machine)
		}
		for _, s := range in.Set.Samples {
			out = appendNew(out, s.Machine)
		}
	}
	return out
}

// onMachine is the part of s that machine m measured: its rows, and the
// invocations (with their calibration checks) that ran on m; nil when m
// measured nothing in s.
func onMachine(s *results.Set, m string) *results.Set {
	out := &results.Set{Provenance: results.Provenance{Format: s.Provenance.Format}, Generation: s.Generation}
	keep := map[int32]bool{}
	for _, inv := range s.Provenance.Invocations {
		if inv.Machine.Identity() == m && inv.Command != "merge" {
			keep[inv.ID] = true
			out.Provenance.Invocations = append(out.Provenance.Invocations, inv)
		}
	}
	for _, r := range s.Runs {
		if r.Machine == m {
			out.Runs = append(out.Runs, r)
		}
	}
	for _, x := range s.Samples {
		if x.Machine == m {
			out.Samples = append(out.Samples, x)
		}
	}
	if len(out.Runs) == 0 && len(out.Samples) == 0 {
		return nil
	}
	for _, c := range s.Calibration {
		if keep[c.Invocation] {
			out.Calibration = append(out.Calibration, c)
		}
	}
	return out
}

// machineLabel describes machine m from the first invocation that ran on it.
func machineLabel(inputs []Input, m string) string {
	for _, in := range inputs {
		for _, inv := range in.Set.Provenance.Invocations {
			if inv.Machine.Identity() == m {
				return inv.Machine.Label()
			}
		}
	}
	return m
}

// buildPerMachine builds one report per machine and gathers their cells
// and ratios (each marked with its machine) and the machine ×
// environment table.
func buildPerMachine(inputs []Input, opt Options, machines []string) (*Report, error) {
	r := &Report{Baseline: opt.Baseline, Confidence: Confidence, Skipped: map[string]string{}, machines: map[cellKey]string{}}
	if r.Baseline == "" {
		r.Baseline = DefaultBaseline
	}
	for _, in := range inputs {
		inc := in.Set.Incomplete()
		r.Sources = append(r.Sources, Source{Dir: in.Dir, Provenance: in.Set.Provenance, Incomplete: inc, Processes: len(in.Set.Runs)})
		for _, why := range inc {
			r.Incomplete = append(r.Incomplete, in.Dir+": "+why)
		}
	}
	warnings := map[string]bool{}
	for _, m := range machines {
		var sub []Input
		for _, in := range inputs {
			if s := onMachine(in.Set, m); s != nil {
				sub = append(sub, Input{Dir: in.Dir, Set: s})
			}
		}
		mr, err := Build(sub, opt)
		if err != nil {
			return nil, fmt.Errorf("machine %s: %w", m, err)
		}
		r.Machines = append(r.Machines, MachineReport{ID: m, Label: machineLabel(inputs, m), Report: mr})
		r.Cells = append(r.Cells, mr.Cells...)
		r.Ratios = append(r.Ratios, mr.Ratios...)
		r.Against = append(r.Against, mr.Against...)
		r.Failures = append(r.Failures, mr.Failures...)
		for _, w := range mr.Warnings {
			warnings["machine "+m+": "+w] = true
		}
		for _, env := range mr.Environments {
			r.Environments = appendNew(r.Environments, env)
		}
		for _, mode := range mr.Modes {
			r.Modes = appendNew(r.Modes, mode)
		}
		for _, col := range mr.Columns {
			if !slices.Contains(r.Columns, col) {
				r.Columns = append(r.Columns, col)
			}
		}
		if r.ViewLast == 0 {
			r.ViewLast, r.ViewMinN = mr.ViewLast, mr.ViewMinN
		}
		for env, why := range mr.Skipped {
			r.Skipped[env] = why
		}
	}
	sort.SliceStable(r.Columns, func(i, j int) bool {
		a, b := r.Columns[i], r.Columns[j]
		if (a.Last == 0) != (b.Last == 0) {
			return a.Last == 0
		}
		return a.N < b.N
	})
	r.Warnings = sortedKeys(warnings)
	return r, nil
}

// markMachine records machine m on every cell and ratio of a one-machine
// report.
func (r *Report) markMachine(m string) {
	for i := range r.Cells {
		r.Cells[i].Machine = m
	}
	for i := range r.Ratios {
		r.Ratios[i].Machine = m
	}
}

// MachineRatio is the ratio of environment to the baseline on machine,
// or nil.
func (r *Report) MachineRatio(machine, env, mode string, col Column) *Ratio {
	i := slices.IndexFunc(r.Ratios, func(q Ratio) bool {
		return q.Machine == machine && q.Environment == env && q.Mode == mode && q.Column == col
	})
	if i < 0 {
		return nil
	}
	return &r.Ratios[i]
}

// writeMachineTable writes, for each (mode, n) of all spawns, a table of
// every environment's ratio to the baseline on each machine.
func (r *Report) writeMachineTable(b *strings.Builder) {
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
func (r *Report) writeMarkdownPerMachine(b *strings.Builder, plots []Plot) error {
	b.WriteString("# spawnbench report\n\n")
	fmt.Fprintf(b, "Measured on %d machines; every ratio is within one machine.\n\n", len(r.Machines))
	writeHeader(b, r.Sources)
	writeIncomplete(b, r.Incomplete)
	r.writeMachineTable(b)
	for _, m := range r.Machines {
		var mine []Plot
		for _, p := range plots {
			if strings.Contains(p.Path, m.ID+"/") {
				mine = append(mine, p)
			}
		}
		var sub strings.Builder
		if err := m.Report.writeMarkdown(&sub, mine); err != nil {
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
