package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"spawnbench/engine/stats"
)

// The earlier study (earlier-study.json, cited there) measured four
// environments by hand and made seven claims. The bottom line sets each
// claim beside what this set measured, with a verdict read off the
// intervals: a claim holds when every interval it is about lies inside
// the range it states ("roughly x" is x/2 to 2x), fails when none
// overlaps it, and holds partly otherwise. Each of the earlier study's
// environments stands for the first environment of this set that its
// entry lists (stands_for), so the claims read the same on any set that
// measures those environments.

//go:embed earlier-study.json
var earlierJSON []byte

type earlierStudy struct {
	Source    string `json:"source"`
	Statistic string `json:"statistic"`
	StandsFor map[string]struct {
		Text         string   `json:"text"`
		Environments []string `json:"environments"`
	} `json:"stands_for"`
	Table []struct {
		Environment string             `json:"environment"`
		Mode        string             `json:"mode"`
		Values      map[string]float64 `json:"values"`
		Notes       map[string]string  `json:"notes"`
	} `json:"table"`
	Claims []struct {
		Text  string     `json:"text"`
		Check claimCheck `json:"check"`
	} `json:"claims"`
}

// claimCheck says how a claim is checked: which ratios (each numerator
// role over each denominator role, in each column), against what.
type claimCheck struct {
	// Kind: "range" (every ratio within [Low, High]), "about" (within a
	// factor of two of Value), "decreasing" (each numerator's figure
	// falls from column to column, but for Except, "role/column"), or
	// "pool" (the numerator's first spawn is faster than the
	// denominator's, and its process no shorter).
	Kind         string   `json:"kind"`
	Numerators   []string `json:"numerators"`
	Denominators []string `json:"denominators"`
	Mode         string   `json:"mode"`
	Columns      []string `json:"columns"`
	// First: only the first of Columns that this set measured.
	First bool    `json:"first"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Value float64 `json:"value"`
	// Except is a "role/column" step a "decreasing" claim excludes.
	Except string `json:"except"`
}

// Earlier is the earlier study, read from earlier-study.json.
var Earlier = func() earlierStudy {
	var e earlierStudy
	if err := json.Unmarshal(earlierJSON, &e); err != nil {
		panic(fmt.Sprintf("earlier-study.json: %v", err)) // embedded: a test reads it
	}
	return e
}()

// Claim verdicts (ClaimResult.Holds).
const (
	ClaimHolds       = "holds"
	ClaimPartly      = "partly"
	ClaimFails       = "does not hold"
	ClaimUnclear     = "unclear"
	ClaimNotMeasured = "not measured"
)

// ClaimResult is one claim of the earlier study beside this set, as
// numbers: the earlier study's own figures, what this set measured, and
// the verdict read off the intervals.
type ClaimResult struct {
	Claim string `json:"claim"`
	// Kind is how the claim is checked: "range" or "about" (each ratio
	// within [RangeLow, RangeHigh]), "decreasing" (each series falls
	// from column to column) or "pool" (the pool's first spawn faster,
	// its whole process no shorter).
	Kind      string `json:"kind"`
	RangeLow  Float  `json:"range_low,omitempty"`
	RangeHigh Float  `json:"range_high,omitempty"`
	// EarlierRatios are the earlier study's own ratios the claim is about
	// (its table's means divided), EarlierSeries its figures, µs, for a
	// "decreasing" claim.
	EarlierRatios []ClaimRatio  `json:"earlier_ratios,omitempty"`
	EarlierSeries []ClaimSeries `json:"earlier_series,omitempty"`
	// Ratios are this set's ratios with their intervals (Low 0 and High
	// infinite, null in JSON, where a side has too few processes to bound
	// it): for a "pool" claim the first spawn's and then the whole
	// process's wall time. Series are this set's typical figures for a
	// "decreasing" claim.
	Ratios []ClaimRatio  `json:"ratios,omitempty"`
	Series []ClaimSeries `json:"series,omitempty"`
	// Holds is ClaimHolds, ClaimPartly, ClaimFails, ClaimUnclear (every
	// interval straddles a bound) or ClaimNotMeasured. Checks counts the
	// ratios (or steps of a series) checked, Agree those whose interval
	// agrees with the claim (inside the range; a step that falls) and
	// Disagree those that contradict it (outside it; a step that rises).
	Holds    string `json:"holds"`
	Checks   int    `json:"checks"`
	Agree    int    `json:"agree"`
	Disagree int    `json:"disagree"`
}

// ClaimRatio is one ratio a claim is about.
type ClaimRatio struct {
	Numerator   string `json:"numerator"`
	Denominator string `json:"denominator"`
	Column      Column `json:"column"`
	Ratio       Float  `json:"ratio"`
	// Low and High bound the ratio; both 0 for the earlier study's, which
	// has no interval.
	Low  Float `json:"low"`
	High Float `json:"high"`
	// Processes and DenominatorProcesses count the processes behind
	// each side (0 for the earlier study's).
	Processes            int `json:"processes"`
	DenominatorProcesses int `json:"denominator_processes"`
}

// ClaimSeries is one environment's figures from column to column, µs.
type ClaimSeries struct {
	Environment string  `json:"environment"`
	US          []Float `json:"us"`
}

// EarlierRow is one row of the earlier study's table beside the same
// statistic (the mean of every spawn) from this set.
type EarlierRow struct {
	Role        string        `json:"earlier_environment"`
	Environment string        `json:"environment"`
	Mode        string        `json:"mode"`
	Cells       []EarlierCell `json:"cells"`
}

// EarlierCell is one column of an EarlierRow: the earlier study's figure
// (or its note, e.g. OOM) and this set's mean and typical figure.
type EarlierCell struct {
	Column    string `json:"column"`
	EarlierUS Float  `json:"earlier_us"`
	Note      string `json:"note,omitempty"`
	MeanUS    Float  `json:"mean_us"`
	TypicalUS Float  `json:"typical_us"`
}

// StandIn is the environment of r that an earlier role stands for; "".
func StandIn(r *Report, role string) string {
	for _, env := range Earlier.StandsFor[role].Environments {
		for _, e := range r.Environments {
			if e == env && r.Skipped[e] == "" {
				return e
			}
		}
	}
	return ""
}

// parseColumn reads "100" or "100 (last 10)".
func parseColumn(s string) (Column, bool) {
	var c Column
	if n, err := strconv.Atoi(s); err == nil {
		return Column{N: int32(n)}, true
	}
	if _, err := fmt.Sscanf(s, "%d (last %d)", &c.N, &c.Last); err == nil {
		return c, true
	}
	return c, false
}

// claimResults checks every claim against r.
func claimResults(r *Report) []ClaimResult {
	out := make([]ClaimResult, 0, len(Earlier.Claims))
	for _, c := range Earlier.Claims {
		res := ClaimResult{Claim: c.Text, Kind: c.Check.Kind}
		earlierFigures(&res, c.Check)
		switch c.Check.Kind {
		case "decreasing":
			checkDecreasing(&res, r, c.Check)
		case "pool":
			checkPool(&res, r, c.Check)
		default:
			checkRange(&res, r, c.Check)
		}
		out = append(out, res)
	}
	return out
}

// earlierFigure is the earlier study's mean for role in (mode, column).
func earlierFigure(role, mode, column string) (float64, bool) {
	for _, row := range Earlier.Table {
		if row.Environment == role && row.Mode == mode {
			v, ok := row.Values[column]
			return v, ok
		}
	}
	return 0, false
}

// earlierFigures sets what the earlier study's own table says of a
// check's ratios (or figures).
func earlierFigures(res *ClaimResult, c claimCheck) {
	if c.Kind == "decreasing" {
		for _, num := range c.Numerators {
			series := ClaimSeries{Environment: num}
			for _, col := range c.Columns {
				if v, ok := earlierFigure(num, c.Mode, col); ok {
					series.US = append(series.US, Float(v))
				}
			}
			res.EarlierSeries = append(res.EarlierSeries, series)
		}
		return
	}
	for _, colText := range c.Columns {
		col, _ := parseColumn(colText)
		for _, num := range c.Numerators {
			for _, den := range c.Denominators {
				a, okA := earlierFigure(num, c.Mode, colText)
				b, okB := earlierFigure(den, c.Mode, colText)
				if okA && okB && b > 0 {
					res.EarlierRatios = append(res.EarlierRatios, ClaimRatio{Numerator: num, Denominator: den, Column: col, Ratio: Float(a / b)})
				}
			}
		}
		if c.First && len(res.EarlierRatios) > 0 {
			break
		}
	}
}

// checkRange checks a "range" or "about" claim on r: each ratio's
// interval inside the range, or outside it.
func checkRange(res *ClaimResult, r *Report, c claimCheck) {
	low, high := c.Low, c.High
	if c.Kind == "about" {
		low, high = c.Value/2, c.Value*2
	}
	res.RangeLow, res.RangeHigh = Float(low), Float(high)
	for _, colText := range c.Columns {
		col, ok := parseColumn(colText)
		if !ok {
			continue
		}
		found := false
		for _, num := range c.Numerators {
			for _, den := range c.Denominators {
				a, b := StandIn(r, num), StandIn(r, den)
				ca, cb := r.Cell(a, c.Mode, col), r.Cell(b, c.Mode, col)
				if a == "" || b == "" || ca == nil || cb == nil || ca.Stats == nil || cb.Stats == nil {
					continue
				}
				found = true
				// Divided as the bottom line divides by the baseline.
				d := divisorOf(cb, b == r.Baseline)
				q, lo, hi := stats.Ratio(ca.Stats.est, d.est)
				res.Ratios = append(res.Ratios, ClaimRatio{Numerator: a, Denominator: b, Column: col, Ratio: Float(q), Low: Float(lo), High: Float(hi),
					Processes: ca.Stats.Processes, DenominatorProcesses: d.est.Processes})
				if math.IsInf(hi, 0) {
					lo, hi = q, q // no interval: judge the figure itself
				}
				res.Checks++
				switch {
				case lo >= low && hi <= high:
					res.Agree++
				case hi < low || lo > high:
					res.Disagree++
				}
			}
		}
		if c.First && found {
			break
		}
	}
	res.Holds = holds(res)
}

// holds is the verdict of a claim from its counts: it holds when every
// check agrees with it, fails when every one contradicts it.
func holds(res *ClaimResult) string {
	switch {
	case res.Checks == 0:
		return ClaimNotMeasured
	case res.Agree == res.Checks:
		return ClaimHolds
	case res.Disagree == res.Checks:
		return ClaimFails
	case res.Agree == 0 && res.Disagree == 0:
		return ClaimUnclear
	}
	return ClaimPartly
}

// checkDecreasing checks that each numerator's figure falls from column
// to column: a step falls when the later cell's ratio to the earlier one
// has its interval below 1, rises when above.
func checkDecreasing(res *ClaimResult, r *Report, c claimCheck) {
	for _, role := range c.Numerators {
		env := StandIn(r, role)
		if env == "" {
			continue
		}
		series := ClaimSeries{Environment: env}
		var prev *Cell
		for _, colText := range c.Columns {
			col, ok := parseColumn(colText)
			cell := r.Cell(env, c.Mode, col)
			if !ok || cell == nil || cell.Stats == nil {
				continue
			}
			series.US = append(series.US, cell.Stats.TypicalUS)
			if prev != nil && c.Except != role+"/"+colText {
				res.Checks++
				_, lo, hi := stats.Ratio(cell.Stats.est, prev.Stats.est)
				switch {
				case hi < 1:
					res.Agree++
				case lo > 1:
					res.Disagree++
				}
			}
			prev = cell
		}
		if len(series.US) > 0 {
			res.Series = append(res.Series, series)
		}
	}
	res.Holds = holds(res)
}

// checkPool checks the pool claim: the pool's first spawn is faster (the
// cost moved out of the spawn), and its process is no shorter (the cost
// moved earlier, not away), each as a ratio with its interval.
func checkPool(res *ClaimResult, r *Report, c claimCheck) {
	res.Holds = ClaimNotMeasured
	if len(c.Numerators) == 0 || len(c.Denominators) == 0 || len(c.Columns) == 0 {
		return
	}
	a, b := StandIn(r, c.Numerators[0]), StandIn(r, c.Denominators[0])
	col, _ := parseColumn(c.Columns[0])
	ca, cb := r.Cell(a, c.Mode, col), r.Cell(b, c.Mode, col)
	ga, gb := r.Groups[CellKey{a, c.Mode, col.N}], r.Groups[CellKey{b, c.Mode, col.N}]
	if a == "" || b == "" || ca == nil || cb == nil || ca.Stats == nil || cb.Stats == nil || ga == nil || gb == nil {
		return
	}
	wa, wb := wallEstimate(ga), wallEstimate(gb)
	spawn, slo, shi := stats.Ratio(ca.Stats.est, cb.Stats.est)
	wall, wlo, whi := stats.Ratio(wa, wb)
	res.Ratios = []ClaimRatio{
		{Numerator: a, Denominator: b, Column: col, Ratio: Float(spawn), Low: Float(slo), High: Float(shi), Processes: ca.Stats.Processes, DenominatorProcesses: cb.Stats.Processes},
		{Numerator: a, Denominator: b, Column: col, Ratio: Float(wall), Low: Float(wlo), High: Float(whi), Processes: processesOf(wa), DenominatorProcesses: processesOf(wb)},
	}
	moved, kept := shi < 1, wlo >= 0.9
	switch {
	case moved && kept:
		res.Holds = ClaimHolds
	case slo > 1 || whi < 0.9:
		res.Holds = ClaimFails
	default:
		res.Holds = ClaimPartly
	}
}

// processesOf is the processes behind an estimate, 0 for none.
func processesOf(e *stats.Estimate) int {
	if e == nil {
		return 0
	}
	return e.Processes
}

// wallEstimate is a cell's typical process wall time over its ok
// processes, µs.
func wallEstimate(g *Group) *stats.Estimate {
	var procs []stats.Process
	for _, run := range g.Runs {
		if run.Status == "ok" && run.WallNS > 0 {
			procs = append(procs, stats.Process{Value: float64(run.WallNS) / 1e3, Start: run.StartedAt})
		}
	}
	return stats.Summarize(procs)
}

// earlierRows sets the earlier study's table beside this set's means.
func earlierRows(r *Report) []EarlierRow {
	var out []EarlierRow
	for _, row := range Earlier.Table {
		env := StandIn(r, row.Environment)
		if env == "" || !r.Ran(env, row.Mode) {
			continue
		}
		er := EarlierRow{Role: row.Environment, Environment: env, Mode: row.Mode}
		for _, colText := range EarlierColumns {
			col, _ := parseColumn(colText)
			cell := EarlierCell{Column: colText, EarlierUS: Float(math.NaN()), MeanUS: Float(math.NaN()), TypicalUS: Float(math.NaN())}
			if v, ok := row.Values[colText]; ok {
				cell.EarlierUS = Float(v)
			}
			cell.Note = row.Notes[colText]
			if c := r.Cell(env, row.Mode, col); c != nil && c.Stats != nil {
				cell.MeanUS, cell.TypicalUS = c.Stats.MeanUS, c.Stats.TypicalUS
			}
			er.Cells = append(er.Cells, cell)
		}
		out = append(out, er)
	}
	return out
}

// EarlierColumns are the earlier study's table's columns, in its order.
var EarlierColumns = []string{"1", "10", "100", "1000", "100 (last 10)", "1000 (last 10)"}
