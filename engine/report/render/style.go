package render

import (
	"image/color"
	"math"
	"slices"

	"spawnbench/engine/report"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette holds 20 colours chosen to be told apart on white, in an order
// where neighbours differ in hue and lightness, so the first environments
// of a report stay far apart even when only a few are shown. Twenty
// colours and twenty markers: no two of the first twenty environments
// share either.
var palette = []color.NRGBA{
	{0x1f, 0x4e, 0xb4, 0xff}, // strong blue
	{0xe0, 0x6c, 0x00, 0xff}, // orange
	{0x1a, 0x9e, 0x3a, 0xff}, // green
	{0xd6, 0x1f, 0x2a, 0xff}, // red
	{0x7b, 0x3f, 0xb8, 0xff}, // purple
	{0x8c, 0x56, 0x3b, 0xff}, // brown
	{0xe3, 0x5d, 0xb4, 0xff}, // pink
	{0x55, 0x55, 0x55, 0xff}, // dark grey
	{0xa8, 0xa8, 0x00, 0xff}, // olive
	{0x00, 0xa7, 0xc4, 0xff}, // cyan
	{0x0b, 0x1f, 0x5e, 0xff}, // navy
	{0xf5, 0xb0, 0x41, 0xff}, // amber
	{0x00, 0x5f, 0x3a, 0xff}, // dark green
	{0xff, 0x8f, 0x80, 0xff}, // salmon
	{0xb5, 0x9c, 0xe8, 0xff}, // lavender
	{0x5c, 0x2a, 0x12, 0xff}, // dark brown
	{0x8a, 0x00, 0x4c, 0xff}, // plum
	{0x60, 0xd3, 0x94, 0xff}, // mint
	{0x70, 0x8f, 0xa8, 0xff}, // slate
	{0x00, 0x00, 0x00, 0xff}, // black
}

// marker is a glyph: a regular polygon (sides ≥ 3) or a circle (sides 0),
// filled or drawn as an outline, turned by rot radians; or strokes (a plus,
// a cross, or both) when lines is set.
type marker struct {
	sides  int
	rot    float64
	filled bool
	lines  int // 1: plus, 2: cross, 3: asterisk
}

// markers are twenty glyphs that differ in outline, not only in fill, so
// they stay distinct where translucent points overlap.
var markers = []marker{
	{sides: 0, filled: true},                    // disc
	{sides: 4, rot: math.Pi / 4, filled: true},  // square
	{sides: 3, rot: math.Pi / 2, filled: true},  // triangle up
	{sides: 4, filled: true},                    // diamond
	{sides: 3, rot: -math.Pi / 2, filled: true}, // triangle down
	{lines: 2},                   // cross
	{sides: 0},                   // ring
	{sides: 4, rot: math.Pi / 4}, // box
	{sides: 3, rot: math.Pi / 2}, // triangle up, open
	{lines: 1},                   // plus
	{sides: 5, rot: math.Pi / 2, filled: true}, // pentagon
	{sides: 6, filled: true},                   // hexagon
	{sides: 4},                                 // diamond, open
	{sides: 3, rot: -math.Pi / 2},              // triangle down, open
	{lines: 3},                                 // asterisk
	{sides: 5, rot: math.Pi / 2},               // pentagon, open
	{sides: 6},                                 // hexagon, open
	{sides: 3, rot: 0, filled: true},           // triangle right
	{sides: 3, rot: math.Pi, filled: true},     // triangle left
	{sides: 8, rot: math.Pi / 8, filled: true}, // octagon
}

// DrawGlyph implements draw.GlyphDrawer.
func (m marker) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	ls := draw.LineStyle{Color: sty.Color, Width: vg.Points(0.8)}
	switch {
	case m.lines > 0:
		var angles []float64
		if m.lines&1 != 0 {
			angles = append(angles, 0, math.Pi/2)
		}
		if m.lines&2 != 0 {
			angles = append(angles, math.Pi/4, 3*math.Pi/4)
		}
		for _, a := range angles {
			dx, dy := r*vg.Length(math.Cos(a)), r*vg.Length(math.Sin(a))
			c.StrokeLine2(ls, pt.X-dx, pt.Y-dy, pt.X+dx, pt.Y+dy)
		}
	case m.sides == 0 && m.filled:
		(draw.CircleGlyph{}).DrawGlyph(c, sty, pt)
	case m.sides == 0:
		(draw.RingGlyph{}).DrawGlyph(c, sty, pt)
	default:
		var p vg.Path
		for i := 0; i <= m.sides; i++ {
			a := m.rot + 2*math.Pi*float64(i)/float64(m.sides)
			q := vg.Point{X: pt.X + r*vg.Length(math.Cos(a)), Y: pt.Y + r*vg.Length(math.Sin(a))}
			if i == 0 {
				p.Move(q)
			} else {
				p.Line(q)
			}
		}
		p.Close()
		if m.filled {
			c.SetColor(sty.Color)
			c.Fill(p)
		} else {
			c.SetLineStyle(ls)
			c.Stroke(p)
		}
	}
}

// envStyle gives each environment the same colour and marker in every
// plot, by its place in the report's environment list.
func envStyle(r *report.Report, env string) (color.Color, draw.GlyphDrawer) {
	i := max(0, slices.Index(r.Environments, env))
	return palette[i%len(palette)], markers[i%len(markers)]
}
