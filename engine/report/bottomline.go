package report

import (
	"slices"

	"spawnbench/engine/results"
	"spawnbench/engine/stats"
)

// The bottom line answers the study's question first: how much slower is
// a thread spawn in each kind of host than natively, at the first spawn
// and in steady state, and how sure are we. One row per host family and
// host (the first environment the set lists for each: a family's
// variants are in the tables below), each figure with its ratio to the
// baseline, its 95% interval and the processes behind both sides, and a
// verdict from the row's own cells. Beside it, the earlier study's
// claims and table, each with what this set measured.

// BottomLine is the report's answer in a few rows.
type BottomLine struct {
	Baseline string `json:"baseline"`
	Mode     string `json:"mode"`
	// First is the first-spawn column (n = 1) and Steady the steady-state
	// one (the last spawns of n = 100, where the set has that view).
	First  Column      `json:"first"`
	Steady Column      `json:"steady"`
	Rows   []BottomRow `json:"rows"`
	// Answer is the rows grouped by what their spawn starts, for the
	// sentence above the table.
	Answer *BottomAnswer `json:"answer,omitempty"`
	// Notes name the evidence that qualifies the ratios: the baseline's
	// own unstable cells, pooled ratios that mix placements.
	Notes []BottomNote `json:"notes,omitempty"`
	// Claims and Earlier set the earlier study beside this set.
	Claims  []ClaimResult `json:"earlier_claims,omitempty"`
	Earlier []EarlierRow  `json:"earlier_table,omitempty"`
	// Source cites the earlier study.
	Source string `json:"earlier_source,omitempty"`
}

// BottomRow is one host in the bottom line.
type BottomRow struct {
	Family      string `json:"family"`
	Host        string `json:"host"`
	Environment string `json:"environment"`
	// Threads is what the host's threads are where they are not OS
	// threads (FamilyThreads), "" where they are.
	Threads string      `json:"threads,omitempty"`
	First   *BottomCell `json:"first,omitempty"`
	Steady  *BottomCell `json:"steady,omitempty"`
	// Judgements are the verdicts of the cells the row's figures come
	// from, one per column shown: the row's verdict is theirs.
	Judgements []ColumnJudgement `json:"judgements"`
}

// ColumnJudgement is the judgement of one cell of a bottom-line row.
type ColumnJudgement struct {
	Column    Column    `json:"column"`
	Judgement Judgement `json:"judgement"`
}

// Kinds of BottomNote.
const (
	// NoteBaselineUnstable: the baseline's own cell of Column is unstable
	// (Judgement says why), and every ratio of that column divides by it:
	// by the whole cell, which the ratios then move with, or, where its
	// processes fall into two clusters, by the lower one (Divisor), which
	// they do not.
	NoteBaselineUnstable = "baseline-unstable"
	// NoteMixesPlacements: Ratio's two sides start their children on the
	// parent's CPU in shares far apart (Ratio.Placements has each).
	NoteMixesPlacements = "mixes-placements"
)

// BottomNote is one piece of evidence that qualifies the bottom line's
// ratios, said once.
type BottomNote struct {
	Kind      string     `json:"kind"`
	Column    Column     `json:"column"`
	Judgement *Judgement `json:"judgement,omitempty"`
	Ratio     *Ratio     `json:"ratio,omitempty"`
	// Environment is, for NoteBaselineUnstable, the baseline cell's
	// environment (the baseline or its one-CPU twin), Placement where its
	// threads ran (PlaceOneCPUName or PlaceFreeName), and Divisor what the
	// ratios over it divide by (Ratio.Divisor).
	Environment string `json:"environment,omitempty"`
	Placement   string `json:"placement,omitempty"`
	Divisor     string `json:"divisor,omitempty"`
}

// BottomCell is one figure of the bottom line.
type BottomCell struct {
	// Environment is the environment whose cell the figure is: the row's
	// own, or its one-CPU twin's where Placement is "one-cpu". With the
	// row's mode and the figure's column it names the cell
	// (cells.parquet marks the same cells in bottom_line).
	Environment string `json:"environment"`
	TypicalUS   Float  `json:"typical_us"`
	Processes   int    `json:"processes"`
	// Ratio is the figure over the baseline's; nil for the baseline.
	Ratio *Ratio `json:"ratio,omitempty"`
	// Placement is where the figure's threads ran: "one-cpu" where the
	// set measured both the row's environment and the baseline with every
	// thread on one CPU (their one-CPU twins: the ratio then compares like
	// with like), else "free" (the scheduler placed them).
	Placement string `json:"placement"`
	// Free is the same column with the scheduler free, beside a one-CPU
	// figure; nil otherwise.
	Free *BottomCell `json:"free,omitempty"`
	// SameCPU is the share of the figure's spawns whose child started on
	// its parent's CPU; nil where the environment does not record it.
	SameCPU *Float `json:"same_cpu_share,omitempty"`
	// Divisor is, in the baseline's row, what the column's ratios divide
	// this figure's cell by where that is not the whole cell: its lower
	// cluster (Ratio.Divisor, DivisorUS, DivisorProcesses); nil otherwise.
	Divisor *BottomDivisor `json:"divisor,omitempty"`
	// Spread is how far the ratio moved between the set's occasions (runs
	// merged with merge --occasions, or blocks of run --occasions): the
	// least and the most of the per-occasion ratios; nil with fewer than
	// two occasions.
	Spread *RatioSpread `json:"spread,omitempty"`
}

// BottomDivisor is the part of a baseline cell its column's ratios
// divide by.
type BottomDivisor struct {
	Kind      string `json:"kind"`
	TypicalUS Float  `json:"typical_us"`
	Processes int    `json:"processes"`
	Share     Float  `json:"share"`
}

// RatioSpread is the range of a ratio over occasions.
type RatioSpread struct {
	Occasions int   `json:"occasions"`
	Low       Float `json:"low"`
	High      Float `json:"high"`
}

// bottomLine builds the report's bottom line; nil when the set holds no
// cell of the baseline's first-spawn or steady-state columns.
func bottomLine(r *Report) *BottomLine {
	b := &BottomLine{Baseline: r.Baseline, Mode: "sequential"}
	if !slices.Contains(r.Modes, b.Mode) {
		if len(r.Modes) == 0 {
			return nil
		}
		b.Mode = r.Modes[0]
	}
	b.First, b.Steady = Column{N: 1}, steadyColumn(r)
	if r.Cell(r.Baseline, b.Mode, b.First) == nil && r.Cell(r.Baseline, b.Mode, b.Steady) == nil {
		return nil
	}
	type hostKey struct{ family, host string }
	seen := map[hostKey]bool{}
	envs := append([]string{r.Baseline}, slices.DeleteFunc(slices.Clone(r.Environments), func(e string) bool { return e == r.Baseline })...)
	for _, env := range envs {
		if r.twinOf[env] != "" || r.tracedOf[env] != "" {
			continue // a one-CPU or traced twin: its row is its environment's
		}
		first, steady := r.Cell(env, b.Mode, b.First), r.Cell(env, b.Mode, b.Steady)
		host := ""
		for _, c := range []*Cell{first, steady} {
			if c != nil && c.Stats != nil && host == "" {
				host = c.Host
				if host == "" {
					host = c.Kind // a set written before hosts were recorded
				}
			}
		}
		if host == "" && env != r.Baseline {
			continue // skipped, or nothing measured in these columns
		}
		k := hostKey{r.Family(env), host}
		if seen[k] {
			continue
		}
		seen[k] = true
		row := BottomRow{Family: k.family, Host: host, Environment: env, Threads: FamilyThreads(k.family)}
		var shown []*Cell
		row.First, shown = r.bottomCell(env, b.Mode, b.First, shown)
		row.Steady, shown = r.bottomCell(env, b.Mode, b.Steady, shown)
		for _, c := range shown {
			row.Judgements = append(row.Judgements, ColumnJudgement{Column: c.Column, Judgement: c.Judgement})
		}
		b.Rows = append(b.Rows, row)
	}
	b.Notes = bottomNotes(r, b)
	b.Answer = answerOf(b)
	b.Source = Earlier.Source
	b.Claims = claimResults(r)
	b.Earlier = earlierRows(r)
	return b
}

// steadyColumn is the steady-state column: the last-spawns view of
// n = 100 (the earlier study's "100 (last 10)"), else of the largest n
// that has one, else the largest n.
func steadyColumn(r *Report) Column {
	var best Column
	for _, c := range r.Columns {
		switch {
		case c.Last > 0 && c.N == 100:
			return c
		case c.Last > 0 && (best.Last == 0 || c.N > best.N):
			best = c
		case best.Last == 0 && c.N > best.N:
			best = c
		}
	}
	return best
}

// bottomCell is env's figure in one bottom-line column: its one-CPU
// twin's where both env and the baseline have one measured there, with
// the free figure beside it, else the free figure. shown gathers the
// cells the row's verdict comes from: the headline's.
func (r *Report) bottomCell(env, mode string, col Column, shown []*Cell) (*BottomCell, []*Cell) {
	free := r.figureOf(r.Cell(env, mode, col), PlaceFreeName)
	twin, baseTwin := r.oneCPUTwin(env), r.oneCPUTwin(r.Baseline)
	if twin == "" || baseTwin == "" {
		if free == nil {
			return nil, shown
		}
		return free, append(shown, r.Cell(env, mode, col))
	}
	c := r.Cell(twin, mode, col)
	pinned := r.figureOf(c, PlaceOneCPUName)
	if pinned == nil || r.Cell(baseTwin, mode, col) == nil || r.Cell(baseTwin, mode, col).Stats == nil {
		if free == nil {
			return nil, shown
		}
		return free, append(shown, r.Cell(env, mode, col))
	}
	pinned.Free = free
	if env == r.Baseline {
		pinned.Ratio, pinned.Spread = nil, nil // the baseline's row is 1
	}
	return pinned, append(shown, c)
}

// Placement names of the bottom line's figures.
const (
	PlaceFreeName   = "free"
	PlaceOneCPUName = "one-cpu"
)

// figureOf is one cell's bottom-line figure: its typical spawn, its
// ratio to what the report divides it by, where its threads ran, and its
// spread over occasions.
func (r *Report) figureOf(c *Cell, placement string) *BottomCell {
	if c == nil || c.Stats == nil {
		return nil
	}
	out := &BottomCell{Environment: c.Environment, TypicalUS: c.Stats.TypicalUS, Processes: c.Stats.Processes, Placement: placement}
	if p := placementOf(c, results.SameCPU); p != nil {
		share := p.Share
		out.SameCPU = &share
	} else if len(c.Placements) > 0 {
		var none Float
		out.SameCPU = &none
	}
	if q := r.DividingBy(c); q != nil && q.Divisor == DivideByLowerCluster {
		out.Divisor = &BottomDivisor{Kind: q.Divisor, TypicalUS: q.DivisorUS, Processes: q.BaselineProcesses, Share: q.DivisorShare}
	}
	if c.Environment != r.Baseline {
		out.Ratio = r.RatioOn(c.Machine, c.Environment, c.Mode, c.Column)
		if out.Ratio != nil {
			out.Spread = r.spreadOverOccasions(out.Ratio)
		}
	}
	return out
}

// DividingBy is a ratio whose baseline is cell c, or nil.
func (r *Report) DividingBy(c *Cell) *Ratio {
	for i := range r.Ratios {
		if q := &r.Ratios[i]; q.Baseline == c.Environment && q.Mode == c.Mode && q.Column == c.Column && (q.Machine == "" || q.Machine == c.Machine) {
			return q
		}
	}
	return nil
}

// RatioOn is the ratio of (env, mode, col) measured on machine, or nil.
func (r *Report) RatioOn(machine, env, mode string, col Column) *Ratio {
	for i := range r.Ratios {
		q := &r.Ratios[i]
		if q.Environment == env && q.Mode == mode && q.Column == col && (machine == "" || q.Machine == machine) {
			return q
		}
	}
	return nil
}

// bottomNotes are the baseline's unstable cells and the ratios that mix
// placements, each said once. The baseline's cells are the ones the
// bottom line's ratios divide by: its one-CPU twin's where the ratios are
// on one CPU, its own where they are free.
func bottomNotes(r *Report, b *BottomLine) []BottomNote {
	var notes []BottomNote
	type used struct {
		env string
		col Column
	}
	seen := map[used]bool{}
	for _, row := range b.Rows {
		for _, col := range []Column{b.First, b.Steady} {
			bc := row.First
			if col == b.Steady {
				bc = row.Steady
			}
			for _, fig := range []*BottomCell{bc, freeOf(bc)} {
				if fig == nil || fig.Ratio == nil || seen[used{fig.Ratio.Baseline, col}] {
					continue
				}
				seen[used{fig.Ratio.Baseline, col}] = true
				c := r.Cell(fig.Ratio.Baseline, b.Mode, col)
				if c == nil || !c.Judgement.Unstable {
					continue
				}
				placement := PlaceFreeName
				if r.twinOf[c.Environment] != "" {
					placement = PlaceOneCPUName
				}
				notes = append(notes, BottomNote{Kind: NoteBaselineUnstable, Column: col, Judgement: &c.Judgement,
					Environment: c.Environment, Placement: placement, Divisor: fig.Ratio.Divisor})
			}
		}
	}
	for _, row := range b.Rows {
		for _, bc := range []*BottomCell{row.First, row.Steady} {
			if bc != nil && bc.Ratio != nil && bc.Ratio.MixesPlacements {
				notes = append(notes, BottomNote{Kind: NoteMixesPlacements, Column: bc.Ratio.Column, Ratio: bc.Ratio})
			}
		}
	}
	return notes
}

// freeOf is bc's free figure beside it, or nil.
func freeOf(bc *BottomCell) *BottomCell {
	if bc == nil {
		return nil
	}
	return bc.Free
}

// spreadOverOccasions is the range of q's per-occasion ratios, nil with
// fewer than two occasions.
func (r *Report) spreadOverOccasions(q *Ratio) *RatioSpread {
	c, b := r.cellOn(q.Machine, q.Environment, q.Mode, q.Column), r.cellOn(q.Machine, q.Baseline, q.Mode, q.Column)
	if c == nil || b == nil || c.Stats == nil || b.Stats == nil {
		return nil
	}
	per := stats.OccasionRatios(StatsProcesses(c.Stats.Summaries), divisorOf(b, q.Divisor == DivideByLowerCluster).procs)
	if per == nil {
		return nil
	}
	return &RatioSpread{Occasions: len(per), Low: Float(slices.Min(per)), High: Float(slices.Max(per))}
}
