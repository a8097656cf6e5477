package render

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"spawnbench/engine/report"
	"spawnbench/engine/results"
)

// cellFigures are the report's cells as rows of cells.parquet (and of
// the CSV): the figures, intervals, process counts, verdicts and ratios
// it prints. A cell with no measured process (a skipped environment, or a
// mode and n its spec never planned for it, which the report's grid shows
// as n/a) has no row: there is nothing in it to judge.
func cellFigures(r *report.Report) []results.CellFigure {
	inBottomLine := map[string]string{} // machine/env/mode/col → role
	key := func(machine, env, mode string, col report.Column) string {
		return machine + "\x00" + env + "\x00" + mode + "\x00" + columnLabel(col)
	}
	reports := []*report.Report{r}
	for _, m := range r.Machines {
		reports = append(reports, m.Report)
	}
	for _, rep := range reports {
		bl := rep.BottomLine
		if bl == nil {
			continue
		}
		for _, row := range bl.Rows {
			for _, c := range []struct {
				col  report.Column
				fig  *report.BottomCell
				role string
			}{{bl.First, row.First, "first spawn"}, {bl.Steady, row.Steady, "steady state"}} {
				// The headline's own cell: the one-CPU twin's where the
				// row shows it, never the free figure beside it.
				if c.fig == nil {
					continue
				}
				if cell := rep.Cell(c.fig.Environment, bl.Mode, c.col); cell != nil {
					inBottomLine[key(cell.Machine, cell.Environment, bl.Mode, c.col)] = c.role
				}
			}
		}
	}
	nan := math.NaN()
	out := make([]results.CellFigure, 0, len(r.Cells))
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Skipped != "" || c.Processes == 0 {
			continue
		}
		var failures []string
		for _, st := range slices.Sorted(maps.Keys(c.Failures)) {
			failures = append(failures, fmt.Sprintf("%s=%d", st, c.Failures[st]))
		}
		f := results.CellFigure{Machine: c.Machine, Environment: c.Environment, Kind: c.Kind, Host: c.Host, Family: c.Family, Mode: c.Mode,
			N: c.N, ViewLast: int32(c.Last), Processes: int32(c.Processes), Samples: int32(c.Samples),
			Untrusted: int32(c.Untrusted), ClockCouldMove: c.ClockCouldMove, Failures: strings.Join(failures, ";"), Spread: nan,
			TypicalUS: nan, LowUS: nan, HighUS: nan, Precision: nan, MeanUS: nan, MedianUS: nan, P95US: nan,
			OccasionSD: nan, ProcessSD: nan, SpawnSD: nan,
			Verdict: c.Judgement.Verdict, Reason: reasonText(c.Judgement), Busy: c.Judgement.Busy, Ratio: nan, RatioLow: nan, RatioHigh: nan, RatioDivisorUS: nan,
			BottomLine:  inBottomLine[key(c.Machine, c.Environment, c.Mode, c.Column)],
			OthersShare: nan, StealShare: nan, LoadRho: nan, LoadP: nan, LoadRatio: nan, BusyEvidence: busyEvidence(c.Judgement)}
		if n := c.Judgement; n.Verdict != report.NotJudged {
			f.Spread = float64(n.Spread)
		}
		if n := c.Judgement; n.BusyKnown {
			f.OthersShare, f.StealShare = float64(n.OthersShare), float64(n.StealShare)
		}
		if n := c.Judgement; n.LoadTested > 0 {
			f.LoadRho, f.LoadP, f.LoadRatio = float64(n.LoadRho), float64(n.LoadP), float64(n.LoadRatio)
		}
		if s := c.Stats; s != nil {
			f.OKProcesses = int32(s.Processes)
			f.TypicalUS, f.LowUS, f.HighUS, f.Precision = float64(s.TypicalUS), float64(s.LowUS), float64(s.HighUS), float64(s.Precision)
			f.MeanUS, f.MedianUS, f.P95US = float64(s.MeanUS), float64(s.MedianUS), float64(s.P95US)
			f.Drifted, f.Clusters, f.Occasions = s.Drifted, int32(len(s.Clusters)), int32(s.Occasions)
			if v := s.Variance; v != nil {
				f.OccasionSD, f.ProcessSD, f.SpawnSD, f.Dominant = float64(v.OccasionSD), float64(v.ProcessSD), float64(v.SpawnSD), v.Dominant
			}
		}
		if q := r.RatioOn(c.Machine, c.Environment, c.Mode, c.Column); q != nil {
			k := int32(q.BaselineProcesses)
			f.Baseline, f.Ratio, f.RatioDivisor, f.RatioDivisorUS, f.RatioDivisorProcesses = q.Baseline, float64(q.Ratio), q.Divisor, float64(q.DivisorUS), &k
			if !math.IsInf(float64(q.High), 0) {
				f.RatioLow, f.RatioHigh = float64(q.Low), float64(q.High)
			}
		}
		out = append(out, f)
	}
	return out
}
