package render

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"spawnbench/engine/atomicfile"
	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/engine/textfmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// pngDPI makes PNG text sharp enough to read when the image is shown at
// its natural size on a high-density screen.
const pngDPI = 144

// maxPointsDrawn bounds the points drawn per strip or panel, and
// maxLinePoints the vertices of a rolling-median line: a plot's size (each
// point is a path in the SVG) stays the same for a million samples as for
// a thousand. Boxes, medians and counts use every sample; the points are
// an even random subsample (fixed seed, so the files are reproducible),
// and every sample stays in samples.parquet.
const (
	maxPointsDrawn = 1500
	maxLinePoints  = 600
)

// WritePlots draws the report's plots into dir as SVG and PNG and returns
// the PNGs' paths relative to dir. Spawn times span three or more orders
// of magnitude between environments, so every time axis is logarithmic;
// times of zero or less (possible only from a clock that failed its check)
// cannot be drawn on it and are counted in the plot's title instead.
func WritePlots(r *report.Report, dir string) ([]Plot, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create plot directory: %w", err)
	}
	var out []Plot
	if len(r.Machines) > 0 {
		// One directory per machine: its plots compare environments on it.
		for _, m := range r.Machines {
			plots, err := WritePlots(m.Report, filepath.Join(dir, m.ID))
			if err != nil {
				return nil, err
			}
			for _, p := range plots {
				p.Title = "machine " + m.ID + ": " + p.Title
				p.Path = m.ID + "/" + p.Path
				out = append(out, p)
			}
		}
		return out, nil
	}
	for _, mode := range r.Modes {
		for _, col := range r.Columns {
			if col.Last != 0 {
				continue
			}
			if p, err := distributionPlot(r, dir, mode, col.N); err != nil {
				return nil, err
			} else if p != nil {
				out = append(out, *p)
			}
		}
	}
	if p, err := releasePlot(r, dir); err != nil {
		return nil, err
	} else if p != nil {
		out = append(out, *p)
	}
	if p, err := anatomyPlot(r, dir); err != nil {
		return nil, err
	} else if p != nil {
		out = append(out, *p)
	}
	for _, mode := range r.Modes {
		if mode != "sequential" {
			continue
		}
		for _, col := range r.Columns {
			if col.Last != 0 || col.N < 2 {
				continue
			}
			if p, err := orderPlot(r, dir, mode, col.N); err != nil {
				return nil, err
			} else if p != nil {
				out = append(out, *p)
			}
		}
	}
	return out, nil
}

// positiveLog10 splits spawn times (ns) into log10 µs of the drawable
// ones and a count of the rest.
func positiveLog10(samples []results.SpawnSample) (logs []float64, dropped int) {
	for _, s := range samples {
		if s.SpawnNS <= 0 {
			dropped++
			continue
		}
		logs = append(logs, math.Log10(float64(s.SpawnNS)/1e3))
	}
	return logs, dropped
}

// distributionPlot draws, for one (mode, n), each environment's spawn
// times as a box plot over a jittered strip of every sample. Boxes are
// computed on log10 of the times, so whiskers and outliers follow the
// multiplicative spread that timing noise has.
// Over 100 lines: one figure built top to bottom (data, axes, marks,
// legend), whose steps would otherwise pass a dozen gonum values along.
func distributionPlot(r *report.Report, dir, mode string, n int32) (*Plot, error) {
	p := plot.New()
	// A fixed seed keeps the jitter, and so the files, reproducible.
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	var names []string
	dropped := 0
	subsampled := false
	// familyStarts holds the slot where each host family begins.
	type familyStart struct {
		family string
		x      float64
	}
	var families []familyStart
	for _, env := range r.Environments {
		g := r.Groups[report.CellKey{Env: env, Mode: mode, N: n}]
		if g == nil {
			continue
		}
		if f := r.Family(env); len(families) == 0 || families[len(families)-1].family != f {
			families = append(families, familyStart{f, float64(len(names))})
		}
		logs, d := positiveLog10(g.Samples)
		dropped += d
		if len(logs) == 0 {
			// Keep an empty slot that says why, as the tables do.
			if c := r.Cell(env, mode, report.Column{N: n}); c != nil && len(c.Failures) > 0 {
				names = append(names, fmt.Sprintf("%s\n(%s)", axisName(env), failureLabel(c.Failures)))
			}
			continue
		}
		x := float64(len(names))
		names = append(names, fmt.Sprintf("%s\n(%d)%s", axisName(env), len(logs), untrustedNote(g, "\n")))
		c, shape := envStyle(r, env)
		shown := subsample(len(logs), maxPointsDrawn, uint64(n)<<8|uint64(len(names)))
		subsampled = subsampled || len(shown) < len(logs)
		pts := make(plotter.XYs, len(shown))
		for i, k := range shown {
			pts[i] = plotter.XY{X: x + 0.3*(rng.Float64()-0.5), Y: logs[k]}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("plot %s %s n=%d: %w", env, mode, n, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: fade(c, 0x60), Radius: vg.Points(1.6), Shape: shape}
		box, err := plotter.NewBoxPlot(vg.Points(26), x, plotter.Values(logs))
		if err != nil {
			return nil, fmt.Errorf("plot %s %s n=%d: %w", env, mode, n, err)
		}
		box.BoxStyle.Color, box.WhiskerStyle.Color = color.Black, color.Black
		box.MedianStyle.Width = vg.Points(2)
		// The strip shows the spread; outliers as glyphs would be one path
		// each, as many as the samples are.
		box.GlyphStyle.Radius, box.Outside = 0, nil
		p.Add(sc, box)
	}
	if len(names) == 0 {
		return nil, nil
	}
	p.NominalX(names...)
	// Room for the outermost strips, which NominalX would put on the edges.
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.X.Label.Text = "environment (samples)"
	title := fmt.Sprintf("Spawn time, %s, n = %d (warm-up excluded)", mode, n)
	if subsampled {
		title += fmt.Sprintf("\npoints: a random %d of each environment's samples; boxes: all", maxPointsDrawn)
	}
	if dropped > 0 {
		title += fmt.Sprintf("\n%d samples ≤ 0 ns not shown", dropped)
	}
	p.Title.Text = title
	logAxis(&p.Y, "spawn time (µs, log scale)")
	p.Add(plotter.NewGrid())
	if len(families) > 1 {
		// Host families side by side, each named at the top, split by a
		// dashed line, as the tables group them.
		p.Y.Max += 0.06 * (p.Y.Max - p.Y.Min)
		var labels plotter.XYLabels
		for i, f := range families {
			if i > 0 {
				sep, err := plotter.NewLine(plotter.XYs{{X: f.x - 0.5, Y: p.Y.Min}, {X: f.x - 0.5, Y: p.Y.Max}})
				if err != nil {
					return nil, fmt.Errorf("plot %s n=%d: %w", mode, n, err)
				}
				sep.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
				p.Add(sep)
			}
			labels.XYs = append(labels.XYs, plotter.XY{X: f.x - 0.45, Y: p.Y.Max})
			labels.Labels = append(labels.Labels, f.family)
		}
		fl, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, fmt.Errorf("plot %s n=%d: %w", mode, n, err)
		}
		for i := range fl.TextStyle {
			fl.TextStyle[i].YAlign = draw.YTop
			fl.TextStyle[i].Color = color.Gray{Y: 0x40}
		}
		p.Add(fl)
	}
	width := vg.Length(max(6, 0.85*float64(len(names))+1.5)) * vg.Inch
	base := fmt.Sprintf("dist-%s-n%d", mode, n)
	if err := savePlot(p, nil, width, 4.5*vg.Inch, filepath.Join(dir, base)); err != nil {
		return nil, err
	}
	return &Plot{Title: fmt.Sprintf("Spawn time distribution, %s, n = %d", mode, n), Path: base + ".png"}, nil
}

// orderPlot draws, for one sequential n, spawn time against spawn number
// as small multiples: one panel per environment, all on the same axes, so
// sixteen environments stay as readable as two. Each panel shows every
// spawn faintly and, where the cell has enough processes, a rolling median
// over spawn numbers of the per-spawn-number median over processes. Slow
// first spawns stand out at the left of the logarithmic x axis.
// Over 100 lines: one figure built top to bottom (data, axes, marks,
// legend), whose steps would otherwise pass a dozen gonum values along.
func orderPlot(r *report.Report, dir, mode string, n int32) (*Plot, error) {
	type panel struct {
		env       string
		pts       plotter.XYs
		line      plotter.XYs
		processes int
		untrusted bool
		// total is the number of points before subsampling (0: none
		// dropped); the range is every point's.
		total                  int
		xMin, xMax, yMin, yMax float64
	}
	var panels []panel
	dropped := 0
	for _, env := range r.Environments {
		g := r.Groups[report.CellKey{Env: env, Mode: mode, N: n}]
		if g == nil || len(g.Samples) == 0 {
			continue
		}
		pn := panel{env: env, processes: g.OKProcesses(), untrusted: untrustedNote(g, "") != "",
			xMin: math.Inf(1), xMax: math.Inf(-1), yMin: math.Inf(1), yMax: math.Inf(-1)}
		for _, s := range g.Samples {
			if s.SpawnNS <= 0 {
				dropped++
				continue
			}
			v := math.Log10(float64(s.SpawnNS) / 1e3)
			pn.pts = append(pn.pts, plotter.XY{X: math.Log10(float64(s.Thread + 1)), Y: v})
		}
		if len(pn.pts) == 0 {
			continue
		}
		// The axes' range from every point, the points drawn a subsample.
		for _, p := range pn.pts {
			pn.xMin, pn.xMax = math.Min(pn.xMin, p.X), math.Max(pn.xMax, p.X)
			pn.yMin, pn.yMax = math.Min(pn.yMin, p.Y), math.Max(pn.yMax, p.Y)
		}
		if shown := subsample(len(pn.pts), maxPointsDrawn, uint64(n)<<8|uint64(len(panels))); len(shown) < len(pn.pts) {
			pts := make(plotter.XYs, len(shown))
			for i, k := range shown {
				pts[i] = pn.pts[k]
			}
			pn.total, pn.pts = len(pn.pts), pts
		}
		line := g.SpawnOrder()
		for _, i := range lineVertices(line.Threads, maxLinePoints) {
			pn.line = append(pn.line, plotter.XY{X: math.Log10(float64(line.Threads[i] + 1)), Y: line.SmoothLog10US[i]})
		}
		panels = append(panels, pn)
	}
	if len(panels) == 0 {
		return nil, nil
	}
	// One range for every panel, so panels compare at a glance.
	xMin, xMax, yMin, yMax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	subsampled := false
	for _, pn := range panels {
		xMin, xMax = math.Min(xMin, pn.xMin), math.Max(xMax, pn.xMax)
		yMin, yMax = math.Min(yMin, pn.yMin), math.Max(yMax, pn.yMax)
		subsampled = subsampled || pn.total > 0
	}
	cols := min(4, len(panels))
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for i, pn := range panels {
		p := plot.New()
		c, shape := envStyle(r, pn.env)
		sc, err := plotter.NewScatter(pn.pts)
		if err != nil {
			return nil, fmt.Errorf("plot %s %s n=%d: %w", pn.env, mode, n, err)
		}
		alpha := uint8(0x50)
		sc.GlyphStyle = draw.GlyphStyle{Color: fade(c, alpha), Radius: vg.Points(1.8), Shape: shape}
		p.Add(plotter.NewGrid(), sc)
		if pn.line != nil {
			line, err := plotter.NewLine(pn.line)
			if err != nil {
				return nil, fmt.Errorf("plot %s %s n=%d: %w", pn.env, mode, n, err)
			}
			line.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(2)}
			p.Add(line)
		}
		p.Title.Text = fmt.Sprintf("%s (%s)", pn.env, textfmt.Plural(pn.processes, "process", "processes"))
		if pn.untrusted {
			p.Title.Text += "\nclock NOT trusted"
		}
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xMin, xMax, yMin, yMax
		logAxis(&p.X, "")
		logAxis(&p.Y, "")
		if i%cols == 0 {
			p.Y.Label.Text = "spawn time (µs)"
		}
		if i/cols == rows-1 || i+cols >= len(panels) {
			p.X.Label.Text = "spawn number"
		}
		grid[i/cols][i%cols] = p
	}
	points := "every spawn"
	if subsampled {
		points = fmt.Sprintf("every spawn, or a random %d of a panel's", maxPointsDrawn)
	}
	title := fmt.Sprintf("Spawn time by spawn number, %s, n = %d, ok processes (log scales; points: %s; "+
		"line: rolling median over neighbouring spawn numbers of the median over processes)", mode, n, points)
	w := vg.Length(max(cols, 2)) * 3.4 * vg.Inch
	h := max(4.5*vg.Inch, vg.Length(rows)*3*vg.Inch+0.7*vg.Inch)
	title = wrapTitle(title, int(w/vg.Inch*13))
	if dropped > 0 {
		title += fmt.Sprintf("\n%d samples ≤ 0 ns not shown", dropped)
	}
	base := fmt.Sprintf("order-%s-n%d", mode, n)
	drawGrid := func(c draw.Canvas) {
		titleStyle := draw.TextStyle{Color: color.Black, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler}
		titleStyle.Font.Size = vg.Points(11)
		titleStyle.XAlign, titleStyle.YAlign = draw.XCenter, draw.YTop
		c.FillText(titleStyle, vg.Point{X: c.Center().X, Y: c.Max.Y - vg.Points(6)}, title)
		body := draw.Crop(c, 0, 0, 0, -0.7*vg.Inch)
		tiles := plot.Align(grid, draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(6), PadY: vg.Points(6),
			PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}, body)
		for i := range grid {
			for j := range grid[i] {
				if grid[i][j] != nil {
					grid[i][j].Draw(tiles[i][j])
				}
			}
		}
	}
	if err := saveCanvas(drawGrid, w, h, filepath.Join(dir, base)); err != nil {
		return nil, err
	}
	return &Plot{Title: fmt.Sprintf("Spawn time by spawn number, %s, n = %d", mode, n), Path: base + ".png"}, nil
}

// subsample is the indexes of k of n items, in order, chosen evenly at
// random from seed (Knuth's selection sampling: one pass, no more memory
// than the k indexes); all n when n <= k.
func subsample(n, k int, seed uint64) []int {
	if n <= k {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([]int, 0, k)
	for i := 0; i < n && len(out) < k; i++ {
		if rng.IntN(n-i) < k-len(out) {
			out = append(out, i)
		}
	}
	return out
}

// lineVertices is the indexes of at most about k of the sorted spawn
// numbers, spaced evenly on the logarithmic x axis the line is drawn on,
// first and last included: the rolling median is smooth between them.
func lineVertices(threads []int32, k int) []int {
	if len(threads) <= k {
		out := make([]int, len(threads))
		for i := range out {
			out[i] = i
		}
		return out
	}
	lo, hi := math.Log10(float64(threads[0]+1)), math.Log10(float64(threads[len(threads)-1]+1))
	step := (hi - lo) / float64(k-1)
	var out []int
	next := lo
	for i, t := range threads {
		if x := math.Log10(float64(t + 1)); x >= next || i == len(threads)-1 {
			out = append(out, i)
			next = x + step
		}
	}
	return out
}

// wrapTitle breaks a long title into lines of about width characters.
func wrapTitle(s string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

// untrustedNote labels an environment whose samples include flagged
// clock readings, so a plot read alone still warns.
func untrustedNote(g *report.Group, sep string) string {
	for _, s := range g.Samples {
		if !s.ClockTrusted {
			return sep + "(clock NOT trusted)"
		}
	}
	return ""
}

// axisName breaks a long environment name after its last hyphen, so
// neighbouring labels on the category axis do not run into each other.
func axisName(env string) string {
	if i := strings.LastIndexByte(env, '-'); len(env) > 14 && i > 0 {
		return env[:i+1] + "\n" + env[i+1:]
	}
	return env
}

// fade makes c translucent so thousands of overlapping points show density.
func fade(c color.Color, alpha uint8) color.Color {
	r, g, b, _ := c.RGBA()
	a := uint32(alpha)
	// color.NRGBA is not premultiplied, so the channels keep their hue.
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: uint8(a)}
}

// logAxis labels an axis holding log10 values with the values themselves:
// major ticks at powers of ten, minor ticks between. It must be called
// after the data are added, since it widens their range.
func logAxis(a *plot.Axis, label string) {
	a.Label.Text = label
	a.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ticks []plot.Tick
		for k := math.Floor(lo); k <= math.Ceil(hi); k++ {
			ticks = append(ticks, plot.Tick{Value: k, Label: powerOfTenLabel(k, 1)})
			for m := 2; m <= 9; m++ {
				if v := k + math.Log10(float64(m)); v <= hi {
					t := plot.Tick{Value: v}
					// A range of less than two decades may hold only one
					// power of ten: label 2 and 5 times it as well.
					if hi-lo < 2 && (m == 2 || m == 5) {
						t.Label = powerOfTenLabel(k, m)
					}
					ticks = append(ticks, t)
				}
			}
		}
		return ticks
	})
	// Widen the range a little so the extreme points are not cut in half
	// by the plot's edge; call this after adding the data.
	pad := 0.04 * max(a.Max-a.Min, 1)
	a.Min -= pad
	a.Max += pad
}

// powerOfTenLabel prints m·10^k as a plain number while that stays short.
func powerOfTenLabel(k float64, m int) string {
	v := float64(m) * math.Pow(10, k)
	if k >= -3 && k <= 6 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprintf("%de%d", m, int(k))
}

// savePlot writes p as base.svg and base.png. A legend, when given, gets
// its own strip at the right so it never hides data.
func savePlot(p *plot.Plot, leg *plot.Legend, w, h vg.Length, base string) error {
	return saveCanvas(func(c draw.Canvas) { drawWithLegend(c, p, leg) }, w, h, base)
}

// saveCanvas draws with paint onto an SVG and a PNG canvas of w × h and
// writes them as base.svg and base.png, each atomically.
func saveCanvas(paint func(draw.Canvas), w, h vg.Length, base string) error {
	svg := vgsvg.New(w, h)
	paint(draw.New(svg))
	if err := atomicfile.Write(base+".svg", func(f io.Writer) error { _, err := svg.WriteTo(f); return err }); err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
	paint(draw.New(img))
	if err := atomicfile.Write(base+".png", func(f io.Writer) error { _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); return err }); err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	return nil
}

func drawWithLegend(c draw.Canvas, p *plot.Plot, leg *plot.Legend) {
	if leg == nil {
		p.Draw(c)
		return
	}
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(24)
	lw := leg.Rectangle(c).Size().X + vg.Points(10)
	p.Draw(draw.Crop(c, 0, -lw, 0, 0))
	leg.Draw(draw.Crop(c, c.Size().X-lw, 0, 0, -vg.Points(40)))
}

// writePlots links the plots (the release and anatomy plots are shown
// with their tables).
func writePlots(r *report.Report, b *strings.Builder, plots []Plot) {
	plots = slices.DeleteFunc(slices.Clone(plots), func(p Plot) bool {
		base := filepath.Base(p.Path)
		return base == releasesPlotBase+".png" || base == anatomyPlotBase+".png"
	})
	if len(plots) > 0 {
		b.WriteString("## Plots\n\n")
		for _, p := range plots {
			fmt.Fprintf(b, "![%s](%s)\n\n", p.Title, p.Path)
		}
	}
}
