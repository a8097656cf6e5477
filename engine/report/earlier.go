package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"spawnbench/engine/stats"
	"spawnbench/engine/textfmt"
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

// ClaimResult is one claim of the earlier study beside this set.
type ClaimResult struct {
	Claim string `json:"claim"`
	// Earlier is what the earlier study's own table says of the claim's
	// ratios; Measured what this set does, with intervals.
	Earlier  string `json:"earlier"`
	Measured string `json:"measured"`
	// Holds is "holds", "partly", "does not hold" or "not measured".
	Holds string `json:"holds"`
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
		res := ClaimResult{Claim: c.Text, Earlier: earlierText(c.Check)}
		res.Measured, res.Holds = measuredText(r, c.Check)
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

// earlierText is what the earlier study's own table says of a check's
// ratios (or figures).
func earlierText(c claimCheck) string {
	var parts []string
	switch c.Kind {
	case "decreasing":
		for _, num := range c.Numerators {
			var seq []string
			for _, col := range c.Columns {
				if v, ok := earlierFigure(num, c.Mode, col); ok {
					seq = append(seq, strconv.FormatFloat(v, 'g', -1, 64))
				}
			}
			parts = append(parts, fmt.Sprintf("%s %s µs", num, strings.Join(seq, " → ")))
		}
	default:
		for _, col := range c.Columns {
			for _, num := range c.Numerators {
				for _, den := range c.Denominators {
					a, okA := earlierFigure(num, c.Mode, col)
					b, okB := earlierFigure(den, c.Mode, col)
					if okA && okB && b > 0 {
						parts = append(parts, fmt.Sprintf("%s ÷ %s at n = %s: %s×", num, den, strings.TrimSuffix(strings.Replace(col, " (", ", ", 1), ")"), textfmt.Ratio(a/b)))
					}
				}
			}
			if c.First && len(parts) > 0 {
				break
			}
		}
		if c.Kind == "pool" && len(parts) == 0 {
			return "(no pooled figures in its table)"
		}
	}
	return strings.Join(parts, "; ")
}

// measuredText checks a claim on r: what r measured, and the verdict.
func measuredText(r *Report, c claimCheck) (string, string) {
	switch c.Kind {
	case "decreasing":
		return decreasingText(r, c)
	case "pool":
		return poolText(r, c)
	}
	low, high := c.Low, c.High
	if c.Kind == "about" {
		low, high = c.Value/2, c.Value*2
	}
	var parts []string
	inside, outside, total := 0, 0, 0
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
				q, lo, hi := stats.Ratio(ca.Stats.est, cb.Stats.est)
				interval := PlainInterval(Float(lo), Float(hi))
				if math.IsInf(hi, 0) {
					lo, hi = q, q // no interval: judge the figure itself
					interval = fmt.Sprintf("(not judged: %d : %d processes)", ca.Stats.Processes, cb.Stats.Processes)
				}
				total++
				switch {
				case lo >= low && hi <= high:
					inside++
				case hi < low || lo > high:
					outside++
				}
				parts = append(parts, fmt.Sprintf("%s ÷ %s at %s: %s× %s", a, b, ColumnText(col), textfmt.Ratio(q), interval))
			}
		}
		if c.First && found {
			break
		}
	}
	if total == 0 {
		return "not measured in this set", "not measured"
	}
	return strings.Join(parts, "; "), holds(inside, outside, total, "inside the range", "outside it")
}

// holds is the verdict of a claim of total checks, of which yes agree
// with it and no contradict it (the rest are undecided by their
// intervals); yesText and noText say what agreeing and contradicting are.
func holds(yes, no, total int, yesText, noText string) string {
	switch {
	case yes == total:
		return "holds"
	case no == total:
		return "does not hold"
	case yes == 0 && no == 0:
		return "unclear: every interval straddles the claim's bound"
	}
	return fmt.Sprintf("partly: %d of %d %s, %d %s, the rest unclear", yes, total, yesText, no, noText)
}

// decreasingText checks that each numerator's figure falls from column to
// column: a step falls when the later cell's ratio to the earlier one has
// its interval below 1, rises when above.
func decreasingText(r *Report, c claimCheck) (string, string) {
	var parts []string
	falls, rises, total := 0, 0, 0
	for _, role := range c.Numerators {
		env := StandIn(r, role)
		if env == "" {
			continue
		}
		var seq []string
		var prev *Cell
		for _, colText := range c.Columns {
			col, ok := parseColumn(colText)
			cell := r.Cell(env, c.Mode, col)
			if !ok || cell == nil || cell.Stats == nil {
				continue
			}
			seq = append(seq, textfmt.TimeUS(float64(cell.Stats.TypicalUS)))
			if prev != nil && c.Except != role+"/"+colText {
				total++
				_, lo, hi := stats.Ratio(cell.Stats.est, prev.Stats.est)
				switch {
				case hi < 1:
					falls++
				case lo > 1:
					rises++
				}
			}
			prev = cell
		}
		if len(seq) > 0 {
			parts = append(parts, env+" "+strings.Join(seq, " → "))
		}
	}
	if total == 0 {
		return "not measured in this set", "not measured"
	}
	return strings.Join(parts, "; ") + fmt.Sprintf(" (typical; %d of %d steps fall, %d rise)", falls, total, rises), holds(falls, rises, total, "steps fall", "rise")
}

// poolText checks the pool claim: the pool's first spawn is faster (the
// cost moved out of the spawn), and its process is no shorter (the cost
// moved earlier, not away), each as a ratio with its interval.
func poolText(r *Report, c claimCheck) (string, string) {
	if len(c.Numerators) == 0 || len(c.Denominators) == 0 || len(c.Columns) == 0 {
		return "not measured in this set", "not measured"
	}
	a, b := StandIn(r, c.Numerators[0]), StandIn(r, c.Denominators[0])
	col, _ := parseColumn(c.Columns[0])
	ca, cb := r.Cell(a, c.Mode, col), r.Cell(b, c.Mode, col)
	ga, gb := r.Groups[CellKey{a, c.Mode, col.N}], r.Groups[CellKey{b, c.Mode, col.N}]
	if a == "" || b == "" || ca == nil || cb == nil || ca.Stats == nil || cb.Stats == nil || ga == nil || gb == nil {
		return "not measured in this set", "not measured"
	}
	spawn, slo, shi := stats.Ratio(ca.Stats.est, cb.Stats.est)
	wall, wlo, whi := stats.Ratio(wallEstimate(ga), wallEstimate(gb))
	text := fmt.Sprintf("%s ÷ %s at %s: first spawn %s× %s, whole process (wall time) %s× %s",
		a, b, ColumnText(col), textfmt.Ratio(spawn), PlainInterval(Float(slo), Float(shi)), textfmt.Ratio(wall), PlainInterval(Float(wlo), Float(whi)))
	moved, kept := shi < 1, wlo >= 0.9
	switch {
	case moved && kept:
		return text, "holds"
	case slo > 1 || whi < 0.9:
		return text, "does not hold"
	}
	return text, "partly"
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
