package render

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"spawnbench/engine/hostfacts"
	"spawnbench/engine/report"
	"spawnbench/engine/results"
	"spawnbench/engine/textfmt"
)

// writeBottomLine renders the bottom line.
func writeBottomLine(r *report.Report, b *strings.Builder) {
	bl := r.BottomLine
	if bl == nil {
		return
	}
	b.WriteString("## Bottom line\n\n")
	if a := answerText(bl); a != "" {
		b.WriteString("**" + a + "**\n\n")
	}
	if t := anatomyText(r); t != "" {
		b.WriteString(t + " The parts are in \"Where the time goes\".\n\n")
	}
	fmt.Fprintf(b, "How much slower a thread spawn is than %s, in %s mode: each figure is the typical spawn over independent processes, "+
		"each ratio that ÷ %s's with its %.0f%% interval over both cells' processes (its processes : %s's).",
		bl.Baseline, bl.Mode, bl.Baseline, 100*r.Confidence, bl.Baseline)
	if hasPinned(bl) {
		fmt.Fprintf(b, " Rows on \"one CPU\" compare the environment and %s with every thread on one CPU, so every child starts on its parent's CPU in both: "+
			"like with like. With the scheduler free, the share of children it starts on another CPU differs between environments and between runs, "+
			"and so would the ratio (the table after this one).", bl.Baseline)
	}
	b.WriteString("\n\n")
	// Where every row is free, the column would say nothing.
	pinned := hasPinned(bl)
	header := []string{"Host family", "Environment (host)", "First spawn (n = 1)", "÷ " + bl.Baseline,
		"Steady state (" + columnText(bl.Steady) + ")", "÷ " + bl.Baseline, "Verdict"}
	align := "llrrrrl"
	if pinned {
		header = slices.Insert(header, 2, "Threads on")
		align = "lllrrrrl"
	}
	var rows [][]string
	for _, row := range bl.Rows {
		first, firstRatio := bottomTexts(row.First, bl.Baseline == row.Environment)
		steady, steadyRatio := bottomTexts(row.Steady, bl.Baseline == row.Environment)
		env := row.Environment
		if row.Host != "" && row.Host != row.Environment {
			env += " (" + row.Host + ")"
		}
		line := []string{familyLabel(row.Family), env, first, firstRatio, steady, steadyRatio, rowVerdict(bl, row)}
		if pinned {
			line = slices.Insert(line, 2, placementText(row))
		}
		rows = append(rows, line)
	}
	mdTable(b, header, align, rows)
	for _, row := range bl.Rows {
		if n := threadsNote(row); n != "" {
			fmt.Fprintf(b, "- %s\n", n)
		}
	}
	for _, n := range bl.Notes {
		fmt.Fprintf(b, "- %s\n", noteText(bl, n))
	}
	if len(bl.Notes) > 0 || slices.ContainsFunc(bl.Rows, func(row report.BottomRow) bool { return threadsNote(row) != "" }) {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "One row per host: the first environment the set lists for each (variants such as pools, other payloads and other releases are in the report's tables). "+
		"A verdict comes from the row's own cells: unstable only when its processes drifted during the run or fall into two clusters; "+
		"not judged below %d processes. The figures with their precision are in the report's \"Typical spawn time\".\n\n", report.MinIntervalProcesses)
	writeFreePlacement(r, b)
	writeEarlier(r, b)
}

// familyLabel is a family's name, with what its threads are where they
// are not OS threads.
func familyLabel(family string) string {
	if t := report.FamilyThreads(family); t != "" {
		return family + " (threads are " + t + ")"
	}
	return family
}

// threadsNote says, under the bottom line, what a row's figures include
// where its threads are not OS threads; "" where they are.
func threadsNote(row report.BottomRow) string {
	switch row.Threads {
	case "":
		return ""
	case hostfacts.Goroutines:
		return fmt.Sprintf("%s's threads are goroutines, not OS threads: a spawn there makes the thread's instance and starts a goroutine, "+
			"which Go's scheduler runs on one of its own OS threads (at most GOMAXPROCS running at once). Its figures include no OS thread's creation "+
			"unless the scheduler starts one, so its ratio compares a goroutine's start with an OS thread's (docs/environments.md).", row.Environment)
	default:
		return fmt.Sprintf("%s's threads are %s, not OS threads (docs/environments.md).", row.Environment, row.Threads)
	}
}

// hasPinned is true when a row shows a one-CPU figure.
func hasPinned(b *report.BottomLine) bool {
	for _, row := range b.Rows {
		for _, c := range []*report.BottomCell{row.First, row.Steady} {
			if c != nil && c.Placement == report.PlaceOneCPUName {
				return true
			}
		}
	}
	return false
}

// placementText is where a row's threads ran: "one CPU", "any CPU", or
// both where its two figures differ.
func placementText(row report.BottomRow) string {
	var seen []string
	for _, c := range []*report.BottomCell{row.First, row.Steady} {
		if c == nil {
			continue
		}
		t := "any CPU"
		if c.Placement == report.PlaceOneCPUName {
			t = "one CPU"
		}
		if !slices.Contains(seen, t) {
			seen = append(seen, t)
		}
	}
	if len(seen) == 2 {
		return "one CPU (first spawn), any CPU (steady state)"
	}
	return strings.Join(seen, "")
}

// writeFreePlacement sets the one-CPU rows' figures with the scheduler
// free beside them: the free ratio, how often each side's children
// started on the parent's CPU, and the ratio within each placement.
func writeFreePlacement(r *report.Report, b *strings.Builder) {
	bl := r.BottomLine
	var rows [][]string
	for _, row := range bl.Rows {
		for _, c := range []struct {
			cell  *report.BottomCell
			label string
		}{{row.First, "first spawn"}, {row.Steady, "steady state"}} {
			if c.cell == nil || c.cell.Free == nil {
				continue
			}
			f := c.cell.Free
			line := []string{row.Environment, c.label, fmt.Sprintf("%s (%s)", textfmt.TimeUS(float64(f.TypicalUS)), textfmt.Plural(f.Processes, "process", "processes"))}
			if row.Environment == bl.Baseline {
				line = append(line, "1", shareText(f.SameCPU), "1", "1")
				rows = append(rows, line)
				continue
			}
			_, ratio := bottomTexts(f, false)
			line = append(line, ratio)
			var same, other string = "n/a", "n/a"
			if q := f.Ratio; q != nil {
				base := bl.Rows[0]
				var baseShare *report.Float
				for _, bc := range []*report.BottomCell{base.First, base.Steady} {
					if bc != nil && bc.Free != nil && bc == pick(base, c.label) {
						baseShare = bc.Free.SameCPU
					}
				}
				line = append(line, shareText(f.SameCPU)+" : "+shareText(baseShare))
				for _, p := range q.Placements {
					text := textfmt.Ratio(float64(p.Ratio)) + "× " + plainInterval(p.Low, p.High)
					if p.Placement == results.SameCPU {
						same = text
					} else {
						other = text
					}
				}
			} else {
				line = append(line, shareText(f.SameCPU))
			}
			rows = append(rows, append(line, same, other))
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "### The same rows with the scheduler free\n\n")
	mdTable(b, []string{"Environment", "Figure", "Free", "÷ " + bl.Baseline + ", free", "Child on the parent's CPU (this : " + bl.Baseline + ")",
		"÷ " + bl.Baseline + ", child on the parent's CPU", "÷ " + bl.Baseline + ", child on another CPU"}, "llrrrrr", rows)
	fmt.Fprintf(b, "The one-CPU rows above measured with no pinning: the scheduler then starts a child on its parent's CPU or wakes another, "+
		"in shares that differ between environments and from run to run, and on a VM waking another CPU costs what the hypervisor takes to wake it. "+
		"The free ratio mixes the two placements in each side's shares; within one placement (the last two columns, where both sides record where each child first ran) it does not.\n\n")
}

// pick is the row's cell of the column labelled label.
func pick(row report.BottomRow, label string) *report.BottomCell {
	if label == "first spawn" {
		return row.First
	}
	return row.Steady
}

// shareText is a share as a percentage, "n/a" where unknown.
func shareText(s *report.Float) string {
	if s == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(*s))
}

// bottomTexts are a bottom-line cell's figure and ratio as printed.
func bottomTexts(c *report.BottomCell, baseline bool) (figure, ratio string) {
	if c == nil {
		return "n/a", "n/a"
	}
	figure = fmt.Sprintf("%s (%s)", textfmt.TimeUS(float64(c.TypicalUS)), textfmt.Plural(c.Processes, "process", "processes"))
	switch {
	case baseline && c.Divisor != nil:
		return figure, fmt.Sprintf("1 = %s (its faster cluster: %s)", textfmt.TimeUS(float64(c.Divisor.TypicalUS)), textfmt.Plural(c.Divisor.Processes, "process", "processes"))
	case baseline:
		return figure, "1"
	case c.Ratio == nil:
		return figure, "n/a"
	}
	q := c.Ratio
	if math.IsInf(float64(q.High), 0) {
		return figure, fmt.Sprintf("%s× (not judged: %d : %d processes)", textfmt.Ratio(float64(q.Ratio)), q.Processes, q.BaselineProcesses)
	}
	ratio = fmt.Sprintf("%s× %s (%d : %d)", textfmt.Ratio(float64(q.Ratio)), plainInterval(q.Low, q.High), q.Processes, q.BaselineProcesses)
	if sp := c.Spread; sp != nil {
		ratio += fmt.Sprintf("; %s–%s over %d occasions", textfmt.Ratio(float64(sp.Low)), textfmt.Ratio(float64(sp.High)), sp.Occasions)
	}
	return figure, ratio
}

// BottomLineText is the bottom line as plain text, for the end of
// `spawnbench run`: the table's rows without Markdown.
func BottomLineText(r *report.Report) string {
	bl := r.BottomLine
	if bl == nil {
		return ""
	}
	var b strings.Builder
	if a := answerText(bl); a != "" {
		b.WriteString(a + "\n")
	}
	if t := anatomyText(r); t != "" {
		b.WriteString(t + "\n")
	}
	fmt.Fprintf(&b, "Bottom line (%s mode; typical spawn, and ÷ %s with its 95%% interval over processes):\n", bl.Mode, bl.Baseline)
	for _, row := range bl.Rows {
		first, fr := bottomTexts(row.First, row.Environment == bl.Baseline)
		steady, sr := bottomTexts(row.Steady, row.Environment == bl.Baseline)
		where := ""
		if hasPinned(bl) {
			where = " (" + placementText(row) + ")"
		}
		if row.Threads != "" {
			where += " (its threads are " + row.Threads + ")"
		}
		fmt.Fprintf(&b, "  %-24s first spawn%s %s = %s; steady state (%s) %s = %s; %s\n",
			row.Environment, where, first, fr, columnText(bl.Steady), steady, sr, rowVerdict(bl, row))
	}
	return b.String()
}

// rowVerdict is a row's verdict in a few words, from its own cells':
// "stable", "unstable (…)", "not judged (…)", with "busy" where it
// applies.
func rowVerdict(b *report.BottomLine, row report.BottomRow) string {
	var unstable, notJudged []string
	busy := false
	for _, cj := range row.Judgements {
		n := cj.Judgement
		busy = busy || n.Busy
		where := columnPhrase(b, cj.Column)
		switch n.Verdict {
		case report.Unstable:
			unstable = append(unstable, where+": "+reasonText(n))
		case report.NotJudged:
			notJudged = append(notJudged, fmt.Sprintf("%s at %s", textfmt.Plural(n.Processes, "process", "processes"), where))
		}
	}
	var v []string
	if busy {
		v = append(v, "busy")
	}
	if len(unstable) > 0 {
		v = append(v, "unstable ("+strings.Join(unstable, "; ")+")")
	}
	if len(notJudged) > 0 {
		v = append(v, "not judged ("+strings.Join(notJudged, ", ")+")")
	}
	if len(v) == 0 {
		return report.Stable
	}
	return strings.Join(v, "; ")
}

// columnText is "n = 100, last 10" or "n = 1".
func columnText(c report.Column) string {
	if c.Last == 0 {
		return fmt.Sprintf("n = %d", c.N)
	}
	return fmt.Sprintf("n = %d, last %d", c.N, c.Last)
}

// columnLabel is a column's heading, e.g. "100" or "100 (last 10)".
func columnLabel(c report.Column) string {
	if c.Last == 0 {
		return strconv.Itoa(int(c.N))
	}
	return fmt.Sprintf("%d (last %d)", c.N, c.Last)
}

// columnPhrase names a bottom-line column: "first spawn" or "steady state".
func columnPhrase(b *report.BottomLine, c report.Column) string {
	switch c {
	case b.First:
		return "first spawn"
	case b.Steady:
		return "steady state"
	}
	return "n = " + columnLabel(c)
}

// noteText is one of the bottom line's notes in words.
func noteText(b *report.BottomLine, n report.BottomNote) string {
	switch n.Kind {
	case report.NoteBaselineUnstable:
		t := fmt.Sprintf("%s's own %s cell (%s) %s is unstable: %s.", b.Baseline, columnPhrase(b, n.Column), columnText(n.Column), baselinePlacementText(n.Placement), reasonText(*n.Judgement))
		if cl := n.Judgement.Clusters; n.Divisor == report.DivideByLowerCluster && len(cl) == 2 {
			return t + " Every ratio of that column divides by its faster cluster, over that cluster's own processes: a figure over the whole cell moves with the clusters' shares from run to run, each cluster's own figure does not."
		}
		return t + " Every ratio of that column divides by it."
	case report.NoteMixesPlacements:
		q := n.Ratio
		var same, other report.PlacementRatio
		for _, p := range q.Placements {
			if p.Placement == results.SameCPU {
				same = p
			} else {
				other = p
			}
		}
		return fmt.Sprintf("%s ÷ %s at %s (%s) mixes placements: %s's children start on the parent's CPU in %.0f%% of spawns, %s's in %.0f%%. "+
			"Within one placement the ratio is %s× %s on the parent's CPU and %s× %s on another, beside %s× pooled.",
			q.Environment, q.Baseline, columnPhrase(b, q.Column), columnText(q.Column), q.Environment, 100*float64(same.Share), q.Baseline, 100*float64(same.BaselineShare),
			textfmt.Ratio(float64(same.Ratio)), plainInterval(same.Low, same.High), textfmt.Ratio(float64(other.Ratio)), plainInterval(other.Low, other.High), textfmt.Ratio(float64(q.Ratio)))
	}
	return n.Kind
}

// plainInterval is "[lo, hi]" for a ratio, or "(no interval)".
func plainInterval(lo, hi report.Float) string {
	return textfmt.RatioInterval(float64(lo), float64(hi))
}
