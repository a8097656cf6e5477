package render

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// FormatBenchfmt is the Go benchmark format that benchstat reads.
const FormatBenchfmt = "benchfmt"

// BenchmarkName is the name of every benchfmt line spawnbench writes;
// the cell goes into its sub-name keys.
const BenchmarkName = "BenchmarkSpawn"

// writeBenchfmt writes one line per ok process and view in the Go
// benchmark format: the name carries the cell as sub-name keys
// (environment, mode, n, view), so `benchstat -col /environment` and
// old-against-new comparisons work as they are; the iteration count is
// the process's spawns in the view and the value their mean in ns/spawn,
// which is what a Go benchmark line means (a per-operation average over
// its iterations). The machine that measured the lines is a file
// configuration key, set before its lines.
func writeBenchfmt(r *report.Report, w io.Writer) error {
	bw := bufio.NewWriter(w)
	machine := ""
	for _, line := range benchLines(r) {
		if line.machine != machine {
			machine = line.machine
			fmt.Fprintf(bw, "machine: %s\n", machine)
		}
		fmt.Fprintf(bw, "%s/environment=%s/mode=%s/n=%d/view=%s %d %.1f ns/spawn\n",
			BenchmarkName, benchValue(line.cell.Environment), benchValue(line.cell.Mode), line.cell.N,
			benchView(line.cell.Last), line.spawns, line.meanNS)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write benchfmt: %w", err)
	}
	return nil
}

// benchLine is one process's spawns in one cell's view.
type benchLine struct {
	cell    *report.Cell
	machine string
	process int32
	spawns  int
	meanNS  float64
}

// benchLines lists, cell by cell, each ok process's mean spawn time in
// the cell's view.
func benchLines(r *report.Report) []benchLine {
	if len(r.Machines) > 0 {
		var out []benchLine
		for _, m := range r.Machines {
			out = append(out, benchLines(m.Report)...)
		}
		return out
	}
	var out []benchLine
	for i := range r.Cells {
		c := &r.Cells[i]
		k := report.CellKey{Env: c.Environment, Mode: c.Mode, N: c.N}
		if c.Stats == nil {
			continue
		}
		for _, p := range c.Stats.Summaries {
			out = append(out, benchLine{cell: c, machine: benchMachine(r.CellMachines[k]), process: p.Process, spawns: p.Spawns, meanNS: p.MeanNS})
		}
	}
	slices.SortStableFunc(out, func(a, b benchLine) int { return strings.Compare(a.machine, b.machine) })
	return out
}

// processMeansUS are the per-process mean spawn times (µs) of one cell's
// view, as the benchfmt output carries them; benchstat's median of a
// cell is their median.
func processMeansUS(r *report.Report, c *report.Cell) []float64 {
	var out []float64
	for _, l := range benchLines(r) {
		if l.cell.Machine == c.Machine && l.cell.Environment == c.Environment && l.cell.Mode == c.Mode && l.cell.Column == c.Column {
			out = append(out, l.meanNS/1e3)
		}
	}
	return out
}

// benchView spells a view as a sub-name value.
func benchView(last int) string {
	if last == 0 {
		return "all"
	}
	return fmt.Sprintf("last%d", last)
}

// benchValue keeps a sub-name value inside its key: benchfmt splits names
// at "/" and fields at spaces.
func benchValue(s string) string {
	return strings.NewReplacer("/", "_", " ", "_").Replace(s)
}

// benchMachine identifies a machine in benchfmt output: its hostname and
// what sets it apart. The ID keeps apart two machines that share a
// hostname (another kernel, another CPU), which benchstat would
// otherwise pool.
func benchMachine(m *results.Machine) string {
	if m == nil {
		return "unknown"
	}
	name := m.Hostname
	if name == "" {
		name = "unknown-host"
	}
	return fmt.Sprintf("%s (%s, %d cores, %s, id %s)", name, orDash(m.CPUModel), m.Cores, orDash(m.Arch), m.Identity())
}
