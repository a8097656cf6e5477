package render

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/textfmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// releasesPlotBase is the release plot's file name, without extension.
const releasesPlotBase = "wasmtime-releases"

// writeReleases renders the release table, with its plot when one was
// drawn.
func writeReleases(r *report.Report, b *strings.Builder, plots []Plot) {
	if len(r.Releases) == 0 {
		return
	}
	b.WriteString("## Spawn cost by Wasmtime release\n\n")
	header := []string{"Release", "Version", "Environment", "Mode", "n", "Typical", "95% CI", "Processes"}
	payloads := releasePayloads(r)
	if len(payloads) > 1 {
		header = slices.Insert(header, 3, "Payload")
	}
	withRatio := slices.ContainsFunc(r.Releases, func(q report.ReleaseRow) bool { return q.Ratio != nil })
	if withRatio {
		header = append(header, "÷ "+r.Baseline)
	}
	var rows [][]string
	for _, q := range r.Releases {
		e := &q.Estimate
		row := []string{q.Release, q.Version, q.Environment, q.Mode, strconv.Itoa(int(q.N)),
			textfmt.TimeUS(float64(e.TypicalUS)) + flagText(q.Judgement, e.Processes),
			formatInterval(float64(e.LowUS), float64(e.HighUS), textfmt.TimeUS), strconv.Itoa(e.Processes)}
		if len(payloads) > 1 {
			row = slices.Insert(row, 3, q.Payload)
		}
		if withRatio {
			text := "n/a"
			if q.Ratio != nil {
				text = textfmt.Ratio(float64(q.Ratio.Ratio)) + "× " + ratioInterval(q.Ratio)
			}
			row = append(row, text)
		}
		rows = append(rows, row)
	}
	mdTable(b, header, "llllr", rows)
	fmt.Fprintf(b, "The Wasmtime CLI environments, one row per release, mode and n, releases in version order; "+
		"the version is the one each run recorded for the environment's CLI (its --version), not read from the environment's name. "+
		"Typical and its %.0f%% interval are over processes, as in the table above", 100*r.Confidence)
	if withRatio {
		fmt.Fprintf(b, "; ÷ %s divides by %s's figure in the same mode and n, with the Yuen–Welch interval", r.Baseline, r.Baseline)
	}
	b.WriteString(".\n\n")
	for _, p := range plots {
		if filepath.Base(p.Path) == releasesPlotBase+".png" {
			fmt.Fprintf(b, "![%s](%s)\n\n", p.Title, p.Path)
		}
	}
}

// releasePayloads are the payloads the release rows ran, sorted.
func releasePayloads(r *report.Report) []string {
	var out []string
	for _, q := range r.Releases {
		if !slices.Contains(out, q.Payload) {
			out = append(out, q.Payload)
		}
	}
	slices.Sort(out)
	return out
}

// releasePlot draws the typical spawn time against the release, one line
// per (mode, n), and payload where there are several, with its interval
// as error bars, on a log scale; nil when
// the report has no release rows.
// Over 100 lines: one figure built top to bottom (data, axes, marks,
// legend), whose steps would otherwise pass a dozen gonum values along.
func releasePlot(r *report.Report, dir string) (*Plot, error) {
	if len(r.Releases) == 0 {
		return nil, nil
	}
	// The x axis: one place per environment, in version order.
	var order []report.ReleaseRow
	for _, q := range r.Releases {
		if !slices.ContainsFunc(order, func(o report.ReleaseRow) bool { return o.Environment == q.Environment }) {
			order = append(order, q)
		}
	}
	slices.SortStableFunc(order, func(a, b report.ReleaseRow) int {
		return cmp.Or(slices.Compare(a.VersionNumbers, b.VersionNumbers), cmp.Compare(a.Environment, b.Environment))
	})
	place := map[string]float64{}
	var names []string
	for i, q := range order {
		place[q.Environment] = float64(i)
		names = append(names, q.Version+"\n"+q.Environment)
	}
	several := len(releasePayloads(r)) > 1
	type series struct {
		payload string
		mode    string
		n       int32
		pts     plotter.XYs
		lo, hi  []float64
	}
	var all []*series
	find := func(payload, mode string, n int32) *series {
		for _, s := range all {
			if s.payload == payload && s.mode == mode && s.n == n {
				return s
			}
		}
		s := &series{payload: payload, mode: mode, n: n}
		all = append(all, s)
		return s
	}
	yMin, yMax := math.Inf(1), math.Inf(-1)
	for _, q := range r.Releases {
		e := q.Estimate
		if e.TypicalUS <= 0 {
			continue
		}
		s := find(q.Payload, q.Mode, q.N)
		y := math.Log10(float64(e.TypicalUS))
		s.pts = append(s.pts, plotter.XY{X: place[q.Environment], Y: y})
		lo, hi, ok := y, y, e.Bounded() && e.LowUS > 0
		if ok {
			lo, hi = math.Log10(float64(e.LowUS)), math.Log10(float64(e.HighUS))
		}
		s.lo, s.hi = append(s.lo, y-lo), append(s.hi, hi-y)
		yMin, yMax = math.Min(yMin, lo), math.Max(yMax, hi)
	}
	if len(all) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = "Typical spawn time by Wasmtime release, over processes (log scale; bars: 95% interval)"
	p.Title.Padding = vg.Points(8)
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()
	for i, s := range all {
		c := palette[i%len(palette)]
		style := draw.LineStyle{Color: c, Width: vg.Points(1.5)}
		if s.mode != "sequential" {
			style.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		lp, pts, err := plotter.NewLinePoints(s.pts)
		if err != nil {
			return nil, fmt.Errorf("plot releases %s n=%d: %w", s.mode, s.n, err)
		}
		lp.LineStyle = style
		pts.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: markers[i%len(markers)]}
		errs := plotter.YErrors{}
		for k := range s.pts {
			errs = append(errs, struct{ Low, High float64 }{s.lo[k], s.hi[k]})
		}
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{s.pts, errs})
		if err != nil {
			return nil, fmt.Errorf("plot releases %s n=%d: %w", s.mode, s.n, err)
		}
		bars.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1)}
		p.Add(lp, pts, bars)
		label := fmt.Sprintf("%s, n = %d", s.mode, s.n)
		if several {
			label = s.payload + ", " + label
		}
		leg.Add(label, lp, pts)
	}
	p.NominalX(names...)
	p.Y.Min, p.Y.Max = yMin, yMax
	logAxis(&p.Y, "typical spawn time")
	// Times span µs to s: label the powers of ten in the unit each calls
	// for ("100 µs", "1 ms"), as the tables print them.
	decades := p.Y.Tick.Marker
	p.Y.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ticks := decades.Ticks(lo, hi)
		for i := range ticks {
			if ticks[i].Label != "" {
				ticks[i].Label = timeLabel(math.Pow(10, ticks[i].Value))
			}
		}
		return ticks
	})
	p.X.Label.Text = "release (version, environment)"
	width := vg.Length(max(6, 1.1*float64(len(names))+3)) * vg.Inch
	base := filepath.Join(dir, releasesPlotBase)
	if err := savePlot(p, &leg, width, 4.5*vg.Inch, base); err != nil {
		return nil, err
	}
	return &Plot{Title: "Typical spawn time by Wasmtime release", Path: releasesPlotBase + ".png"}, nil
}

// timeLabel prints a tick's time (µs) in its unit with no trailing
// zeros: "100 µs", "1 ms", "2.5 s".
func timeLabel(us float64) string {
	unit, scale := "µs", 1.0
	switch {
	case us >= 1e6:
		unit, scale = "s", 1e6
	case us >= 1e3:
		unit, scale = "ms", 1e3
	case us < 1:
		unit, scale = "ns", 1e-3
	}
	return strconv.FormatFloat(us/scale, 'g', 3, 64) + " " + unit
}
