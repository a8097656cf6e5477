package render

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/engine/textfmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// partHeadings are the parts' column headings, in report.PartNames'
// order, and partPhrases the same parts in a sentence.
var (
	partHeadings = map[string]string{
		report.PartBefore:    "Before the new task",
		report.PartKernel:    "Kernel",
		report.PartScheduler: "Scheduler",
		report.PartInThread:  "In the new thread",
	}
	partPhrases = map[string]string{
		report.PartBefore:    "the work before the new task",
		report.PartKernel:    "the kernel's",
		report.PartScheduler: "the scheduler's",
		report.PartInThread:  "the work in the new thread",
	}
	// phaseHeadings are a host's own phases in the new thread
	// (hostfacts), as the table of in_thread's phases names them; a
	// phase a host names without words here is shown by its name.
	phaseHeadings = map[string]string{
		hostfacts.PhaseThreadStart: "the OS thread's start, until the host's code runs",
		hostfacts.PhaseStore:       "a Store and WASI context",
		hostfacts.PhaseInstance:    "the instance",
		hostfacts.PhaseGuestEntry:  "the guest's entry, until its first clock reading",
	}
)

// writeAnatomy renders "Where the time goes": per figure, each
// bottom-line row's parts from its traced twin, the scheduler's part by
// where the child first ran, and what tracing cost. Nothing where the
// set traced no process.
func writeAnatomy(r *report.Report, b *strings.Builder, plots []Plot) {
	a := r.Anatomy
	if a == nil || r.BottomLine == nil {
		return
	}
	bl := r.BottomLine
	b.WriteString("## Where the time goes\n\n")
	if len(a.Rows) == 0 && len(a.Costs) == 0 {
		writeNotTraced(a, b)
		return
	}
	fmt.Fprintf(b, "A traced process's spawns split at the kernel's own events into four parts that add up to each spawn: "+
		"before the new task (from the parent's clock reading before the create call to the kernel's new task: the runtime's work on the caller), "+
		"the kernel's (from the new task to its wake-up: clone), the scheduler's (from the wake-up to the child's first run on a CPU) "+
		"and in the new thread (from that first run to the child's first clock reading: the runtime's work on the new thread). "+
		"Each part is the median over processes of each process's median, with its %.0f%% interval over processes; the spawn is the same statistic of the whole, "+
		"so the parts' medians add up to it only roughly. They come from each environment's traced twin (NAME@traced), measured interleaved with the rest; "+
		"the bottom line's figures are untraced (docs/anatomy.md).\n\n", 100*r.Confidence)
	writeNotTraced(a, b)
	for _, fig := range []struct {
		name string
		col  report.Column
	}{{report.FigureFirst, bl.First}, {report.FigureSteady, bl.Steady}} {
		var rows [][]string
		var none []string
		for _, row := range a.Rows {
			if row.Figure != fig.name {
				continue
			}
			line := []string{row.Environment, threadsOn(row.Placement), partFigure(row.SpawnUS, row.SpawnLowUS, row.SpawnHighUS)}
			if len(row.Parts) == 0 {
				for range report.PartNames {
					line = append(line, "—")
				}
				none = append(none, row.Environment)
			}
			for _, p := range row.Parts {
				line = append(line, partFigure(p.MedianUS, p.LowUS, p.HighUS))
			}
			line = append(line, newThreadText(row), fmt.Sprint(row.Processes), costText(row.Cost))
			rows = append(rows, line)
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(b, "### %s (%s)\n\n", capitalize(columnPhrase(bl, fig.col)), columnText(fig.col))
		header := []string{"Environment", "Threads on", "Spawn"}
		for _, name := range report.PartNames {
			header = append(header, partHeadings[name])
		}
		mdTable(b, append(header, "New OS thread", "Processes", "Tracing's cost"), "ll", rows)
		if len(none) > 0 {
			fmt.Fprintf(b, "%s made no new OS thread for any traced spawn %s: the kernel created no task to time, "+
				"so the whole spawn is the runtime's own work (a goroutine, a reused worker, a pool's thread).\n\n",
				textfmt.List(none, "and"), columnAt(bl, fig.col))
		}
		writeInThreadPhases(a, b, fig.name)
	}
	for _, p := range plots {
		if filepath.Base(p.Path) == anatomyPlotBase+".png" {
			fmt.Fprintf(b, "![%s](%s)\n\n", p.Title, p.Path)
		}
	}
	writeSchedulerByPlacement(r, b)
	writeTracingCost(r, b)
}

// writeInThreadPhases sets, under a figure's table, the in-the-new-thread
// part of each row whose host times its own phases there, and each phase
// indented beneath it.
func writeInThreadPhases(a *report.Anatomy, b *strings.Builder, figure string) {
	var rows [][]string
	for _, row := range a.Rows {
		if row.Figure != figure {
			continue
		}
		for _, p := range row.Parts {
			if p.Name != report.PartInThread || len(p.Phases) == 0 {
				continue
			}
			rows = append(rows, []string{row.Environment, threadsOn(row.Placement), partHeadings[p.Name], partFigure(p.MedianUS, p.LowUS, p.HighUS), fmt.Sprint(p.Processes)})
			for _, ph := range p.Phases {
				words := phaseHeadings[ph.Name]
				if words == "" {
					words = ph.Name
				}
				rows = append(rows, []string{"", "", "↳ " + words + " (`" + ph.Name + "`)", partFigure(ph.MedianUS, ph.LowUS, ph.HighUS), fmt.Sprint(ph.Processes)})
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("In the new thread, by the runtime's own phases where its host times them (each from the end of the one before, the first from the child's first run), the same statistic as the parts:\n\n")
	mdTable(b, []string{"Environment", "Threads on", "Part", "Time", "Processes"}, "lll", rows)
}

// writeNotTraced says which processes were to be traced and were not,
// and why, and what limits the trace of traced ones, as the run recorded
// it.
func writeNotTraced(a *report.Anatomy, b *strings.Builder) {
	for _, list := range []struct {
		notes []report.TraceNote
		lead  string
	}{
		{a.NotTraced, "Processes that were to be traced and were not: their spawns have no parts, and their cells measure no tracing."},
		{a.Limits, "Traced processes whose trace says what limits it:"},
	} {
		if len(list.notes) == 0 {
			continue
		}
		b.WriteString(list.lead + "\n\n")
		for _, n := range list.notes {
			fmt.Fprintf(b, "- %s of %s: %s\n", textfmt.Plural(n.Processes, "process", "processes"), textfmt.List(n.Environments, "and"), mdEscape(n.Note))
		}
		b.WriteString("\n")
	}
}

// writeSchedulerByPlacement sets the scheduler's part of the spawns whose
// child first ran on its parent's CPU beside that of those it ran on
// another: the placement story as a number.
func writeSchedulerByPlacement(r *report.Report, b *strings.Builder) {
	var rows [][]string
	for _, row := range r.Anatomy.Rows {
		if len(row.SchedulerByPlacement) == 0 {
			continue
		}
		same, other := []string{"n/a", "n/a"}, []string{"n/a", "n/a"}
		for _, p := range row.SchedulerByPlacement {
			cells := []string{fmt.Sprintf("%.0f%%", 100*float64(p.Share)), partFigure(p.MedianUS, p.LowUS, p.HighUS) + " (" + textfmt.Plural(p.Processes, "process", "processes") + ")"}
			if p.Placement == results.SameCPU {
				same = cells
			} else {
				other = cells
			}
		}
		rows = append(rows, append([]string{row.Environment, columnPhrase(r.BottomLine, row.Column), threadsOn(row.Placement)}, append(same, other...)...))
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("### The scheduler's part by where the child first ran\n\n")
	mdTable(b, []string{"Environment", "Figure", "Threads on", "Child on the parent's CPU", "Scheduler there", "Child on another CPU", "Scheduler there"}, "lll", rows)
	b.WriteString("Where the kernel first ran the child (task_first_cpu) beside the CPU its parent was on (parent_cpu). A child started on its parent's CPU waits for the parent to yield it; " +
		"one started on another waits for that CPU to wake, which on a VM is the hypervisor's to give. " +
		"Each share is of the spawns whose two CPUs are known; each part is over the processes with spawns of that placement.\n\n")
}

// writeTracingCost states what tracing cost, cell by cell, and which
// bottom-line figures it moved beyond their untraced interval.
func writeTracingCost(r *report.Report, b *strings.Builder) {
	a := r.Anatomy
	if len(a.Costs) == 0 {
		return
	}
	b.WriteString("### What tracing costs\n\n")
	var moved []string
	for _, row := range a.Rows {
		if c := row.Cost; c != nil && c.Moved != nil && *c.Moved {
			moved = append(moved, fmt.Sprintf("%s's %s (%s× %s)", row.Environment, columnPhrase(r.BottomLine, row.Column), textfmt.Ratio(float64(c.Ratio.Ratio)), plainInterval(c.Low, c.High)))
		}
	}
	if len(moved) == 0 {
		b.WriteString("Tracing moved no bottom-line figure beyond its untraced interval. ")
	} else {
		fmt.Fprintf(b, "Tracing moved %s beyond the untraced interval. ", textfmt.List(moved, "and"))
	}
	b.WriteString("It moved a figure where the traced figure lies outside the untraced cell's interval and the cost's own interval excludes 1; " +
		"a traced figure outside by no more than its own noise moved nothing. ")
	fmt.Fprintf(b, "Either way the bottom line's figures are the untraced cells' and the parts the traced twins': each traced twin's figure ÷ its environment's, "+
		"with the %.0f%% interval over both cells' processes, is what tracing costs that cell.\n\n", 100*r.Confidence)
	var rows [][]string
	for _, c := range a.Costs {
		beyond := "n/a"
		switch {
		case c.BeyondInterval == nil:
		case *c.Moved:
			beyond = "yes: moved"
		case *c.BeyondInterval:
			beyond = "yes, within the cost's noise"
		default:
			beyond = "no"
		}
		rows = append(rows, []string{c.Baseline, c.Mode, columnLabel(c.Column),
			textfmt.Figure(float64(c.UntracedUS), float64(c.UntracedLowUS), float64(c.UntracedHighUS), c.BaselineProcesses),
			fmt.Sprintf("%s (%s)", textfmt.TimeUS(float64(c.TracedUS)), textfmt.Plural(c.Processes, "process", "processes")),
			costText(&c), beyond})
	}
	mdTable(b, []string{"Environment", "Mode", "n", "Untraced", "Traced", "Traced ÷ untraced", "Beyond the untraced interval"}, "llrrrrl", rows)
}

// anatomyText is the bottom line's sentence on where the time goes, or
// "" for a set that traced none of its rows: for each row, the largest
// part of each headline figure, and where it made no new OS thread.
func anatomyText(r *report.Report) string {
	a, bl := r.Anatomy, r.BottomLine
	if a == nil || bl == nil {
		return ""
	}
	var said, none []string
	for _, row := range bl.Rows {
		var largest, noThread []string
		for _, ar := range a.Rows {
			if ar.Row != row.Environment || !headline(row, ar) {
				continue
			}
			if ar.Largest == "" {
				noThread = append(noThread, columnAt(bl, ar.Column))
				continue
			}
			for _, p := range ar.Parts {
				if p.Name == ar.Largest {
					largest = append(largest, fmt.Sprintf("%s %s (%s of %s)", partPhrases[p.Name], columnAt(bl, ar.Column),
						textfmt.TimeUS(float64(p.MedianUS)), textfmt.TimeUS(float64(ar.SpawnUS))))
				}
			}
		}
		switch {
		case len(largest) > 0 && len(noThread) > 0:
			said = append(said, fmt.Sprintf("in %s, %s, with no new OS thread %s", row.Environment, textfmt.List(largest, "and"), textfmt.List(noThread, "or")))
		case len(largest) > 0:
			said = append(said, fmt.Sprintf("in %s, %s", row.Environment, textfmt.List(largest, "and")))
		case len(noThread) > 0:
			none = append(none, row.Environment)
		}
	}
	if len(said) == 0 && len(none) == 0 {
		return ""
	}
	t := "Where the time goes, from traced processes of their own (the median of each part)"
	if len(said) > 0 {
		t += ": the largest part of a spawn is, " + strings.Join(said, "; ")
	}
	if len(none) > 0 {
		if len(said) > 0 {
			t += ";"
		} else {
			t += ":"
		}
		t += " " + textfmt.List(none, "and") + " made no new OS thread for a spawn"
	}
	return t + "."
}

// headline is true when ar explains the figure the bottom-line row shows
// (its one-CPU twin's where the row is on one CPU), not the free one
// beside it.
func headline(row report.BottomRow, ar report.AnatomyRow) bool {
	bc := row.First
	if ar.Figure == report.FigureSteady {
		bc = row.Steady
	}
	return bc != nil && bc.Environment == ar.Environment
}

// partFigure is a part's median with its interval, "4.10 µs [3.20 µs,
// 5.00 µs]", or the median alone where it has none.
func partFigure(m, lo, hi report.Float) string {
	if math.IsNaN(float64(lo)) || math.IsNaN(float64(hi)) {
		return textfmt.TimeUS(float64(m))
	}
	return fmt.Sprintf("%s [%s, %s]", textfmt.TimeUS(float64(m)), textfmt.TimeUS(float64(lo)), textfmt.TimeUS(float64(hi)))
}

// newThreadText is the share of a row's spawns that made a new OS thread.
func newThreadText(row report.AnatomyRow) string {
	if row.NewThreadShare == 0 {
		return fmt.Sprintf("none of %d spawns", row.Spawns)
	}
	return fmt.Sprintf("%.0f%%", 100*float64(row.NewThreadShare))
}

// costText is a tracing cost as a ratio with its interval.
func costText(c *report.TracingCost) string {
	if c == nil {
		return "n/a"
	}
	return textfmt.Ratio(float64(c.Ratio.Ratio)) + "× " + plainInterval(c.Low, c.High)
}

// threadsOn is where a figure's threads ran, as the bottom line says it.
func threadsOn(placement string) string {
	if placement == report.PlaceOneCPUName {
		return "one CPU"
	}
	return "any CPU"
}

// capitalize is s with its first letter upper-case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// anatomyPlotBase is the anatomy plot's file name, without extension.
const anatomyPlotBase = "anatomy"

// anatomyPlot draws, for each figure, each anatomy row that has parts as
// a bar of its four parts stacked, each as its share of their sum: the
// rows' spawns span µs to tens of ms, which no linear axis holds side by
// side, and a logarithmic one cannot stack. Each bar is labelled with its
// spawn figure; the times are in the tables. Nil where no row has parts.
func anatomyPlot(r *report.Report, dir string) (*Plot, error) {
	a, bl := r.Anatomy, r.BottomLine
	if a == nil || bl == nil {
		return nil, nil
	}
	var names []string
	var shares [4]plotter.Values
	// groups holds the slot where each figure's bars begin, and its
	// column.
	type group struct {
		x   float64
		col report.Column
	}
	var groups []group
	for _, row := range a.Rows {
		if len(row.Parts) == 0 {
			continue
		}
		if len(groups) == 0 || groups[len(groups)-1].col != row.Column {
			groups = append(groups, group{float64(len(names)), row.Column})
		}
		var sum float64
		for _, p := range row.Parts {
			sum += math.Max(0, float64(p.MedianUS))
		}
		for i, p := range row.Parts {
			v := 0.0
			if sum > 0 {
				v = 100 * math.Max(0, float64(p.MedianUS)) / sum
			}
			shares[i] = append(shares[i], v)
		}
		names = append(names, fmt.Sprintf("%s\n%s\n%s", axisName(row.Row), threadsOn(row.Placement), textfmt.TimeUS(float64(row.SpawnUS))))
	}
	if len(names) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = "Where the time goes: each part's median over traced processes, as a share of the four's sum"
	p.Title.Padding = vg.Points(8)
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()
	var below *plotter.BarChart
	for i, name := range report.PartNames {
		bars, err := plotter.NewBarChart(shares[i], vg.Points(28))
		if err != nil {
			return nil, fmt.Errorf("plot anatomy: %w", err)
		}
		bars.Color, bars.LineStyle.Width = palette[i], 0
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		p.Add(bars)
		leg.Add(partHeadings[name], bars)
	}
	// Each figure's bars under its name, split by a dashed line, as the
	// distribution plots split host families.
	var labels plotter.XYLabels
	for i, g := range groups {
		if i > 0 {
			sep, err := plotter.NewLine(plotter.XYs{{X: g.x - 0.5, Y: 0}, {X: g.x - 0.5, Y: 110}})
			if err != nil {
				return nil, fmt.Errorf("plot anatomy: %w", err)
			}
			sep.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
			p.Add(sep)
		}
		labels.XYs = append(labels.XYs, plotter.XY{X: g.x - 0.45, Y: 109})
		labels.Labels = append(labels.Labels, fmt.Sprintf("%s (%s)", columnPhrase(bl, g.col), columnText(g.col)))
	}
	fl, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, fmt.Errorf("plot anatomy: %w", err)
	}
	for i := range fl.TextStyle {
		fl.TextStyle[i].YAlign = draw.YTop
		fl.TextStyle[i].Color = color.Gray{Y: 0x40}
	}
	p.Add(fl)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.Y.Min, p.Y.Max = 0, 110
	p.Y.Label.Text = "share of the parts' sum (%)"
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}})
	width := vg.Length(max(6, 1.3*float64(len(names))+3)) * vg.Inch
	if err := savePlot(p, &leg, width, 5*vg.Inch, filepath.Join(dir, anatomyPlotBase)); err != nil {
		return nil, err
	}
	return &Plot{Title: "Where the time goes", Path: anatomyPlotBase + ".png"}, nil
}
