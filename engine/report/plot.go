package report

import (
	"fmt"
	"image/color"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"spawnbench/engine/results"
)

// pngDPI makes PNG text sharp enough to read when the image is shown at
// its natural size on a high-density screen.
const pngDPI = 144

// minProcessesForMedian is how many processes a spawn-order plot needs
// before a line of per-spawn medians says more than the points do.
const minProcessesForMedian = 3

// WritePlots draws the report's plots into dir as SVG and PNG and returns
// the PNGs' paths relative to dir. Spawn times span three or more orders
// of magnitude between environments, so every time axis is logarithmic;
// times of zero or less (possible only from a clock that failed its check)
// cannot be drawn on it and are counted in the plot's title instead.
func (r *Report) WritePlots(dir string) ([]Plot, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create plot directory: %w", err)
	}
	var out []Plot
	for _, mode := range r.Modes {
		for _, col := range r.Columns {
			if col.Last != 0 {
				continue
			}
			if p, err := r.distributionPlot(dir, mode, col.N); err != nil {
				return nil, err
			} else if p != nil {
				out = append(out, *p)
			}
		}
	}
	for _, mode := range r.Modes {
		if mode != "sequential" {
			continue
		}
		for _, col := range r.Columns {
			if col.Last != 0 || col.N < 2 {
				continue
			}
			if p, err := r.orderPlot(dir, mode, col.N); err != nil {
				return nil, err
			} else if p != nil {
				out = append(out, *p)
			}
		}
	}
	return out, nil
}

// envStyle gives each environment the same color and glyph in every plot.
func (r *Report) envStyle(env string) (color.Color, draw.GlyphDrawer, []vg.Length) {
	i := slices.Index(r.Environments, env)
	return plotutil.Color(i), plotutil.Shape(i), plotutil.Dashes(i)
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
func (r *Report) distributionPlot(dir, mode string, n int32) (*Plot, error) {
	p := plot.New()
	// A fixed seed keeps the jitter, and so the files, reproducible.
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	var names []string
	dropped := 0
	for _, env := range r.Environments {
		g := r.groups[cellKey{env, mode, n}]
		if g == nil {
			continue
		}
		logs, d := positiveLog10(g.samples)
		dropped += d
		if len(logs) == 0 {
			// Keep an empty slot that says why, as the tables do.
			if c := r.Cell(env, mode, Column{N: n}); c != nil && len(c.Failures) > 0 {
				names = append(names, fmt.Sprintf("%s\n(%s)", axisName(env), failureLabel(c.Failures)))
			}
			continue
		}
		x := float64(len(names))
		names = append(names, fmt.Sprintf("%s\n(%d)%s", axisName(env), len(logs), untrustedNote(g, "\n")))
		c, shape, _ := r.envStyle(env)
		pts := make(plotter.XYs, len(logs))
		for i, v := range logs {
			pts[i] = plotter.XY{X: x + 0.3*(rng.Float64()-0.5), Y: v}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("plot %s %s n=%d: %w", env, mode, n, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: fade(c, 0x60), Radius: vg.Points(1.6), Shape: shape}
		box, err := plotter.NewBoxPlot(vg.Points(36), x, plotter.Values(logs))
		if err != nil {
			return nil, fmt.Errorf("plot %s %s n=%d: %w", env, mode, n, err)
		}
		box.BoxStyle.Color, box.WhiskerStyle.Color = color.Black, color.Black
		box.MedianStyle.Width = vg.Points(2)
		box.GlyphStyle.Radius = 0 // the strip already shows every outlier
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
	if dropped > 0 {
		title += fmt.Sprintf("\n%d samples ≤ 0 ns not shown", dropped)
	}
	p.Title.Text = title
	logAxis(&p.Y, "spawn time (µs, log scale)")
	p.Add(plotter.NewGrid())
	width := vg.Length(max(6, 1.3*float64(len(names))+2)) * vg.Inch
	base := fmt.Sprintf("dist-%s-n%d", mode, n)
	if err := savePlot(p, nil, width, 4.5*vg.Inch, filepath.Join(dir, base)); err != nil {
		return nil, err
	}
	return &Plot{Title: fmt.Sprintf("Spawn time distribution, %s, n = %d", mode, n), Path: base + ".png"}, nil
}

// orderPlot draws, for one sequential n, spawn time against spawn number:
// every sample faintly and, per environment, the median over processes at
// each spawn number as a line. Slow first spawns stand out at the left of
// the logarithmic x axis.
func (r *Report) orderPlot(dir, mode string, n int32) (*Plot, error) {
	p := plot.New()
	leg := plot.NewLegend()
	dropped, drawn, lines := 0, 0, 0
	for _, env := range r.Environments {
		g := r.groups[cellKey{env, mode, n}]
		if g == nil || len(g.samples) == 0 {
			continue
		}
		byThread := map[int32][]float64{}
		var pts plotter.XYs
		for _, s := range g.samples {
			if s.SpawnNS <= 0 {
				dropped++
				continue
			}
			v := math.Log10(float64(s.SpawnNS) / 1e3)
			byThread[s.Thread] = append(byThread[s.Thread], v)
			pts = append(pts, plotter.XY{X: math.Log10(float64(s.Thread + 1)), Y: v})
		}
		if len(pts) == 0 {
			continue
		}
		drawn++
		c, shape, dashes := r.envStyle(env)
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("plot %s %s n=%d: %w", env, mode, n, err)
		}
		processes := len(g.samples) / int(n)
		if processes < minProcessesForMedian {
			// The median of one or two processes is their noise: show
			// the points alone, stronger.
			sc.GlyphStyle = draw.GlyphStyle{Color: fade(c, 0xa0), Radius: vg.Points(1.8), Shape: shape}
			p.Add(sc)
			leg.Add(env+untrustedNote(g, " "), sc)
			continue
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: fade(c, 0x50), Radius: vg.Points(1.5), Shape: shape}
		threads := slices.Sorted(maps.Keys(byThread))
		medians := make(plotter.XYs, len(threads))
		for i, t := range threads {
			medians[i] = plotter.XY{X: math.Log10(float64(t + 1)), Y: stats.Sample{Xs: byThread[t]}.Quantile(0.5)}
		}
		line, err := plotter.NewLine(medians)
		if err != nil {
			return nil, fmt.Errorf("plot %s %s n=%d: %w", env, mode, n, err)
		}
		line.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.5), Dashes: dashes}
		p.Add(sc, line)
		lines++
		leg.Add(env+untrustedNote(g, " "), line, sc)
	}
	if drawn == 0 {
		return nil, nil
	}
	title := fmt.Sprintf("Spawn time by spawn number, %s, n = %d\n(points: every spawn", mode, n)
	if lines > 0 {
		title += fmt.Sprintf("; lines: median over processes, where there are %d or more", minProcessesForMedian)
	}
	title += ")"
	if dropped > 0 {
		title += fmt.Sprintf("; %d samples ≤ 0 ns not shown", dropped)
	}
	p.Title.Text = title
	// Log10 values on a linear axis rather than plot.LogScale, whose
	// axis label placement reserves space as if the axis were linear.
	logAxis(&p.X, "spawn number within the process (log scale)")
	logAxis(&p.Y, "spawn time (µs, log scale)")
	p.Add(plotter.NewGrid())
	base := fmt.Sprintf("order-%s-n%d", mode, n)
	if err := savePlot(p, &leg, 8*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, base)); err != nil {
		return nil, err
	}
	return &Plot{Title: fmt.Sprintf("Spawn time by spawn number, %s, n = %d", mode, n), Path: base + ".png"}, nil
}

// untrustedNote labels an environment whose samples include flagged
// clock readings, so a plot read alone still warns.
func untrustedNote(g *group, sep string) string {
	for _, s := range g.samples {
		if !s.ClockTrusted {
			return sep + "(clock NOT trusted)"
		}
	}
	return ""
}

// fade makes c translucent so thousands of overlapping points show density.
// axisName breaks a long environment name after its last hyphen, so
// neighbouring labels on the category axis do not run into each other.
func axisName(env string) string {
	if i := strings.LastIndexByte(env, '-'); len(env) > 14 && i > 0 {
		return env[:i+1] + "\n" + env[i+1:]
	}
	return env
}

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
			ticks = append(ticks, plot.Tick{Value: k, Label: powerOfTenLabel(k)})
			for m := 2; m <= 9; m++ {
				if v := k + math.Log10(float64(m)); v <= hi {
					ticks = append(ticks, plot.Tick{Value: v})
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

// powerOfTenLabel prints 10^k µs as a plain number while that stays short.
func powerOfTenLabel(k float64) string {
	v := math.Pow(10, k)
	if k >= -3 && k <= 6 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprintf("1e%d", int(k))
}

// savePlot writes p as base.svg and base.png. A legend, when given, gets
// its own strip at the right so it never hides data.
func savePlot(p *plot.Plot, leg *plot.Legend, w, h vg.Length, base string) error {
	svg := vgsvg.New(w, h)
	drawWithLegend(draw.New(svg), p, leg)
	if err := writeFile(base+".svg", svg); err != nil {
		return err
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
	drawWithLegend(draw.New(img), p, leg)
	return writeFile(base+".png", vgimg.PngCanvas{Canvas: img})
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

func writeFile(path string, w io.WriterTo) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("write plot %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write plot %s: %w", path, err)
	}
	return nil
}
